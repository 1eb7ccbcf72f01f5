"""The layout is pure: standard library only (no pygame), no clock, no I/O."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DISPLAY = ROOT / "display"
PURE = ["items.py", "colour.py", "values.py", "segments.py", "fit.py", "document.py",
        "layout.py", "pacing.py",
        *(f"screens/{p.name}" for p in sorted((DISPLAY / "screens").glob("*.py")))]
# The standard library, less what reads the clock, the OS or the outside world.
FORBIDDEN = {"os", "sys", "time", "datetime", "io", "pathlib", "socket", "subprocess",
             "threading", "asyncio", "random", "shutil", "tempfile", "select", "signal"}
ALLOWED = set(sys.stdlib_module_names) - FORBIDDEN
# The project's own modules a pure display module may read: the MQTT contract (the rows of
# the office's tables) and what it imports, the words, the keypad's phrases (the state
# document's entry.say, worded on the operator line) and the time units, themselves pure
# (checked below).
PROJECT = {"arena.wire": ROOT / "arena" / "wire" / "__init__.py",
           # its modules import each other relatively: each is held to the rule itself
           **{f"arena.wire.{p.stem}": p for p in sorted((ROOT / "arena" / "wire").glob("*.py"))
              if p.stem != "__init__"},
           "arena.safejson": ROOT / "arena" / "safejson.py",
           "arena.words": ROOT / "arena" / "words" / "__init__.py",
           "arena.core.prompts": ROOT / "arena" / "core" / "prompts.py",
           "arena.core.units": ROOT / "arena" / "core" / "units.py"}


def imports(path: Path, *, whole: bool = False) -> set[str]:
    """Top-level names of what ``path`` imports (the full module name with ``whole``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name if whole else alias.name.split(".")[0]
                      for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module if whole else node.module.split(".")[0])
    return found


def outside_imports(path: Path) -> set[str]:
    names = imports(path, whole=True)
    return {n for n in names if n not in PROJECT and n.split(".")[0] not in ALLOWED}


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_import_only_the_standard_library(module: str) -> None:
    assert outside_imports(DISPLAY / module) == set(), module


@pytest.mark.parametrize("name", sorted(PROJECT))
def test_the_project_modules_the_display_reads_are_pure_too(name: str) -> None:
    # the pure core (tests/core/test_purity.py keeps it so) and each other only
    rest = {n for n in outside_imports(PROJECT[name]) if not n.startswith("arena.core.")}
    assert rest == set(), name


@pytest.mark.slow
def test_importing_the_layout_does_not_load_pygame() -> None:
    code = ("import sys, display.layout, display.pacing; "
            "print('pygame' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "False"


def test_only_the_display_package_imports_pygame() -> None:
    for path in ROOT.glob("*/**/*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"display", "tests", ".venv", "build"} or "site-packages" in rel.parts:
            continue
        assert "pygame" not in imports(path), rel


@pytest.mark.slow
def test_the_layout_is_mypy_strict_clean() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           "display/layout.py"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
