"""The offices' group tables at the end of the demo, through ``office standings --db``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from firmware_py.demo.tournaments import REPO, DemoTournament


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


def print_tables(demo: DemoTournament, db: Path, say: Callable[[str], None]) -> bool:
    """The office's group tables of one tournament, as ``office standings`` prints them,
    under a heading naming the tournament and its rule document's preset."""
    say(f"{demo.name}: the office's table ({demo.file.name}, preset "
        f"{', '.join(sorted({m.preset for m in demo.matches}))})")
    done = standings(demo.file, db, as_json=False)
    if done.returncode != 0:
        say(f"  office standings failed (exit code {done.returncode}):")
        for line in (done.stderr or done.stdout).strip().splitlines():
            say(f"    {line}")
        return False
    for line in done.stdout.rstrip("\n").splitlines():
        say(f"  {line}")
    if demo.tiebreak:
        say(textwrap.fill(f"Level on points, {demo.file.name} looks at: "
                          f"{', '.join(demo.tiebreak)}.", width=92, initial_indent="  ",
                          subsequent_indent="    "))
    if "provisional" in done.stdout and demo.protest_window_min:
        say(f"  Provisional: a result counts for good {demo.protest_window_min} min after the "
            "match (the rules' protest window).")
    return True
