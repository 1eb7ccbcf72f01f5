"""The ``office quarantine``, ``office check``, ``office backup`` and ``office repair``
commands: the office's own faults (docs/office.md, "The office's faults").

``quarantine`` works on the running service's store (it notices within a second);
``release`` and ``discard`` are audited: each is a row with its reason and time, nothing is
ever deleted. ``check``, ``backup`` and ``repair`` never change the store they read.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from arena.tournament.files import load_event
from arena.tournament.reader import TournamentError
from office.storage.store import (
    DISCARDED,
    QUARANTINED,
    RELEASED,
    Store,
    StoreError,
    backup_file,
    check_file,
    event_content,
    repair_file,
)

DEFAULT_DB = "office.sqlite"


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    q = sub.add_parser(
        "quarantine", help="stored events the office set aside (list, show, release, discard)",
        description="A stored event that fails today's checks, or that the ledger cannot "
                    "fold, is set aside: not counted, shown on the office page. `list` and "
                    "`show` read; `release` puts one back into the fold (after a fix; it "
                    "is set aside again if it still fails), `discard` keeps it out for "
                    "good. Both need a --reason and are kept with it.")
    q.add_argument("action", choices=["list", "show", "release", "discard"])
    q.add_argument("event_id", nargs="?", help="the event (show, release, discard)")
    q.add_argument("--reason", help="why (release, discard; kept with the action)")
    q.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                   help=f"the office's SQLite store (default {DEFAULT_DB})")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(func=run_quarantine)

    check = sub.add_parser(
        "check", help="check the store's integrity (read-only), or a tournament file",
        description="SQLite's integrity check of the store, opened read-only; with "
                    "--tournament, the file's checks instead (the schedule as a whole: "
                    "round robins, clashes), its warnings printed (back-to-back play, "
                    "home and away unbalanced). Exit 0 when sound, 1 with the problems "
                    "found.")
    check.add_argument("--db", type=Path,
                       help=f"the store (default {DEFAULT_DB}, unless --tournament alone)")
    check.add_argument("--tournament", type=Path, metavar="FILE",
                       help="check this tournament file")
    check.set_defaults(func=run_check)

    backup = sub.add_parser(
        "backup", help="a consistent copy of the store, while the service runs",
        description="SQLite's online backup: a consistent copy even while `office serve` "
                    "writes. The target must not exist.")
    backup.add_argument("target", type=Path, help="the new file")
    backup.add_argument("--db", type=Path, default=Path(DEFAULT_DB))
    backup.set_defaults(func=run_backup)

    repair = sub.add_parser(
        "repair", help="write a repaired copy of a damaged store",
        description="Never changes the store: writes TARGET with VACUUM INTO (every page "
                    "and index rebuilt) or, when SQLite cannot read the whole file, with "
                    "every row it can still read. Check TARGET, stop the service, keep the "
                    "damaged file, and start the service on TARGET. From a backup instead: "
                    "`office repair --db BACKUP TARGET` copies the backup the same way.")
    repair.add_argument("target", type=Path, help="the new file")
    repair.add_argument("--db", type=Path, default=Path(DEFAULT_DB))
    repair.set_defaults(func=run_repair)


def _fail(command: str, text: str) -> int:
    print(f"office {command}: {text}", file=sys.stderr)
    return 2


def _existing(command: str, db: Path) -> str | None:
    return None if db.exists() else f"--db: {db}: no such store"


def run_quarantine(args: argparse.Namespace) -> int:
    problem = _existing("quarantine", args.db)
    if problem:
        return _fail("quarantine", problem)
    if args.action != "list" and not args.event_id:
        return _fail("quarantine", f"{args.action}: name the event id")
    if args.action in ("release", "discard") and not (args.reason or "").strip():
        return _fail("quarantine", f"{args.action}: --reason must say why")
    try:
        store = Store(args.db)
    except StoreError as err:
        return _fail("quarantine", str(err))
    try:
        status = store.quarantine_status()
        if args.action == "list":
            shown = [q for q in status.values() if q.action != RELEASED]
            if args.json:
                print(json.dumps([{"event": q.event_id, "status": q.action,
                                   "reason": q.reason, "at": q.at.isoformat()} for q in shown]))
            elif not shown:
                print("No event in quarantine.")
            for q in shown if not args.json else ():
                print(f"{q.event_id}  {q.action}  {q.at.isoformat(timespec='seconds')}  "
                      f"{q.reason}")
            return 0
        current = status.get(args.event_id)
        if current is None:
            return _fail("quarantine", f"{args.event_id}: not in quarantine")
        if args.action == "show":
            stored = store.event(args.event_id)
            doc = {"event": event_content(stored) if stored is not None else None,
                   "history": [{"action": q.action, "reason": q.reason,
                                "at": q.at.isoformat()}
                               for q in store.quarantine_log(args.event_id)]}
            print(json.dumps(doc, indent=None if args.json else 2, ensure_ascii=False))
            return 0
        action = RELEASED if args.action == "release" else DISCARDED
        if current.action not in (QUARANTINED,) and not (
                action == DISCARDED and current.action == RELEASED):
            return _fail("quarantine", f"{args.event_id}: is {current.action}, not "
                                       f"quarantined")
        store.quarantine(args.event_id, action, args.reason.strip(), datetime.now())
        print(f"{args.event_id}: {action} ({args.reason.strip()})")
        return 0
    finally:
        store.close()


def run_check(args: argparse.Namespace) -> int:
    code = 0
    if args.tournament is not None:
        code = _check_tournament(args.tournament)
        if args.db is None:
            return code
    args.db = args.db or Path(DEFAULT_DB)
    return max(code, _check_store(args))


def _check_tournament(path: Path) -> int:
    try:
        event = load_event(path)
    except TournamentError as err:
        print(err)
        return 1
    groups = sum(len(c.tournament.groups) for c in event.categories)
    print(f"{path}: ok ({len(event.schedule())} matches, {groups} groups)")
    for category in event.categories:
        for warning in category.tournament.warnings:
            print(f"{path}: warning: {warning}")
    return 0


def _check_store(args: argparse.Namespace) -> int:
    problem = _existing("check", args.db)
    if problem:
        return _fail("check", problem)
    problems = check_file(args.db)
    if not problems:
        print(f"{args.db}: ok")
        return 0
    for p in problems[:20]:
        print(f"{args.db}: {p}")
    print(f"{args.db}: damaged; `office repair --db {args.db} NEW.sqlite` writes a repaired "
          "copy, or start from your last `office backup`", file=sys.stderr)
    return 1


def run_backup(args: argparse.Namespace) -> int:
    problem = _existing("backup", args.db)
    if problem:
        return _fail("backup", problem)
    try:
        backup_file(args.db, args.target)
    except StoreError as err:
        return _fail("backup", str(err))
    print(f"{args.db} backed up to {args.target}")
    return 0


def run_repair(args: argparse.Namespace) -> int:
    problem = _existing("repair", args.db)
    if problem:
        return _fail("repair", problem)
    try:
        events = repair_file(args.db, args.target)
    except StoreError as err:
        return _fail("repair", str(err))
    print(f"{args.target}: repaired copy of {args.db} ({events} events); the original is "
          "unchanged")
    return 0
