"""The ``office sheet`` and ``office print`` commands: the game sheet of a match, a hall's
schedule for its door, the group tables and the final placings, as HTML or PDF (docs/public.md,
"Printouts"). They read the store as the service would fold it now; the running office
page serves the same pages (``/sheet/<match>``, ``/print/...``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from arena.tournament.reader import TournamentError
from arena.words import DEFAULT, LANGUAGES
from office.inforce import event_in_force
from office.printouts.printing import PrintoutError, Printouts, ledgers_from_store, print_pdf
from office.storage.store import Store, StoreError

DEFAULT_DB = "office.sqlite"


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sheet = sub.add_parser(
        "sheet", help="the game sheet of a match (HTML or PDF, A4)",
        description="The game sheet of MATCH from the hall's stored events: event, "
                    "category, match, hall, date and time, the teams with their rosters, "
                    "goals (game time, scorer), penalties (game time, player, kind, "
                    "minutes), time-outs, the shootout shot by shot, the result and how it "
                    "was decided, and lines for the referees' and team officials' "
                    "signatures. --pdf has headless Chromium print it (A4).")
    sheet.add_argument("match", metavar="MATCH", help="the match id")
    _common(sheet)
    sheet.set_defaults(func=_run_sheet)

    printout = sub.add_parser(
        "print", help="the door schedule, the group tables or the final placings (A4)",
        description="schedule: each hall's matches on a page of their own, for the door "
                    "(--hall: one hall); tables: every group table with the \"why\" "
                    "column; placings: the final placings. As they stand in the store now.")
    printout.add_argument("what", choices=["schedule", "tables", "placings"])
    printout.add_argument("--hall", metavar="HALL", help="schedule: this hall only")
    _common(printout)
    printout.set_defaults(func=_run_print)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tournament", required=True, type=Path, metavar="FILE",
                   help="the tournament file, or an event file of several categories (TOML)")
    p.add_argument("--db", type=Path, default=Path(DEFAULT_DB), metavar="OFFICE.sqlite",
                   help=f"the office's store (default {DEFAULT_DB})")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--pdf", type=Path, metavar="FILE",
                     help="write a PDF (needs Debian's chromium)")
    out.add_argument("--html", type=Path, metavar="FILE",
                     help="write the HTML page (- for standard output); print it from a "
                          "browser")
    p.add_argument("--lang", default=DEFAULT, choices=LANGUAGES,
                   help=f"the language of the printout (default {DEFAULT})")


def _run_sheet(args: argparse.Namespace) -> int:
    return _make(args, lambda p: p.sheet(args.match))


def _run_print(args: argparse.Namespace) -> int:
    if args.hall is not None and args.what != "schedule":
        return _fail(args, "--hall: only for the schedule")
    pick: dict[str, Callable[[Printouts], str]] = {
        "schedule": lambda p: p.schedule(args.hall), "tables": Printouts.tables,
        "placings": Printouts.placings}
    return _make(args, pick[args.what])


def _make(args: argparse.Namespace, build: Callable[[Printouts], str]) -> int:
    if not args.db.exists():
        return _fail(args, f"--db: {args.db}: no such store")
    try:
        store = Store(args.db, read_only=True)
    except (StoreError, OSError) as err:
        return _fail(args, str(err))
    try:
        # Where a match is played now: the schedule in force after the office's
        # reschedules and reloads, as the page and the public site show it.
        event = event_in_force(store, args.tournament)
        ledgers = ledgers_from_store(event, store, datetime.now())
        printouts = Printouts(lambda: (event, ledgers), store, args.lang)
        html = build(printouts)
        if args.html is not None:
            if str(args.html) == "-":
                sys.stdout.write(html)
            else:
                args.html.write_text(html, encoding="utf-8")
        else:
            print_pdf(html, args.pdf)
    except (PrintoutError, TournamentError, StoreError) as err:
        return _fail(args, str(err))
    except OSError as err:
        return _fail(args, f"cannot write: {err}")
    finally:
        store.close()
    return 0


def _fail(args: argparse.Namespace, message: str) -> int:
    print(f"office {args.command}: {message}", file=sys.stderr)
    return 2
