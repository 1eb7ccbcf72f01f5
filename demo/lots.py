"""The demo's office at work: when a finished group has teams level after every criterion,
it draws lots as an office would, with ``office draw-lots --random`` (the seed recorded and
printed, so the draw can be checked), and the bracket match waiting for them is filled.

The store is read in this process (as ``office standings --db`` reads it); the draw is the
real command, so the demo shows the line an office types.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from arena.tournament.files import load_event
from demo.tournaments import REPO
from office.inforce import event_in_force, ledger_in_force
from office.storage.store import Store, StoreError

LOOK_S = 0.5  # how often the store is looked at for lots to draw
SEED = 2027  # the demo's seed: the same draw every run


class LotsDrawer:
    """Looks at the office's tables now and then; draws each group's lots once."""

    def __init__(self, event_file: Path, db: Path, say: Callable[[str], None],
                 clock: Callable[[], float]) -> None:
        self.event = load_event(event_file)
        self.file = event_file
        self.db = db
        self.say = say
        self.clock = clock
        self.next_look = float("-inf")
        self.drawn: set[tuple[str, str]] = set()  # (category, group)
        self.failed: str | None = None

    def step(self) -> None:
        if self.clock() < self.next_look or not self.db.exists():
            return
        self.next_look = self.clock() + LOOK_S
        try:
            store = Store(self.db)
        except StoreError:
            return  # the office is still creating it: next time
        try:
            # The schedule the office runs now (its reschedules and reloads).
            self.event = event_in_force(store, self.file)
            wanted = []
            for c in self.event.categories:
                # Lots are wanted whatever the protest windows say: no wall time needed.
                ledger = ledger_in_force(self.event, c.name, store, None)
                for name, table in ledger.tables.items():
                    level = [r.team for r in table.rows if r.lots_needed]
                    if table.complete and level and (c.name, name) not in self.drawn:
                        wanted.append((c.name, name, level))
        finally:
            store.close()
        for category, group, level in wanted:
            self.drawn.add((category, group))
            self._draw(category, group, level)

    def _draw(self, category: str, group: str, level: list[str]) -> None:
        self.say(f"office | {category} group {group}: {' and '.join(level)} are level after "
                 "every criterion; the office draws lots:")
        argv = ["office", "draw-lots", "--tournament", str(self.file), "--db", str(self.db),
                "--category", category, "--group", group, "--random", "--seed", str(SEED)]
        self.say(f"office |     {' '.join(argv[:2])} --category {category} --group {group} "
                 f"--random --seed {SEED}")
        done = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True,
                              encoding="utf-8", check=False, cwd=REPO)
        if done.returncode != 0:
            self.failed = (f"office draw-lots failed (exit code {done.returncode}): "
                           f"{(done.stderr or done.stdout).strip()}")
            self.say(f"office | {self.failed}")
            return
        first = done.stdout.splitlines()[0] if done.stdout else ""
        self.say(f"office | {first}")
