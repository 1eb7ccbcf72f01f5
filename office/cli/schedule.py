"""The ``office reschedule`` and ``office reload`` commands: the schedule changed while the
event runs (``office.schedule``; rules 001 'Match schedule').

Both write one audited row to the running service's store and change nothing else; the
service notices within a second, swaps its schedule and republishes every hall's ``next``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from datetime import datetime
from pathlib import Path

from arena.tournament.files import event_files, event_from_files
from arena.tournament.reader import TournamentError
from office import schedule
from office.inforce import event_in_force
from office.service import SCHEDULE_KEY, corrections_and_draws, schedule_steps
from office.storage.store import Store, StoreError

DEFAULT_DB = "office.sqlite"
log = logging.getLogger("office")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    move = sub.add_parser(
        "reschedule", help="move one match to another hall or start (audited; halls told "
                           "at once)",
        description="Move MATCH to another hall, another start, or both. The move is checked "
                    "against the rest of the schedule (no hall or team in two matches at "
                    "once; back-to-back play is a warning), kept in the store as an audited "
                    "office action, and the running service republishes the next match of "
                    "both halls within a second. A match with events or a result stays in "
                    "its hall unless --force; moved, its events are still taken from the "
                    "hall playing it until the new hall plays it (a replay).")
    move.add_argument("match", help="the match id")
    move.add_argument("--hall", help="the new hall")
    move.add_argument("--start", help='the new start, "YYYY-MM-DD HH:MM" (the tournament\'s '
                                      'local time), or "HH:MM" on the match\'s day')
    move.add_argument("--reason", help="why (kept with the change)")
    move.add_argument("--force", action="store_true",
                      help="move a match that has events or a result to another hall")
    _add_sources(move)
    move.set_defaults(func=run_reschedule)

    reload = sub.add_parser(
        "reload", help="apply an edited tournament file to the running service (audited)",
        description="Check FILE as `office serve` would, print what differs from the "
                    "schedule in force (matches added, removed, moved, re-paired; teams "
                    "added, removed, renamed; the rules), then keep it in the store as one "
                    "audited office action: the running service swaps to it in one step, "
                    "nothing stored is touched. The file replaces earlier reschedules too "
                    "(they are listed as moves back unless the file has them). A change "
                    "that orphans stored results (a played match removed, its teams or "
                    "hall changed) is refused unless --force, which keeps it as a forced "
                    "change shown on the office page.")
    reload.add_argument("file", type=Path, help="the edited tournament file")
    reload.add_argument("--force", action="store_true",
                        help="apply changes that orphan stored results")
    reload.add_argument("--dry-run", action="store_true",
                        help="only print the differences")
    reload.add_argument("--reason", help="why (kept with the change)")
    _add_sources(reload)
    reload.set_defaults(func=run_reload)


def _add_sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                   help=f"the running service's SQLite store (default {DEFAULT_DB})")
    p.add_argument("--tournament", type=Path, metavar="FILE",
                   help="the file the service was started with; needed only when the store "
                        "does not know it yet (no `office serve` has run on it)")


def remember_started_file(store: Store, path: Path) -> None:
    """``office serve``: keep the text of the file it serves, which `office reload` compares
    an edited file with (edited in place, the file on disk no longer says what runs)."""
    try:
        files = event_files(path)
    except TournamentError:
        return  # it was just read: `office reload --tournament` still works
    store.kv_set(SCHEDULE_KEY, {"source": str(path), "files": files})
    reloads = [step for step in schedule_steps(store) if step.kind == schedule.RELOAD]
    if reloads and reloads[-1].data.get("files") != files:
        log.warning("%s differs from the file reloaded at %s (from %s): serving that one; "
                    "`office reload %s` applies this file", path, schedule.when(reloads[-1].at),
                    reloads[-1].data.get("source"), path)


def _fail(command: str, text: str) -> int:
    print(f"office {command}: {text}", file=sys.stderr)
    return 2


def _open(db: Path) -> Store:
    if not db.exists():
        raise StoreError(f"--db: {db}: no such store")
    return Store(db)


def _started(store: Store) -> set[str]:
    """The matches with stored events or a correction: what a change could orphan."""
    matches = {match for _, match, _ in store.iter_stored_seqs()}
    return matches | {c.match for c in corrections_and_draws(store)[0]}


def _reason(text: str | None) -> str | None:
    return text.strip() if text and text.strip() else None


def run_reschedule(args: argparse.Namespace) -> int:
    try:
        store = _open(args.db)
    except StoreError as err:
        return _fail("reschedule", str(err))
    try:
        current = event_in_force(store, args.tournament)
        m = current.match(args.match)
        start = None
        if args.start is not None:
            start = schedule.parse_start(args.start, m.start if m else datetime.now())
        _, was, now = schedule.reschedule_in(current, args.match, args.hall, start,
                                             started=_started(store), force=args.force)
        before = was.match(args.match)
        new = now.match(args.match)
        assert before is not None and new is not None
        forced = args.force and new.hall != before.hall and args.match in _started(store)
        store.admin(schedule.RESCHEDULE,
                    schedule.reschedule_data(was, now, args.match,
                                             reason=_reason(args.reason), forced=forced),
                    datetime.now())
        # The hall that sent its latest events keeps sending them (intake.Playing).
        stored = store.events(args.match)
        playing = max(stored, key=lambda e: e.seq).hall if stored else None
    except (schedule.ScheduleError, TournamentError, StoreError) as err:
        return _fail("reschedule", str(err))
    finally:
        store.close()
    print(f"{args.match}: {before.hall} {schedule.when(before.start)} -> {new.hall} "
          f"{schedule.when(new.start)} ({new.home.label()} v {new.away.label()})"
          + (" [forced]" if forced else ""))
    if playing is not None and playing != new.hall:
        print(f"{args.match}: the office keeps taking {playing}'s events of it, until "
              f"{new.hall} sends some (a replay)")
    for warning in now.warnings:
        if warning not in was.warnings:
            print(f"warning: {warning}")
    print("The running service republishes the halls' next within a second.")
    return 0


def run_reload(args: argparse.Namespace) -> int:
    try:
        store = _open(args.db)
    except StoreError as err:
        return _fail("reload", str(err))
    try:
        files = event_files(args.file)
        new = event_from_files(files, str(args.file))
        current = event_in_force(store, args.tournament)
        changes = schedule.diff(current, new, _started(store))
        if not changes:
            print(f"{args.file}: no change from the schedule in force")
            return 0
        print(f"{args.file}: {len(changes)} change{'s' if len(changes) != 1 else ''}:")
        for c in changes:
            print(f"  {'! ' if c.orphans else ''}{c.text}")
        for category in new.categories:
            for warning in category.tournament.warnings:
                print(f"warning: {warning}")
        orphans = [c for c in changes if c.orphans]
        if orphans and not args.force:
            return _fail("reload", f"refused: {len(orphans)} change(s) marked ! would orphan "
                                   "stored results; --force applies them as forced changes "
                                   "(shown on the office page)")
        if args.dry_run:
            print("(dry run: nothing applied)")
            return 0
        store.admin(schedule.RELOAD,
                    schedule.reload_data(str(args.file), files, changes,
                                         reason=_reason(args.reason), forced=bool(orphans)),
                    datetime.now())
    except (schedule.ScheduleError, TournamentError, StoreError) as err:
        return _fail("reload", str(err))
    finally:
        store.close()
    print("Applied: the running service swaps to it within a second.")
    return 0
