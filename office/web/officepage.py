"""The office page: a standard library HTTP server over a :class:`SnapshotBoard`.

Routes: ``/`` the page, rendered on the server from the snapshot of the moment
(``office.web.officeview``: whole before any script runs; ``?lang=`` another language than
``office serve --lang``), ``/api/live?since=N`` (long-poll: as soon as the board is past
version N, the page's live part rendered again, which its script swaps in; 204 when nothing
changed within the hold), ``/api/snapshot`` (the snapshot as JSON, also long-polled with
``?since=N``), ``/tables.csv``, ``/results.csv``, ``/placings.csv`` and ``/scorers.csv``
(exports for the office's spreadsheets, written by ``office.printouts.csvfile``, which makes
formula-like text inert; each also as ``.xlsx``, which opens with no import dialog), the
printouts when given them (``/sheet/<match>``, ``/print/schedule?hall=``, ``/print/tables``,
``/print/placings``: ``office.printouts.printing``), the result links and the office's
result form when given them (``/results/``, ``/results/<match>``, GET and POST:
``office.web.resultdesk``), ``/healthz``. The page links to every
export and printout.

The snapshot is whatever the service publishes; this module only reads it, tolerating
missing or odd parts, so a half-built document can never take the page or the server down.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from arena import words
from arena.serverthread import ServerThread
from office.printouts import csvfile, xlsx
from office.views.board import SnapshotBoard
from office.views.jsonread import dicts, mapping
from office.web.formhttp import read_form, send_answer
from office.web.officeview import OfficeView, SectionCache
from office.web.resultdesk import Answer, ResultDesk

log = logging.getLogger(__name__)

# How long a long-poll request is held when nothing changes. Short enough that proxies and
# the browser never give up on the request first; the page just asks again.
POLL_TIMEOUT_S = 15.0

TABLES_COLUMNS = (
    "group", "rank", "team", "played", "won", "drawn", "lost", "goals_for", "goals_against",
    "goal_difference", "points", "penalty_minutes", "decided_by", "lots_needed", "provisional",
)
RESULTS_COLUMNS = (
    "match", "stage", "group", "hall", "start", "home", "away", "home_goals", "away_goals",
    "decided_by", "state", "correction_reason",
)
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# The printouts (office.printouts.printing.Printouts.page): the HTML page at an address, None where
# there is none; a ValueError names what is wrong (an unknown match or hall).
PrintoutPages = Callable[[str, Mapping[str, list[str]]], str | None]
# A printout is our own static page: its inline stylesheet and nothing else.
PRINT_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

# The result links and the office's own result form (office.web.resultdesk): the listing at
# /results/, a match's form at /results/MATCH, its confirm button posts to .../confirm.
RESULTS_PREFIX = "/results/"
CONFIRM_SUFFIX = "/confirm"

PLACINGS_COLUMNS = ("place", "team", "shared", "decided_in", "provisional", "note")
SCORERS_COLUMNS = ("rank", "team", "player", "name", "goals")

# The page loads nothing from elsewhere; the policy makes that a guarantee, and also stops
# any injected markup from running even if a rendering bug ever let some through.
PAGE_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"
)


# --- CSV exports ------------------------------------------------------------------------


def _cell(value: Any) -> str | int | float:
    if value is None:
        return ""
    if isinstance(value, bool):  # before int: bool is an int
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return value
    # A list or dict where a scalar belongs: keep it readable rather than fail the export.
    return json.dumps(value, ensure_ascii=False)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _csv_bytes(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> bytes:
    # Through the office's one CSV writer, which makes formula-like text inert.
    return csvfile.table(list(header), ([_cell(v) for v in row] for row in rows))


def _by_category(doc: Mapping[str, Any]) -> bool:
    """An event of several categories: the exports gain a first column, ``category`` (group
    names repeat across categories); a tournament's exports stay as they were."""
    return "categories" in doc


def tables_rows(doc: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """One line per table row, groups in the snapshot's order."""
    first = ["category"] if _by_category(doc) else []

    def rows() -> Iterable[list[Any]]:
        for group in dicts(doc.get("groups")):
            for row in dicts(group.get("rows")):
                gf, ga = _int(row.get("goals_for")), _int(row.get("goals_against"))
                gd = gf - ga if gf is not None and ga is not None else None
                yield [
                    *([group.get("category")] if first else []),
                    group.get("name"), row.get("rank"), row.get("team"), row.get("played"),
                    row.get("won"), row.get("drawn"), row.get("lost"), gf, ga, gd,
                    row.get("points"), row.get("penalty_minutes"), row.get("decided_by"),
                    bool(row.get("lots_needed")), bool(group.get("provisional")),
                ]

    return [*first, *TABLES_COLUMNS], list(rows())


def results_rows(doc: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """One line per scheduled match, results blank until there is one."""
    first = ["category"] if _by_category(doc) else []

    def rows() -> Iterable[list[Any]]:
        for m in dicts(doc.get("matches")):
            score = mapping(m.get("score"))
            correction = mapping(m.get("correction"))
            yield [
                *([m.get("category")] if first else []),
                m.get("id"), m.get("stage"), m.get("group"), m.get("hall"), m.get("start"),
                # An unfilled bracket side has no team yet: its slot says who it will be.
                m.get("home") or m.get("home_slot"), m.get("away") or m.get("away_slot"),
                score.get("home"), score.get("away"), m.get("decided_by"), m.get("state"),
                correction.get("reason"),
            ]

    return [*first, *RESULTS_COLUMNS], list(rows())


def placings_rows(doc: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """One line per place (then the teams not placed), categories in the snapshot's order."""
    first = ["category"] if _by_category(doc) else []

    def rows() -> Iterable[list[Any]]:
        for p in dicts(doc.get("placings")):
            yield [*([p.get("category")] if first else []), p.get("place"),
                   p.get("team") or p.get("label"), bool(p.get("shared")), p.get("match"),
                   bool(p.get("provisional")), p.get("label") if p.get("place") is None
                   else None]

    return [*first, *PLACINGS_COLUMNS], list(rows())


def scorers_rows(doc: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """One line per scorer, most goals first."""
    first = ["category"] if _by_category(doc) else []

    def rows() -> Iterable[list[Any]]:
        for s in dicts(doc.get("scorers")):
            yield [*([s.get("category")] if first else []), s.get("rank"), s.get("team"),
                   s.get("player"), s.get("name"), s.get("goals")]

    return [*first, *SCORERS_COLUMNS], list(rows())


def tables_csv(doc: Mapping[str, Any]) -> bytes:
    return _csv_bytes(*tables_rows(doc))


def results_csv(doc: Mapping[str, Any]) -> bytes:
    return _csv_bytes(*results_rows(doc))


def placings_csv(doc: Mapping[str, Any]) -> bytes:
    return _csv_bytes(*placings_rows(doc))


def scorers_csv(doc: Mapping[str, Any]) -> bytes:
    return _csv_bytes(*scorers_rows(doc))


_ROWS = {"tables": tables_rows, "results": results_rows, "placings": placings_rows,
         "scorers": scorers_rows}


def export_xlsx(doc: Mapping[str, Any], what: str) -> bytes:
    """An export as a spreadsheet file (``office.printouts.xlsx``): the CSV's columns and rows, with
    numbers as numbers; opens in Excel and LibreOffice with no import dialog."""
    header, rows = _ROWS[what](doc)
    return xlsx.workbook(what, header, ([_xlsx_cell(v) for v in r] for r in rows))


def _xlsx_cell(value: Any) -> str | int | float | None:
    cell = _cell(value)
    return None if cell == "" else cell


def _download_name(doc: Mapping[str, Any], what: str, suffix: str = "csv") -> str:
    """``<tournament id>-<what>.csv``, reduced to characters safe in a header and a file
    system, so two tournaments' exports do not overwrite each other in Downloads."""
    tournament = doc.get("tournament")
    tid = tournament.get("id") if isinstance(tournament, Mapping) else None
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", tid).strip(".-") if isinstance(tid, str) else ""
    return f"{safe}-{what}.{suffix}" if safe else f"{what}.{suffix}"


_EXPORTS = {"/placings.csv": ("placings", placings_csv), "/scorers.csv": ("scorers", scorers_csv)}

# --- HTTP -------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    # Long-poll threads may be parked for POLL_TIMEOUT_S: they must never hold up stop()
    # or the process' exit.
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], board: SnapshotBoard, lang: str,
                 poll_timeout: float, printouts: PrintoutPages | None = None, *,
                 desk: ResultDesk | None = None) -> None:
        super().__init__(address, _Handler)
        self.board = board
        self.printouts = printouts
        self.desk = desk  # the result links and the office's result form (/results/...)
        self.lang = lang
        self.poll_timeout = poll_timeout
        # The live part last rendered, by snapshot and language: the office's screens all
        # ask for the same version at once, and one rendering serves them all; and each
        # section, rendered again only when what it shows changed.
        self._rendered: tuple[dict[str, Any], str, str, str] | None = None
        self._render_lock = threading.Lock()
        self._sections = SectionCache()
        # Connections being answered, so stop() can drop them: a parked long-poll would
        # otherwise keep the page believing the service is up for another poll timeout.
        self._active: set[socket.socket] = set()
        self._active_lock = threading.Lock()

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket],
                        client_address: Any) -> None:
        if isinstance(request, socket.socket):
            with self._active_lock:
                self._active.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        if isinstance(request, socket.socket):
            with self._active_lock:
                self._active.discard(request)
        super().shutdown_request(request)

    def view(self, doc: dict[str, Any], lang: str, asked: str) -> OfficeView:
        return OfficeView(doc, lang, printouts=self.printouts is not None,
                          results=self.desk is not None, lang_query=asked,
                          cache=self._sections)

    def live(self, doc: dict[str, Any], lang: str, asked: str) -> str:
        with self._render_lock:
            kept = self._rendered
            if kept is not None and kept[0] is doc and kept[1:3] == (lang, asked):
                return kept[3]
        html = self.view(doc, lang, asked).live()
        with self._render_lock:
            self._rendered = (doc, lang, asked, html)
        return html

    def drop_connections(self) -> None:
        with self._active_lock:
            active = list(self._active)
        for sock in active:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The default prints a traceback to stderr; route it to the service's log instead.
        # A vanished client (closing the connection fails) is routine, not a warning.
        level = logging.DEBUG if isinstance(sys.exc_info()[1], OSError) else logging.WARNING
        log.log(level, "office web: error serving %s", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # A client that connects and sends nothing must not keep a thread forever.
    timeout = 30.0
    server_version = "ArenaOffice"

    def log_message(self, format: str, *args: Any) -> None:
        # http.server writes every request to stderr; the office screen polls all day.
        log.debug("office web %s: " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        try:
            self._route()
        except OSError:
            # The screen reloaded or went away mid-answer, or stop() dropped the connection:
            # there is no one left to tell.
            log.debug("office web: client %s went away", self.address_string())
        except Exception:
            log.exception("office web: failed to answer %s", self.path)
            if not self._headers_started:
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error\n",
                           "text/plain; charset=utf-8")

    _headers_started = False

    def do_POST(self) -> None:
        """The office's result form and its confirm button (``/results/...``)."""
        try:
            path = urlsplit(self.path).path
            desk = self.server.desk
            match = _results_match(path)
            if desk is None or match is None:
                self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"not a form\n",
                           "text/plain; charset=utf-8", {"Allow": "GET"})
                return
            body = read_form(self)
            if body is None:
                self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"form too large\n",
                           "text/plain; charset=utf-8")
                return
            client = f"office page, {self.address_string()}"
            if match.endswith(CONFIRM_SUFFIX):
                answer = desk.confirm_post(match.removesuffix(CONFIRM_SUFFIX), body, client)
            else:
                answer = desk.office_post(match, body, client)
            self._headers_started = True
            send_answer(self, answer)
        except OSError:
            log.debug("office web: client %s went away", self.address_string())
        except Exception:
            log.exception("office web: failed to answer a form to %s", self.path)
            if not self._headers_started:
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error\n",
                           "text/plain; charset=utf-8")

    def _route(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query, keep_blank_values=True)
        desk = self.server.desk
        if desk is not None and url.path.startswith(RESULTS_PREFIX):
            match = _results_match(url.path)
            self._headers_started = True
            send_answer(self, desk.listing(query) if match == ""
                        else desk.office(match, query) if match is not None
                        and not match.endswith(CONFIRM_SUFFIX)
                        else Answer(404, "not found"))
            return
        if url.path in ("/", "/api/live"):
            lang = self._lang(query)
            if lang is None:
                return
            if url.path == "/":
                doc = self.server.board.current()
                page = self.server.view(doc, *lang).page()
                self._send(HTTPStatus.OK, page.encode("utf-8"), "text/html; charset=utf-8",
                           {"Content-Security-Policy": PAGE_CSP})
            else:
                self._live(query, *lang)
        elif url.path == "/api/snapshot":
            self._snapshot(query)
        elif url.path == "/tables.csv":
            doc = self.server.board.current()
            self._csv(tables_csv(doc), _download_name(doc, "tables"))
        elif url.path == "/results.csv":
            doc = self.server.board.current()
            self._csv(results_csv(doc), _download_name(doc, "results"))
        elif url.path.endswith(".xlsx") and url.path[1:-5] in _ROWS:
            doc = self.server.board.current()
            what = url.path[1:-5]
            self._send(HTTPStatus.OK, export_xlsx(doc, what), XLSX_TYPE,
                       {"Content-Disposition":
                        f'attachment; filename="{_download_name(doc, what, "xlsx")}"'})
        elif url.path in _EXPORTS:
            doc = self.server.board.current()
            what, export = _EXPORTS[url.path]
            self._csv(export(doc), _download_name(doc, what))
        elif url.path.startswith(("/sheet/", "/print/")) and self.server.printouts:
            self._printout(url.path, query)
        elif url.path == "/healthz":
            self._send(HTTPStatus.OK, b"ok", "text/plain; charset=utf-8")
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")

    def _lang(self, query: Mapping[str, list[str]]) -> tuple[str, str] | None:
        """(the page's language, the ``?lang=`` asked for or ""); None: a bad one, said."""
        asked = query.get("lang")
        if not asked:
            return self.server.lang, ""
        if len(asked) != 1 or asked[0] not in words.LANGUAGES:
            self._send(HTTPStatus.BAD_REQUEST,
                       f"lang must be one of {', '.join(words.LANGUAGES)}\n".encode(),
                       "text/plain; charset=utf-8")
            return None
        return asked[0], asked[0]

    def _since(self, query: Mapping[str, list[str]]) -> int | None:
        """``?since=``'s version, -1 when there is none; None: a bad one, said."""
        values = query.get("since")
        if values is None:
            return -1
        since = values[0] if len(values) == 1 else ""
        if not re.fullmatch(r"[0-9]{1,18}", since):
            self._send(HTTPStatus.BAD_REQUEST,
                       b"since must be one non-negative integer version\n",
                       "text/plain; charset=utf-8")
            return None
        return int(since)

    def _live(self, query: Mapping[str, list[str]], lang: str, asked: str) -> None:
        since = self._since(query)
        if since is None:
            return
        board = self.server.board
        doc = board.current() if since < 0 else board.wait(since, self.server.poll_timeout)
        if doc.get("version") == since:  # nothing newer within the hold: the page asks again
            self._send(HTTPStatus.NO_CONTENT, b"", "text/html; charset=utf-8")
            return
        html = self.server.live(doc, lang, asked)
        self._send(HTTPStatus.OK, html.encode("utf-8"), "text/html; charset=utf-8",
                   {"Content-Security-Policy": PAGE_CSP})

    def _snapshot(self, query: Mapping[str, list[str]]) -> None:
        board = self.server.board
        since = self._since(query)
        if since is None:
            return
        doc = board.current() if since < 0 else board.wait(since, self.server.poll_timeout)
        # ensure_ascii=False: team names travel as UTF-8, as they were written. The body is
        # JSON served as JSON, so markup inside names is inert data to the browser.
        body = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self._send(HTTPStatus.OK, body, "application/json; charset=utf-8")

    def _printout(self, path: str, query: Mapping[str, list[str]]) -> None:
        printouts = self.server.printouts
        assert printouts is not None
        try:
            html = printouts(path, query)
        except ValueError as err:  # an unknown match or hall: say which
            self._send(HTTPStatus.NOT_FOUND, f"{err}\n".encode(), "text/plain; charset=utf-8")
            return
        if html is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
            return
        self._send(HTTPStatus.OK, html.encode("utf-8"), "text/html; charset=utf-8",
                   {"Content-Security-Policy": PRINT_CSP})

    def _csv(self, body: bytes, filename: str) -> None:
        self._send(HTTPStatus.OK, body, "text/csv; charset=utf-8",
                   {"Content-Disposition": f'attachment; filename="{filename}"'})

    def _send(self, status: HTTPStatus, body: bytes, content_type: str,
              headers: Mapping[str, str] | None = None) -> None:
        self._headers_started = True
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        # Every answer is the state of the moment: a cached one would show a stale table.
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def _results_match(path: str) -> str | None:
    """The match of a ``/results/MATCH`` address ("" for the listing, ``/results/``)."""
    if not path.startswith(RESULTS_PREFIX):
        return None
    rest = unquote(path[len(RESULTS_PREFIX):])
    return rest if "/" not in rest.removesuffix(CONFIRM_SUFFIX) else None


class OfficeWeb(ServerThread):
    """The office page's HTTP server, serving ``board`` on its own thread.

    ``host`` defaults to every interface: the office screen is another machine on the LAN.
    ``lang``: the page's language (``?lang=`` picks another). ``port=0`` picks a free port;
    read it back from :attr:`port` after construction.
    """

    def __init__(self, board: SnapshotBoard, host: str = "0.0.0.0", port: int = 0,
                 poll_timeout: float = POLL_TIMEOUT_S,
                 printouts: PrintoutPages | None = None, *,
                 lang: str = words.DEFAULT, desk: ResultDesk | None = None) -> None:
        words.table(lang)  # a language that does not exist fails here, not on a request
        self.board = board
        self._office_server = _Server((host, port), board, lang, poll_timeout, printouts,
                                      desk=desk)
        super().__init__(self._office_server, "office-web")

    def start(self) -> None:
        super().start()
        log.info("office page on http://%s:%d/", self.host, self.port)

    def stop(self) -> None:
        """Stop accepting requests, close the listening socket and drop the connections in
        flight, as an exit of the process would: pages see it at once and start retrying.
        (A dropped long-poll's daemon thread ends when its wait does; it writes nowhere.)"""
        super().stop()
        self._office_server.drop_connections()

    def __enter__(self) -> OfficeWeb:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
