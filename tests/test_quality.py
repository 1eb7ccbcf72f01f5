"""Style and types are part of the suite: ruff on everything, mypy (strict) on every package
we ship (pyproject.toml [tool.mypy] files)."""

from __future__ import annotations

import re
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


# What lies beside the checkout (spelled in pieces, so that this file does not match itself).
OUTSIDE = re.compile("|".join(re.escape(a + b) for a, b in (
    ("STACK", "-NOTES"), ("DEVELOPERS", ".md"), ("DESIGN", ".md"), ("../", "shared"),
    ("shared/", "tournament-rules"))))


def test_nothing_points_outside_the_repository() -> None:
    """The repository stands alone: what the code and docs rely on (the design, the facts
    about the dependencies) is in README.md and docs/, not in files beside the checkout."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    texts = [p for p in tracked if not p.endswith(".png")]
    found = [f"{p}:{n}: {line.strip()}" for p in texts
             for n, line in enumerate((ROOT / p).read_text(errors="replace").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, "\n".join(found)


def test_the_developer_page_has_every_section_the_code_cites() -> None:
    readme = (ROOT / "docs/developer.md").read_text(encoding="utf-8")
    for heading in ("## Design and contracts", "## Dependency facts", "### 2 A pure core",
                    "### 3 What", "### 4 Contracts", "### 5 Quality bar"):
        assert heading in readme, heading
    for number in ("4.1", "4.2", "4.3", "4.4", "4.5"):
        assert f"**{number} " in readme, number
