"""``bench/office.py`` as a module for the other office benchmarks.

Its file name is the ``office`` package's, so it is loaded by path under another name, and
registered in ``sys.modules`` before it runs: its dataclasses look their module up by name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
NAME = "bench_office"


def bench_office() -> ModuleType:
    """The loaded ``bench/office.py`` (once per process)."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    if str(HERE) not in sys.path:
        sys.path.insert(1, str(HERE))  # its own imports: cpuload, mqtt_e2e, loopclient
    spec = importlib.util.spec_from_file_location(NAME, HERE / "office.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    spec.loader.exec_module(module)
    return module
