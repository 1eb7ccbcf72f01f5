"""``office export-site``: the public site as static files, once, from the store.

``office serve --export-site DIR`` keeps the same export current while the service runs;
this command writes it once (for a web server or CDN fed by hand or by a cron job, or to
look at the site without a service), reading the store without changing it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from arena.tournament.reader import TournamentError
from office.inforce import started_event
from office.service import OfficeService
from office.storage.store import Store, StoreError
from office.views.board import SnapshotBoard
from office.web.publicweb import PublicSite

DEFAULT_DB = "office.sqlite"


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = sub.add_parser(
        "export-site", help="write the public results site as static files into DIR",
        description="Render the public site (live halls, schedules, tables with the why "
                    "column, bracket, placings, top scorers; nothing of the office's own) "
                    "from the store and write it into DIR: index.html, public.json and a "
                    "page per category, team and hall. Each file is replaced atomically.")
    export.add_argument("directory", type=Path, metavar="DIR", help="the folder to write")
    export.add_argument("--tournament", required=True, type=Path,
                        help="the tournament file, or an event file of several categories")
    export.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                        help=f"the office's SQLite store (default {DEFAULT_DB})")
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    if not args.db.exists():
        print(f"office export-site: no store {args.db} (the service makes it)",
              file=sys.stderr)
        return 2
    try:
        # Read-only: the running service may be writing it; this changes nothing.
        store = Store(args.db, read_only=True)
    except StoreError as err:
        print(f"office export-site: {err}", file=sys.stderr)
        return 2
    # The service, on a read-only store, warns that it cannot note how far it checked the
    # events: expected here, and nothing the person exporting can act on.
    logging.getLogger("office").setLevel(logging.ERROR)
    try:
        board = SnapshotBoard()
        # The file the service started with, as the store keeps it (the one on disk may have
        # been edited since): the service applies the office's schedule changes to it.
        service = OfficeService(started_event(store, args.tournament), store, None, board)
        service.refresh_all()
        # In the language of the schedule in force (a reload may have changed it).
        site = PublicSite(board, service.event.language, export=args.directory)
        site.step()
    except (StoreError, TournamentError) as err:
        print(f"office export-site: {err}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if site.export_error is not None:
        print(f"office export-site: {site.export_error}", file=sys.stderr)
        return 1
    current = site.current()
    pages = len(current.site.paths()) if current is not None else 0
    print(f"{args.directory}: {pages} pages and public.json")
    return 0
