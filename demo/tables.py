"""The office's group tables at the end of the demo, through ``office standings --db``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from demo.tournaments import REPO, DemoEvent


def standings(tournament: Path, db: Path, *, as_json: bool) -> subprocess.CompletedProcess[str]:
    """``office standings --tournament FILE --db DB`` (the tables as the office has them)."""
    argv = [sys.executable, "-m", "office", "standings", "--tournament", str(tournament),
            "--db", str(db)]
    if as_json:
        argv.append("--json")
    return subprocess.run(argv, capture_output=True, text=True, encoding="utf-8",
                          check=False, cwd=REPO)


def tables_complete(tournament: Path, db: Path) -> bool:
    """Every group of the tournament has all its results in the office's store."""
    if not db.exists():
        return False
    done = standings(tournament, db, as_json=True)
    if done.returncode != 0:
        return False
    try:
        groups = json.loads(done.stdout)["groups"]
    except (ValueError, KeyError, TypeError):
        return False
    return bool(groups) and all(g.get("complete") for g in groups)


def print_tables(demo: DemoEvent, db: Path, say: Callable[[str], None]) -> bool:
    """The office's group tables of every category, as ``office standings`` prints them
    (each headed by its category), under a heading naming the event, then what each
    category's rule document looks at when teams are level on points."""
    presets = ", ".join(f"{c.name} {'/'.join(c.presets)}" for c in demo.categories)
    say(f"{demo.name}: the office's tables ({demo.file.name}; {presets})")
    done = standings(demo.file, db, as_json=False)
    if done.returncode != 0:
        say(f"  office standings failed (exit code {done.returncode}):")
        for line in (done.stderr or done.stdout).strip().splitlines():
            say(f"    {line}")
        return False
    for line in done.stdout.rstrip("\n").splitlines():
        say(f"  {line}" if line else "")
    # Categories of one rule document usually break ties alike: said once for those.
    alike: dict[tuple[str, ...], list[str]] = {}
    for c in demo.categories:
        if c.tiebreak:
            alike.setdefault(c.tiebreak, []).append(c.name)
    for tiebreak, names in alike.items():
        say(textwrap.fill(f"{', '.join(names)}: level on points, the rules look at: "
                          f"{', '.join(tiebreak)}.", width=92, initial_indent="  ",
                          subsequent_indent="    "))
    windows = {c.protest_window_min for c in demo.categories if c.protest_window_min}
    if "provisional" in done.stdout and windows:
        say(f"  Provisional: a result counts for good {'/'.join(map(str, sorted(windows)))} "
            "min after the match (the rules' protest window).")
    return True
