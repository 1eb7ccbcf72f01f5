"""Style and types are part of the suite: ruff on everything, mypy (strict) on every package
we ship (pyproject.toml [tool.mypy] files)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.slowmarks import ProcessStarters

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


@pytest.mark.slow
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


def test_every_test_that_starts_a_process_is_marked_slow() -> None:
    """``pytest -m "not slow"`` runs only tests that start no process (tests/slowmarks.py
    says which do: subprocess, Popen, the broker fixtures, ``office serve``, Chromium)."""
    unmarked = list(ProcessStarters().unmarked())
    assert not unmarked, "start a process but are not marked slow:\n" + "\n".join(unmarked)


def test_the_slow_check_finds_a_process_however_it_is_started(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "sub").mkdir(parents=True)
    (tests / "helpers.py").write_text(
        "import subprocess\n"
        "def serve():\n    return subprocess.Popen(['office', 'serve'])\n"
        "def pure():\n    return 1\n")
    (tests / "conftest.py").write_text(
        "import pytest\nfrom tests.helpers import serve\n"
        "@pytest.fixture\ndef broker():\n    yield serve()\n")
    (tests / "sub" / "test_cases.py").write_text(
        "import os\nimport subprocess\nimport pytest\nfrom subprocess import Popen\n"
        "from tests.helpers import pure, serve\n"
        "def helper():\n    subprocess.run(['git'])\n"
        "@pytest.fixture\ndef local():\n    helper()\n"
        "def test_direct():\n    subprocess.run(['true'])\n"
        "def test_popen():\n    Popen(['true'])\n"
        "def test_fork():\n    os.fork()\n"
        "def test_helper():\n    helper()\n"
        "def test_imported():\n    serve()\n"
        "def test_local_fixture(local):\n    pass\n"
        "def test_conftest_fixture(broker):\n    pass\n"
        "def test_pure():\n    pure()\n"
        "@pytest.mark.slow\ndef test_marked():\n    subprocess.run(['true'])\n"
        "@pytest.mark.slow\nclass TestMarked:\n    def test_in_class(self):\n"
        "        subprocess.run(['true'])\n")
    (tests / "sub" / "test_module_marked.py").write_text(
        "import subprocess\nimport pytest\npytestmark = [pytest.mark.slow]\n"
        "def test_direct():\n    subprocess.run(['true'])\n")
    (tests / "sub" / "test_shares_marks.py").write_text(
        "import subprocess\nfrom tests.sub.test_module_marked import pytestmark\n"
        "def test_direct():\n    subprocess.run(['true'])\n")
    found = sorted(ProcessStarters(tests).unmarked())
    assert found == sorted(f"tests.sub.test_cases::test_{name}" for name in (
        "direct", "popen", "fork", "helper", "imported", "local_fixture", "conftest_fixture"))


# The office-fault runs (tests/mqtt/test_office_faults.py and what stages them, which
# bench/faults.py reports too): real processes in real time, so every wait is a bounded
# poll on a condition (tests/fixtures.py ``wait_for``), never a sleep for time to pass.
NO_SLEEP = ("tests/mqtt/officefaults.py", "tests/mqtt/test_office_faults.py")


def test_the_office_fault_runs_wait_on_conditions_not_on_sleeps() -> None:
    found = []
    for name in NO_SLEEP:
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (
                    (isinstance(node.func, ast.Attribute) and node.func.attr == "sleep")
                    or (isinstance(node.func, ast.Name) and node.func.id == "sleep")):
                found.append(f"{name}:{node.lineno}")
    assert not found, "sleeps instead of waiting on a condition: " + ", ".join(found)
