"""The ``office serve`` and ``office correct`` commands (the service's side of the CLI)."""

from __future__ import annotations

import argparse
import gc
import logging
import re
import signal
import sys
import threading
from datetime import datetime
from pathlib import Path
from types import FrameType

from arena.broker import Tls, parse_broker_url
from arena.tournament.event import Event
from arena.tournament.files import load_event
from arena.tournament.model import DecidedBy
from arena.tournament.reader import TournamentError
from arena.wire import check_public_url
from arena.words import DEFAULT, LANGUAGES
from office.cli.schedule import remember_started_file
from office.inforce import event_in_force
from office.peer import OfficePeer
from office.printouts.printing import Printouts
from office.service import OfficeService
from office.storage.store import Store, StoreError, is_read_only
from office.views.board import SnapshotBoard
from office.views.ledger import Ledger
from office.web.officepage import OfficeWeb
from office.web.publicweb import PublicSite, PublicWeb
from office.web.resultdesk import ResultDesk

log = logging.getLogger("office")

DEFAULT_DB = "office.sqlite"
_SCORE = re.compile(r"^(\d{1,3})[-:](\d{1,3})$")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser(
        "serve", help="run the standings service (MQTT in, tables and next out, office page)",
        description="Subscribe to every hall's events, store them, rank the groups, fill the "
                    "bracket, track suspensions, publish retained standings/<group> and each "
                    "hall's next, and serve the office page.")
    serve.add_argument("--tournament", required=True, type=Path,
                       help="the tournament file, or an event file of several categories")
    serve.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                       help=f"the office's SQLite store (default {DEFAULT_DB})")
    serve.add_argument("--broker", default="mqtt://127.0.0.1:1883",
                       help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default %(default)s)")
    serve.add_argument("--username", help="broker user name")
    serve.add_argument("--password-file", type=Path,
                       help="file holding the broker password (never on the command line)")
    serve.add_argument("--ca-file", help="CA certificate for mqtts://")
    serve.add_argument("--client-id", help="MQTT client id (default office-<tournament id>); "
                       "keep it fixed: the broker keeps this session's events while away")
    serve.add_argument("--http", type=int, metavar="PORT",
                       help="serve the office page on this port (0: any free port)")
    serve.add_argument("--lang", default=DEFAULT, choices=LANGUAGES,
                       help="the office page's language and its printouts' (/sheet/MATCH, "
                            "/print/...; ?lang= picks another; default %(default)s)")
    serve.add_argument("--host", default="0.0.0.0",
                       help="address the page listens on (default %(default)s)")
    serve.add_argument("--public-port", type=int, metavar="PORT",
                       help="serve the public results site (read-only, for phones) on this "
                            "port (0: any free port), and the referees' result forms "
                            "(/r/TOKEN: each match's result link)")
    serve.add_argument("--public-bind", default="0.0.0.0", metavar="ADDR",
                       help="address the public site listens on (default %(default)s)")
    serve.add_argument("--public-url", metavar="URL",
                       help="the public site's address as phones reach it (http:// or "
                            "https://, at most 200 characters), told to every hall in its "
                            "next: its display shows it as a QR code between games unless "
                            "its own [display] public_url is set; the result links printed "
                            "on the game sheets start with it. Not guessed from "
                            "--public-port: only you know the name or address phones use")
    serve.add_argument("--export-site", type=Path, metavar="DIR",
                       help="keep a static export of the public site in DIR, rewritten "
                            "(atomically, at most once a second) on every change")
    serve.add_argument("--log-level", default="INFO",
                       choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    serve.set_defaults(func=run_serve)

    correct = sub.add_parser(
        "correct", help="correct a match's result (audited; the tables re-rank)",
        description="Record the jury's result for a match, with the reason. The running "
                    "service picks it up from the store within a second; nothing the hall "
                    "sent is changed or removed.")
    correct.add_argument("match", help="the match id, as in the tournament file")
    correct.add_argument("--score", required=True, help="HOME-AWAY, e.g. 2-1")
    correct.add_argument("--reason", required=True, help="why (kept with the correction)")
    correct.add_argument("--decided-by", choices=[d.value for d in DecidedBy],
                         help="how the match was decided (default: as the hall reported)")
    correct.add_argument("--tournament", required=True, type=Path,
                         help="the tournament file, or an event file of several categories")
    correct.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                         help=f"the office's SQLite store (default {DEFAULT_DB})")
    correct.set_defaults(func=run_correct)


def run_correct(args: argparse.Namespace) -> int:
    try:
        event = _schedule(args.tournament, args.db)
    except (TournamentError, StoreError) as err:
        print(f"office correct: {err}", file=sys.stderr)
        return 2
    # Match ids are unique across an event; a reload may have added this one.
    if event.match(args.match) is None:
        print(f"office correct: no match {args.match!r} in the schedule in force",
              file=sys.stderr)
        return 2
    found = _SCORE.match(args.score.strip())
    if found is None:
        print(f"office correct: --score {args.score!r}: expected HOME-AWAY, e.g. 2-1",
              file=sys.stderr)
        return 2
    if not args.reason.strip():
        print("office correct: --reason must say why", file=sys.stderr)
        return 2
    home, away = int(found.group(1)), int(found.group(2))
    try:
        store = Store(args.db)
    except StoreError as err:
        print(f"office correct: {err}", file=sys.stderr)
        return 2
    try:
        store.admin("correct", {"match": args.match, "home": home, "away": away,
                                "decided_by": args.decided_by, "reason": args.reason.strip()},
                    datetime.now())
    finally:
        store.close()
    print(f"{args.match}: corrected to {home}-{away} ({args.reason.strip()})")
    return 0


def _schedule(tournament: Path, db: Path) -> Event:
    """The schedule a correction names its match in: the one in force (the file the
    service started with and the office's reloads and reschedules) once the store exists,
    else the file."""
    if not db.exists():
        return load_event(tournament)
    try:
        store = Store(db, read_only=True)
    except StoreError:
        return load_event(tournament)  # the store's own problem is said when storing
    try:
        return event_in_force(store, tournament)
    finally:
        store.close()


def run_serve(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        event = load_event(args.tournament)
        broker = parse_broker_url(args.broker)
    except (TournamentError, ValueError) as err:
        print(f"office serve: {err}", file=sys.stderr)
        return 2
    if args.public_url is not None:
        try:
            check_public_url(args.public_url)
        except ValueError as err:
            print(f"office serve: --public-url: {err}", file=sys.stderr)
            return 2
    password = None
    if args.password_file is not None:
        try:
            password = args.password_file.read_text(encoding="utf-8").strip()
        except OSError as err:
            print(f"office serve: --password-file: {err.strerror or err}", file=sys.stderr)
            return 2
    tls = Tls(ca_file=args.ca_file) if broker.tls else None
    read_only_because: str | None = None
    try:
        store = Store(args.db)
    except StoreError as err:
        if not (args.db.exists() and is_read_only(args.db)):
            print(f"office serve: {err}", file=sys.stderr)
            return 2
        try:  # the page can still show what is stored; nothing new is acknowledged
            store = Store(args.db, read_only=True)
        except StoreError as again:
            print(f"office serve: {again}", file=sys.stderr)
            return 2
        read_only_because = f"{err}; serving it read-only (nothing is stored or acked)"
        log.error("%s", read_only_because)
    if read_only_because is None:  # what `office reload` compares an edited file with
        remember_started_file(store, args.tournament)
    peer = OfficePeer(broker.host, broker.port, event.id, username=args.username,
                      password=password, tls=tls, client_id=args.client_id)
    board = SnapshotBoard()
    service = OfficeService(event, store, peer, board, public_url=args.public_url)
    if args.public_url is not None:
        log.info("the halls are told the public site is at %s", args.public_url)
    service.store_error = read_only_because

    def in_force() -> tuple[Event, dict[str, Ledger]]:
        return service.event, service.ledgers or {}

    # The result forms (docs/office.md, "Results from a pitch without a board"): through a
    # connection of their own, so the service sees what they store as it sees `office
    # correct`'s. None on a read-only store: nothing could be stored.
    desk_store = Store(args.db) if read_only_because is None else None
    desk = None if desk_store is None else ResultDesk(
        desk_store, in_force, base_url=args.public_url, office_lang=args.lang)
    web = None
    if args.http is not None:
        printouts = Printouts(in_force, store, args.lang,
                              link=desk.link if desk is not None else None)
        web = OfficeWeb(board, host=args.host, port=args.http, printouts=printouts.page,
                        lang=args.lang, desk=desk)
        web.start()
        log.info("office page on http://%s:%d/", args.host, web.port)
    public: PublicSite | None = None
    public_web: PublicWeb | None = None
    if args.public_port is not None or args.export_site is not None:
        public = PublicSite(board, event.language, export=args.export_site)
        public.start()
        if args.export_site is not None:
            log.info("public site exported to %s", args.export_site)
    if public is not None and args.public_port is not None:
        try:
            public_web = PublicWeb(public, host=args.public_bind, port=args.public_port,
                                   desk=desk)
        except OSError as err:
            public.stop()
            if web is not None:
                web.stop()
            print(f"office serve: --public-port {args.public_port}: {err.strerror or err}",
                  file=sys.stderr)
            if desk_store is not None:
                desk_store.close()
            return 2
        public_web.start()  # it logs its address
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    for category in service.event.categories:  # the page shows them too
        for warning in category.tournament.warnings:
            log.warning("schedule: %s", warning)
    peer.start()
    log.info("office serving %s (%d matches, %d groups, %d categories); store %s", event.id,
             len(event.schedule()), sum(len(c.tournament.groups) for c in event.categories),
             len(event.categories), args.db)
    try:
        service.refresh_all()
        # What the start loaded (the schedule, every match's digest, the ledger) lives as
        # long as the office: a full collection would walk all of it between two events
        # (tens of milliseconds at 3,000 matches). Frozen, it is left out of them.
        gc.freeze()
        while not stop.is_set():
            service.pump(0.2)
    finally:
        peer.close()
        if web is not None:
            web.stop()
        if public_web is not None:
            public_web.stop()
        if public is not None:
            public.stop()
        if desk_store is not None:
            desk_store.close()
        store.close()
    return 0
