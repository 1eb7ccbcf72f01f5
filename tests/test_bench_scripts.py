"""The benchmarks stay runnable: each script in bench/ answers ``--help`` (its imports and
argument parser work from a plain checkout) and offers ``--write-docs``, and bench/office.py
loads as the module the other office benchmarks use. Only that: benchmarks measure; tests
never assert timings."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
# Helpers the scripts import, not scripts of their own.
MODULES = {"cpuload.py", "loopclient.py", "office_module.py", "report.py"}
# bench/faults.py's modules of rows (faults_*.py) are imported by it, not run.
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py")
                 if p.name not in MODULES and not p.name.startswith("faults_"))


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_answers_help(script: str) -> None:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    done = subprocess.run([sys.executable, str(BENCH / script), "--help"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
    assert "--write-docs" in done.stdout  # its figures go to docs/performance.md


def test_bench_office_loads_as_a_module_for_the_other_office_benchmarks() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        loader = importlib.import_module("office_module")  # bench/ is a folder of scripts
        module = loader.bench_office()
        assert callable(module.scaled) and loader.bench_office() is module
    finally:
        sys.path.remove(str(BENCH))
