"""The public site's server (``office serve --public-port``) and its static export
(``--export-site``), both fed from the office's :class:`SnapshotBoard`.

The service's loop only publishes its snapshot to the board, as it does for the office page;
everything public happens on :class:`PublicSite`'s own thread: it takes each new snapshot,
makes its public projection (``office.views.public``), and swaps in a new :class:`Rendition` by
reference. A request takes the rendition of the moment and its page (rendered once per
rendition, on first demand; compressed once). So a thousand phones never make the service
wait, and the same public content is the same bytes: one ETag, a 304 for every phone that
has it.

Routes: ``/r/<token>`` (a referee's result form, GET and POST: ``office.web.resultdesk``,
never cached), ``/`` (``/index.html``), ``/schedule/``, ``/category/<slug>/``, ``/team/<slug>/``,
``/hall/<slug>/`` (each also as ``.../index.html``; without the last ``/`` a redirect to it,
as relative links need), ``/public.json``, ``/healthz``. GET and HEAD; every answer has
``ETag``, ``Last-Modified`` and ``Cache-Control: public, max-age=1``; ``If-None-Match``
(or ``If-Modified-Since``) that still holds gets 304; ``Accept-Encoding: gzip`` gets it
compressed.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from arena import words
from arena.serverthread import ServerThread
from office.views.board import SnapshotBoard
from office.views.public import public_snapshot
from office.web.formhttp import read_form, send_answer
from office.web.publicsite import PAGE_CSP, Site, shows_halls
from office.web.resultdesk import Answer, ResultDesk
from office.web.siteexport import ExportError, write_site

log = logging.getLogger(__name__)

CACHE_CONTROL = "public, max-age=1"
EXPORT_EVERY_S = 1.0  # the static export is rewritten at most this often
# A new rendition at most this often: the halls' clocks make the office's snapshot change up
# to four times a second, and a phone that asks every second needs no more; a change still
# shows within 2 s (this, plus the page's 1 s poll, plus max-age=1 at most).
RENDER_EVERY_S = 0.5
WAKE_S = 0.25  # how often the site's thread looks up from the board (stop, a due export)
# A connection idle this long (no request, or a request that stops arriving) is closed: the
# server holds a thread and a descriptor per connection, so one a phone left open, or a
# client that connects and says nothing, must not hold them for the day.
# systemd/office.service's LimitNOFILE is sized for the connections this leaves open.
IDLE_S = 30.0
HTML = "text/html; charset=utf-8"
RESULT_PREFIX = "/r/"  # a match's result link: /r/TOKEN (office.web.resultdesk)
JSON = "application/json; charset=utf-8"


class Resource:
    """One answer's body, ready to send: its validators and (made on first demand, once)
    its compressed form."""

    __slots__ = ("_gzipped", "_lock", "body", "content_type", "etag", "last_modified")

    def __init__(self, body: bytes, content_type: str, path: str, stamp: Stamp) -> None:
        self.body = body
        self.content_type = content_type
        self.etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        self.last_modified = stamp(path, self.etag)  # UTC, whole seconds (as HTTP dates)
        self._gzipped: bytes | None = None
        self._lock = threading.Lock()

    @property
    def gzipped(self) -> bytes:
        with self._lock:
            if self._gzipped is None:
                # mtime=0: the same bytes always compress to the same bytes.
                self._gzipped = gzip.compress(self.body, 6, mtime=0)
            return self._gzipped


Stamp = Callable[[str, str], datetime]  # (path, etag) -> when that content first appeared


class Rendition:
    """One public snapshot and its pages, each rendered once, when first asked for.

    ``previous``: the rendition this one replaces. If only the halls changed (a clock ran
    on), the pages that do not show them are taken over as they are, not rendered again:
    while a match is played the front page changes every second, a team's page does not."""

    def __init__(self, doc: Mapping[str, Any], lang: str, stamp: Stamp,
                 previous: Rendition | None = None) -> None:
        self.doc = doc
        self.site = Site(doc, lang)
        self._stamp = stamp
        body = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.json = Resource(body, JSON, "public.json", stamp)
        self._pages: dict[str, Resource | None] = {}
        self._lock = threading.Lock()
        self._settled = {k: v for k, v in doc.items() if k != "halls"}
        if previous is not None and previous.site.lang == lang \
                and previous._settled == self._settled:
            with previous._lock:
                self._pages = {p: r for p, r in previous._pages.items() if not shows_halls(p)}

    @property
    def etag(self) -> str:
        return self.json.etag

    def page(self, path: str) -> Resource | None:
        """The page at ``path`` ("" the front page, "team/lions/"), or None."""
        if path in self._pages:  # rendered already: no lock (a dict read is atomic)
            return self._pages[path]
        # One render at a time, and once per page however many phones ask at once: renders
        # share the interpreter with the office's own loop, so they queue here, not there.
        with self._lock:
            if path not in self._pages:
                html = self.site.page(path)
                self._pages[path] = (None if html is None else
                                     Resource(html.encode("utf-8"), HTML, path, self._stamp))
            return self._pages[path]

    def files(self) -> dict[str, bytes]:
        """The whole site as files (the static export)."""
        out = {"public.json": self.json.body}
        for path in self.site.paths():
            page = self.page(path)
            if page is not None:
                out[f"{path}index.html"] = page.body
        return out


class PublicSite:
    """The current :class:`Rendition`, kept up to date from ``board`` on a thread of its own;
    with ``export``, also the static export in that folder, at most every ``export_every``
    seconds (and always after the last change)."""

    def __init__(self, board: SnapshotBoard, language: str = words.DEFAULT, *,
                 export: Path | None = None, export_every: float = EXPORT_EVERY_S,
                 render_every: float = RENDER_EVERY_S,
                 wall: Callable[[], datetime] = lambda: datetime.now(UTC),
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        words.table(language)  # an unknown language is refused here, at the start
        self.board = board
        self.language = language
        self.export = export
        self.export_every = export_every
        self.render_every = render_every
        self._rendered_at = float("-inf")
        self.wall = wall
        self.monotonic = monotonic
        self.exports = 0  # how many times the export was written (for tests and logs)
        self.export_error: str | None = None
        self._current: Rendition | None = None
        self._version = 0
        self._stamps: dict[str, tuple[str, datetime]] = {}
        self._stamps_lock = threading.Lock()
        self._written: dict[str, bytes] = {}
        self._export_due = False
        self._exported_at = float("-inf")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._changed = threading.Condition()

    def current(self) -> Rendition | None:
        """The rendition of the moment (None before the office's first snapshot)."""
        return self._current

    def _stamp(self, path: str, etag: str) -> datetime:
        """When ``path`` first had this content: kept while its ETag stays the same."""
        with self._stamps_lock:
            seen = self._stamps.get(path)
            if seen is not None and seen[0] == etag:
                return seen[1]
            when = self.wall().astimezone(UTC).replace(microsecond=0)
            self._stamps[path] = (etag, when)
            return when

    def step(self, timeout: float = 0.0) -> bool:
        """Take the board's snapshot if it is new (waiting up to ``timeout``), and write the
        export if one is due; True if a new rendition was made. (The thread's loop; a test
        calls it directly.)"""
        wait = self._rendered_at + self.render_every - self.monotonic()
        if wait > 0:  # too soon after the last one: take the board's news a moment later
            if timeout > 0:
                self._stop.wait(min(wait, timeout))
            doc: dict[str, Any] = {"version": self._version}
        elif timeout > 0:
            doc = self.board.wait(self._version, timeout)
        else:
            doc = self.board.current()
        version = doc.get("version")
        made = False
        if isinstance(version, int) and version != self._version and version > 0:
            self._version = version
            self._rendered_at = self.monotonic()
            public = public_snapshot(doc)
            rendition = Rendition(public, self.language, self._stamp, self._current)
            old = self._current
            if old is None or old.etag != rendition.etag:
                self._current = rendition  # the swap: requests in flight keep the old one
                self._export_due = self.export is not None
                made = True
                with self._changed:
                    self._changed.notify_all()
        if self._export_due and self.monotonic() - self._exported_at >= self.export_every:
            self.write_export()
        return made

    def write_export(self) -> None:
        """Write the static export of the current rendition now."""
        current = self._current
        if self.export is None or current is None:
            return
        self._export_due = False
        self._exported_at = self.monotonic()
        try:
            self._written = write_site(self.export, current.files(), self._written)
        except ExportError as err:
            if self.export_error != str(err):
                log.error("public site: %s", err)
            self.export_error = str(err)
            return
        self.export_error = None
        self.exports += 1

    def wait_changed(self, etag: str | None, timeout: float) -> Rendition | None:
        """The current rendition once its ETag is not ``etag`` (or after ``timeout``)."""
        with self._changed:
            self._changed.wait_for(lambda: self._current is not None
                                   and self._current.etag != etag, timeout)
        return self._current

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("public site already started")
        self._thread = threading.Thread(target=self._run, name="public-site", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step(WAKE_S)
            except Exception:  # a bad snapshot must not end the public site for the day
                log.exception("public site: could not render the snapshot")
                self._stop.wait(WAKE_S)

    def stop(self) -> None:
        """Stop the thread; a last export is written if one was due."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._export_due:
            self.write_export()


# --- HTTP -------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # Many phones connect at once after a goal: the default backlog of 5 would make most
    # of them wait for a SYN retry (a second or more).
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], site: PublicSite,
                 desk: ResultDesk | None = None) -> None:
        super().__init__(address, _Handler)
        self.site = site
        self.desk = desk  # the referees' result forms (/r/TOKEN), when the office has them

    def handle_error(self, request: Any, client_address: Any) -> None:
        level = logging.DEBUG if isinstance(sys.exc_info()[1], OSError) else logging.WARNING
        log.log(level, "public site: error serving %s", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # Keep-alive: a phone polls every second over one connection. An idle one is closed
    # after `timeout` (IDLE_S: the socket's timeout, each read) so it does not hold a thread.
    protocol_version = "HTTP/1.1"
    timeout = IDLE_S
    server_version = "ArenaPublic"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("public site %s: " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._answer(head=False)

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def do_POST(self) -> None:
        """A referee's result form (``/r/TOKEN``); nothing else of the site takes a POST."""
        try:
            path = urlsplit(self.path).path
            desk = self.server.desk
            if desk is None:  # no forms at all: as a server without POST answers
                self.close_connection = True
                self._plain(HTTPStatus.NOT_IMPLEMENTED, b"read-only\n", False)
                return
            if not path.startswith(RESULT_PREFIX):
                self.close_connection = True
                self._plain(HTTPStatus.METHOD_NOT_ALLOWED, b"read-only\n", False,
                            {"Allow": "GET, HEAD"})
                return
            body = read_form(self)
            if body is None:
                self.close_connection = True
                self._plain(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"form too large\n", False)
                return
            self._form(desk.phone_post(path[len(RESULT_PREFIX):], body,
                                       self.address_string()))
        except OSError:
            self.close_connection = True
        except Exception:
            log.exception("public site: failed to answer a form to %s", self.path)
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._plain(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error\n", False)

    def _form(self, answer: Answer) -> None:
        send_answer(self, answer)

    def _answer(self, *, head: bool) -> None:
        try:
            self._route(head)
        except OSError:
            log.debug("public site: client %s went away", self.address_string())
            self.close_connection = True
        except Exception:
            log.exception("public site: failed to answer %s", self.path)
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._plain(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error\n", head)

    def _route(self, head: bool) -> None:
        url = urlsplit(self.path)
        path = url.path
        if path == "/healthz":
            self._plain(HTTPStatus.OK, b"ok\n", head)
            return
        desk = self.server.desk
        if desk is not None and path.startswith(RESULT_PREFIX) and not head:
            # Never cached, never the site's rendition: a form of the moment.
            self._form(desk.phone(path[len(RESULT_PREFIX):],
                                  parse_qs(url.query, keep_blank_values=True),
                                  self.address_string()))
            return
        current = self.server.site.current()
        if current is None:
            self._plain(HTTPStatus.SERVICE_UNAVAILABLE, b"no results yet\n", head,
                        {"Retry-After": "1"})
            return
        if path == "/public.json":
            self._resource(current.json, head)
            return
        rel = path[1:] if path.startswith("/") else ""
        if rel.endswith("index.html"):
            rel = rel[: -len("index.html")]
            if rel and not rel.endswith("/"):
                rel = "\0"  # "/teamindex.html": no such page
        elif rel and not rel.endswith("/") and current.page(rel + "/") is not None:
            # Relative links need the last "/".
            self._plain(HTTPStatus.MOVED_PERMANENTLY, b"moved\n", head, {"Location": path + "/"})
            return
        page = current.page(rel)
        if page is None:
            self._plain(HTTPStatus.NOT_FOUND, b"not found\n", head)
            return
        self._resource(page, head)

    def _resource(self, res: Resource, head: bool) -> None:
        gz = "gzip" in self.headers.get("Accept-Encoding", "").lower()
        # Each encoding is another representation, so another tag (RFC 9110 8.8.3).
        etag = res.etag[:-1] + '-gz"' if gz else res.etag
        headers = {"ETag": etag, "Last-Modified": format_datetime(res.last_modified, True),
                   "Cache-Control": CACHE_CONTROL, "Vary": "Accept-Encoding"}
        if res.content_type == HTML:
            headers["Content-Security-Policy"] = PAGE_CSP
        if self._not_modified(res, (etag, res.etag)):
            self.send_response(HTTPStatus.NOT_MODIFIED)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            return
        body = res.gzipped if gz else res.body
        if gz:
            headers["Content-Encoding"] = "gzip"
        self._send(HTTPStatus.OK, body, res.content_type, head, headers)

    def _not_modified(self, res: Resource, tags: tuple[str, ...]) -> bool:
        """RFC 9110 13.1: If-None-Match decides when present; else If-Modified-Since."""
        none_match = self.headers.get("If-None-Match")
        if none_match is not None:
            given = {t.strip().removeprefix("W/") for t in none_match.split(",")}
            return "*" in given or any(t in given for t in tags)
        since = self.headers.get("If-Modified-Since")
        if since is None:
            return False
        try:
            when = parsedate_to_datetime(since)
        except (TypeError, ValueError, IndexError):
            return False  # an unreadable date is ignored, as the RFC says
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return res.last_modified <= when

    def _plain(self, status: HTTPStatus, body: bytes, head: bool,
               headers: Mapping[str, str] | None = None) -> None:
        self._send(status, body, "text/plain; charset=utf-8", head,
                   {"Cache-Control": "no-store", **(headers or {})})

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, head: bool,
              headers: Mapping[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)


class PublicWeb(ServerThread):
    """The public site's HTTP server on its own thread. ``port=0`` picks a free port.
    ``desk``: the referees' result forms (``/r/TOKEN``): the phones reach this server."""

    def __init__(self, site: PublicSite, host: str = "0.0.0.0", port: int = 0,
                 desk: ResultDesk | None = None) -> None:
        self.site = site
        super().__init__(_Server((host, port), site, desk), "public-web")

    def start(self) -> None:
        super().start()
        log.info("public site on http://%s:%d/", self.host, self.port)

    def __enter__(self) -> PublicWeb:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
