"""The core is pure (DESIGN.md 2): standard library only, no I/O, no threads, no OS clock.

This walks every import and every call-like name in firmware_py/core and fails on anything
that could read a clock, touch a file or a socket, or start a thread.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "firmware_py" / "core"

# Standard-library modules the core may use: pure data and computation.
ALLOWED = {
    "__future__", "collections", "dataclasses", "decimal", "enum", "typing", "math",
    "functools", "itertools", "bisect", "fractions", "operator", "types", "abc",
    # Text in, data out (core/tables.py reads and writes TOML text, never a file).
    "tomllib", "json", "re", "difflib",
}
# Built-ins that do I/O or reach outside.
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__", "breakpoint"}


def core_files() -> list[Path]:
    files = sorted(CORE.rglob("*.py"))
    assert files, "no core modules found"
    return files


@pytest.mark.parametrize("path", core_files(), ids=lambda p: p.name)
def test_core_imports_only_pure_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level > 0:
                continue  # relative: the core itself
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names, f"{path.name}: third-party import {name}"
            assert top in ALLOWED, f"{path.name}: import of {name} (I/O, threads or the clock?)"


@pytest.mark.parametrize("path", core_files(), ids=lambda p: p.name)
def test_core_calls_no_io_builtins(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, (
                f"{path.name}:{node.lineno}: calls {node.func.id}()"
            )


def test_the_purity_check_catches_an_impure_import(tmp_path: Path) -> None:
    """The check itself can fail: a module importing time is caught."""
    bad = ast.parse("import time\nfrom os import path\n")
    tops = {a.name.split(".")[0] for n in ast.walk(bad) if isinstance(n, ast.Import)
            for a in n.names}
    tops |= {(n.module or "").split(".")[0] for n in ast.walk(bad)
             if isinstance(n, ast.ImportFrom)}
    assert tops - ALLOWED == {"time", "os"}
