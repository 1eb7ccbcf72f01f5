"""The core is pure (docs/developer.md 2): standard library only, no I/O, no threads, no OS clock.

``impurities`` walks every import and every call of a built-in in one module's source and
reports anything that could read a clock, touch a file or a socket, start a thread, or reach
outside the core. It runs on every module of arena/core, and on offending sources to
show that it does catch each kind.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "arena" / "core"

# Standard-library modules the core may use: pure data and computation.
ALLOWED = {
    "__future__", "collections", "dataclasses", "decimal", "enum", "typing", "math",
    "functools", "itertools", "bisect", "fractions", "operator", "types", "abc",
    # Text in, data out (core/tables.py reads and writes TOML text, never a file).
    "tomllib", "json", "re", "difflib",
}
# Built-ins that do I/O or reach outside.
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__", "breakpoint"}


@dataclass(frozen=True, slots=True)
class Finding:
    module: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.what}"


def impurities(module: str, source: str, *, depth: int = 0) -> list[Finding]:
    """Everything in ``source`` (the module ``module``, ``depth`` packages below the core's
    top) that the core must not do, in the order it appears."""
    found: list[Finding] = []
    for node in ast.walk(ast.parse(source, module)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if 0 < node.level <= depth + 1:
                continue  # relative, and still inside the core
            if node.level > 0:
                dots = "." * node.level
                found.append(Finding(module, node.lineno,
                                     f"relative import {dots}{node.module or ''} reaches "
                                     "outside the core"))
                continue
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS:
                found.append(Finding(module, node.lineno, f"calls {node.func.id}()"))
            continue
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names:
                found.append(Finding(module, node.lineno, f"third-party import {name}"))
            elif top not in ALLOWED:
                found.append(Finding(module, node.lineno,
                                     f"imports {name} (I/O, threads or the clock?)"))
    return sorted(found, key=lambda f: f.line)


def core_files() -> list[Path]:
    files = sorted(CORE.rglob("*.py"))
    assert files, "no core modules found"
    return files


@pytest.mark.parametrize("path", core_files(), ids=lambda p: p.name)
def test_every_core_module_is_pure(path: Path) -> None:
    relative = path.relative_to(CORE)
    found = impurities(str(relative), path.read_text(encoding="utf-8"),
                       depth=len(relative.parts) - 1)
    assert found == [], "\n".join(map(str, found))


# ------------------------------------------------------------------ the check itself


@pytest.mark.parametrize(
    ("source", "reported"),
    [
        ("import time\n", "bad.py:1: imports time (I/O, threads or the clock?)"),
        ("import socket\n", "bad.py:1: imports socket (I/O, threads or the clock?)"),
        ("from threading import Thread\n",
         "bad.py:1: imports threading (I/O, threads or the clock?)"),
        ("import os.path as p\n", "bad.py:1: imports os.path (I/O, threads or the clock?)"),
        ("data = open('scores.txt').read()\n", "bad.py:1: calls open()"),
        ("print('goal')\n", "bad.py:1: calls print()"),
        ("import numpy\n", "bad.py:1: third-party import numpy"),
        ("from paho.mqtt import client\n", "bad.py:1: third-party import paho.mqtt"),
        ("from ..daemon import Daemon\n",
         "bad.py:1: relative import ..daemon reaches outside the core"),
        ("def later():\n    import time\n    return time.monotonic_ns()\n",
         "bad.py:2: imports time (I/O, threads or the clock?)"),
    ],
)
def test_an_offending_source_is_reported_with_the_module_and_what_was_found(
    source: str, reported: str
) -> None:
    assert [str(f) for f in impurities("bad.py", source)] == [reported]


def test_every_offence_of_a_module_is_reported_in_order() -> None:
    source = (
        "from __future__ import annotations\n"
        "import time\n"
        "from .units import Nanos\n"
        "import gpiozero\n"
        "def f() -> None:\n"
        "    open('x')\n"
    )
    assert impurities("clockish.py", source) == [
        Finding("clockish.py", 2, "imports time (I/O, threads or the clock?)"),
        Finding("clockish.py", 4, "third-party import gpiozero"),
        Finding("clockish.py", 6, "calls open()"),
    ]


def test_pure_code_is_not_reported() -> None:
    source = (
        "from __future__ import annotations\n"
        "from dataclasses import dataclass, replace\n"
        "from . import penalties\n"
        "from .units import Nanos\n"
        "def opened(door: object) -> object:\n"
        "    return door.open()  # a method called open is no file\n"
    )
    assert impurities("fine.py", source) == []
    # One package down, ``..`` is still the core.
    assert impurities("sub/fine.py", "from ..units import Nanos\n", depth=1) == []
