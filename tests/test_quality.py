"""Style and types are part of the suite: ruff on everything, mypy (strict) on every package
we ship (pyproject.toml [tool.mypy] files)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, check=False)


@pytest.mark.slow
def test_ruff_is_clean() -> None:
    done = run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_is_clean_on_every_package() -> None:
    done = run("mypy", "--no-incremental")
    assert done.returncode == 0, done.stdout + done.stderr
