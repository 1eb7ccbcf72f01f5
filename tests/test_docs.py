"""The docs say what the code does: their reference blocks are generated from the code
(docs/reference.py) and must be current, the config's declared defaults are the reader's,
and the pages hold no issue tags and no benchmark figures outside docs/performance.md."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from firmware_py import config

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "reference.py"
PAGES = sorted((ROOT / "docs").glob("*.md"))
BENCH = ROOT / "bench"
BENCH_HELPERS = {"cpuload", "faults_office", "loopclient", "office_module", "report"}


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference() -> ModuleType:
    return _load("docs_reference", SCRIPT)


@pytest.mark.slow  # runs the script as a process, as a developer would
def test_the_reference_blocks_are_current() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0, f"{done.stderr.strip()} (run python docs/reference.py)"


def test_a_stale_block_is_found_and_rewritten_from_the_code() -> None:
    reference = _reference()
    page = "intro\n<!-- ref:topics:begin -->\nan old table\n<!-- ref:topics:end -->\nend\n"
    fresh = reference.filled(page, "topics", reference.topics_table())
    assert "an old table" not in fresh
    assert "`arena/v1/<t>/<hall>/events` | hall | no | 1 |" in fresh
    assert fresh.startswith("intro\n") and fresh.endswith("<!-- ref:topics:end -->\nend\n")
    assert reference.filled(fresh, "topics", reference.topics_table()) == fresh


@pytest.mark.slow  # runs the script as a process
def test_the_reference_script_answers_help() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0 and "--check" in done.stdout


@pytest.mark.parametrize("key", [k for k in config.KEYS if k.default is not None],
                         ids=lambda k: f"{k.table}.{k.name}")
def test_a_declared_default_is_what_the_reader_takes_when_the_key_is_absent(
        key: config.Key) -> None:
    assert config.parse({key.table: {key.name: key.default}}, "test") == config.parse({}, "test")


def test_every_key_the_reader_takes_is_declared() -> None:
    for table, keys in config._KEYS.items():
        for name in keys:
            assert any(k.table == table and k.name == name for k in config.KEYS), name
    with pytest.raises(config.ConfigError, match="display"):
        config.parse({"display": {"no_such_key": 1}}, "test")


ISSUE_TAG = re.compile(r"\(\[[a-z]+\]|\[(console|keypad|display|mqtt|reliability|office|daemon|"
                       r"schedule|public)\]\)|\bissue #?\d+", re.IGNORECASE)


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_no_page_cites_an_issue(page: Path) -> None:
    found = [line for line in page.read_text(encoding="utf-8").splitlines()
             if ISSUE_TAG.search(line)]
    assert not found, found


# A measured time in the prose: "p50 3.7 ms", "p99 28-29 ms".
FIGURE = re.compile(r"\bp(50|99)\b[^.|]*?\d+(\.\d+)? ?ms\b")


@pytest.mark.parametrize("page", [p for p in [ROOT / "README.md", *PAGES]
                                  if p.name != "performance.md"], ids=lambda p: p.name)
def test_benchmark_figures_live_only_in_the_performance_page(page: Path) -> None:
    found = [line for line in page.read_text(encoding="utf-8").splitlines()
             if FIGURE.search(line)]
    assert not found, found


def test_every_benchmark_has_its_block_in_the_performance_page() -> None:
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    # faults_*.py: rows of bench/faults.py, which writes their figures into its block.
    scripts = sorted(p.stem for p in BENCH.glob("*.py") if p.stem not in BENCH_HELPERS
                     and not p.stem.startswith("faults_"))
    for name in scripts:
        assert page.count(f"<!-- bench:{name}:begin -->") == 1, name
        assert page.count(f"<!-- bench:{name}:end -->") == 1, name
        source = (BENCH / f"{name}.py").read_text(encoding="utf-8")
        assert f'run_writing_docs(main, "{name}")' in source, name


def test_write_docs_puts_the_printed_summary_in_its_block_with_date_and_machine(
        tmp_path: Path) -> None:
    report = _load("bench_report", BENCH / "report.py")
    page = tmp_path / "performance.md"
    page.write_text("# P\n<!-- bench:horn:begin -->\nold figures\n<!-- bench:horn:end -->\n"
                    "<!-- bench:other:begin -->\nkept\n<!-- bench:other:end -->\n",
                    encoding="utf-8")
    report.write_block("horn", "relay p50 0.04 ms\n", page=page,
                       when=datetime(2026, 12, 1, 9, 30, tzinfo=UTC), where="x86_64, 2 cores")
    text = page.read_text(encoding="utf-8")
    assert "old figures" not in text and "kept" in text
    assert ("<!-- bench:horn:begin -->\nMeasured 2026-12-01 09:30 UTC on x86_64, 2 cores.\n\n"
            "```\nrelay p50 0.04 ms\n```\n<!-- bench:horn:end -->") in text
    with pytest.raises(KeyError, match="bench:hron"):
        report.write_block("hron", "x", page=page)


def test_write_docs_tees_the_output_and_writes_only_after_a_successful_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    report = _load("bench_report", BENCH / "report.py")
    page = tmp_path / "docs" / "performance.md"
    page.parent.mkdir()
    page.write_text("<!-- bench:b:begin -->\n<!-- bench:b:end -->\n", encoding="utf-8")
    monkeypatch.setattr(report, "PAGE", page)

    def failing() -> int:
        print("half a table")
        return 1

    assert report.run_writing_docs(failing, "b", ["--write-docs"]) == 1
    assert "half a table" not in page.read_text(encoding="utf-8")

    def bench() -> int:
        print("p50 1.0 ms")
        return 0

    assert report.run_writing_docs(bench, "b", ["--write-docs"]) == 0
    assert "```\np50 1.0 ms\n```" in page.read_text(encoding="utf-8")
    assert "p50 1.0 ms" in capsys.readouterr().out  # the terminal still gets it
