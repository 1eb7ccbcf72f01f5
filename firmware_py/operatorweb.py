"""The operator page: the timekeeper's view (firmware_py/operatorview.py) served read-only on
the LAN, for a phone or a tablet at the table (docs/timekeeper.md, "The operator view").

Routes: ``/`` the page (its content rendered here, so it shows at once and without
JavaScript; then it polls ``/operator.json`` twice a second and redraws itself),
``/operator.json`` the document. Anything else is 404, any method but GET and HEAD 405.

The daemon's loop must never wait for a phone: it hands over a finished snapshot (the
document and its JSON bytes) by replacing one reference (``publish``), and the server's
threads only ever read the snapshot they picked up. No lock is shared with the loop; a
slow or vanished client costs one of the server's own threads, nothing else.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from arena import words
from arena.serverthread import ServerThread
from arena.templates import Templates
from firmware_py.operatorview import labels

log = logging.getLogger("firmware_py.operator")

EMPTY: dict[str, Any] = {"match": None, "feedback": None, "entry": None, "kinds": [],
                         "records": [], "suspensions": {"home": [], "away": []},
                         "language": words.DEFAULT, "words": labels(words.DEFAULT)}
PAGE_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'")


def encode(doc: Mapping[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Snapshot:
    """What the page serves: a document and its JSON, made once by the loop."""

    __slots__ = ("body", "doc")

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc = doc
        self.body = encode(doc)


# ------------------------------------------------------------------ the page


_TEMPLATES = Templates("firmware_py")


def _words(name: str) -> str:
    return name.replace("_", " ")


def _say(doc: Mapping[str, Any], name: str, **fields: object) -> str:
    """The view's own word ``name`` (operator.* in the hall's language), English if absent."""
    said = doc.get("words") or {}
    text = said.get(name) if isinstance(said, Mapping) else None
    text = str(text) if text is not None else str(labels(words.DEFAULT).get(name, name))
    return text.format(**fields) if fields else text


@dataclass(frozen=True, slots=True)
class _Entry:
    """The keypad entry as the page shows it, whatever of its parts it has (``prompt``,
    ``typed``, ``keys``, ``head`` or ``what``/``team``/``player``/``stage``/``kinds``):
    shown generically, so a richer keypad grammar needs nothing here."""

    head: str | None  # None: the prompt says it all
    prompt: str | None
    typed: str
    stage: str | None
    keys: tuple[tuple[str, str], ...]
    timeout: str | None = None  # what happens without a key, and when
    counting: bool = False  # a countdown (not a list waiting for its key)


def _entry(entry: Mapping[str, Any], doc: Mapping[str, Any]) -> _Entry:
    head = str(entry["head"]) if entry.get("head") else \
        " ".join(str(entry.get(k)).upper() for k in ("what", "team") if entry.get(k))
    prompt = str(entry["prompt"]) if entry.get("prompt") else None
    typed = entry.get("typed", entry.get("player"))
    stage = entry.get("stage")
    keys = entry.get("keys") or [[k.split(" ", 1)[0], k.split(" ", 1)[-1]]
                                 for k in entry.get("kinds") or [] if isinstance(k, str)]
    timeout = entry.get("timeout")
    timeout = timeout if isinstance(timeout, Mapping) else {}
    return _Entry(
        head=head or _say(doc, "entry") if head or prompt is None else None,
        prompt=prompt,
        typed=str(typed) if typed not in (None, "") else "_",
        stage=_say(doc, "next", stage=stage) if stage else None,
        keys=tuple((str(pair[0]), _words(str(pair[1]))) for pair in keys
                   if isinstance(pair, list | tuple) and len(pair) == 2),
        timeout=str(timeout["text"]) if timeout.get("text") else None,
        counting=timeout.get("in_s") is not None)


def _record(r: Mapping[str, Any]) -> str:
    """A record the view sent without its own text: its parts as they come."""
    if r.get("text"):
        return str(r["text"])
    return (f"{r['what']} {r['team']}"
            f"{' #' + str(r['player']) if r.get('player') is not None else ''}"
            f"{' ' + _words(r['kind']) if r.get('kind') else ''}")


def _office(doc: Mapping[str, Any]) -> str:
    office = doc.get("office")
    link = _say(doc, "no_office") if office is None else _say(
        doc, "office" if office.get("connected") else "office_offline",
        n=office.get("unacked", 0))
    if office is not None and office.get("problem"):
        link += f" \u00b7 {_say(doc, 'office_problem', reason=office['problem'])}"
    if office is not None and office.get("cannot_store_since"):  # a full disk at the office
        link += (f" \u00b7 "
                 f"{_say(doc, 'office_cannot_store', since=office['cannot_store_since'])}")
    for refused in office.get("refused", ()) if office is not None else ():  # two halls, one match
        link += (f" \u00b7 "
                 f"{_say(doc, 'office_refuses', match=refused['match'], hall=refused['hall'])}")
    return link


def _suspended(doc: Mapping[str, Any]) -> str:
    teams, suspended = doc.get("teams", {}), doc.get("suspensions", {})
    return " ".join(
        f"{teams.get(side, side)}: "
        f"{', '.join('#' + str(p) for p in suspended.get(side, [])) or _say(doc, 'none')}."
        for side in ("home", "away"))


def body_html(doc: Mapping[str, Any]) -> str:
    """The page's content for ``doc``; the script below draws the same from the JSON."""
    return _TEMPLATES.render("operator/body.html.j2", **_context(doc))


def _context(doc: Mapping[str, Any]) -> dict[str, Any]:
    def say(name: str, **fields: object) -> str:
        return _say(doc, name, **fields)

    entry = doc.get("entry")
    schedule = doc.get("schedule")
    return {
        "doc": doc, "say": say, "words": _words, "record": _record,
        "entry": _entry(entry, doc) if entry else None,
        "office": _office(doc) if doc.get("match") is not None else "",
        "suspended": _suspended(doc) if doc.get("match") is not None else "",
        "schedule": schedule or None,
        # The schedule line is a suggestion, never applied; behind it stands out.
        "late": int(schedule.get("behind_ms", 0)) > 0 if schedule else False,
    }


STYLE = """
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;padding:.6rem;background:#06080c;color:#fff;font:1.2rem/1.35 sans-serif;
overflow-wrap:anywhere}
section{margin:0 0 .8rem}h2{font-size:1rem;color:#c8d0dc;margin:.4rem 0}
.big{font-size:1.7rem;font-weight:bold;margin:.2rem 0}.typed{font-size:2.4rem;margin:0}
.quiet{color:#c8d0dc}table{border-collapse:collapse;width:100%}
td,th{padding:.15rem .4rem;text-align:left;vertical-align:top}
.ok{background:#0d3b1e;padding:.5rem;font-size:1.5rem;font-weight:bold}
.refused{background:#a00000;padding:.5rem;font-size:1.5rem;font-weight:bold}
.late{color:#ffd23f;font-weight:bold}
.keys th{font-size:1.6rem;width:2.5rem}
"""

SCRIPT = resources.files("firmware_py").joinpath("operatorpage.js").read_text(encoding="utf-8")


def page(doc: Mapping[str, Any]) -> bytes:
    lang = str(doc.get("language") or words.DEFAULT)
    return _TEMPLATES.render("operator/page.html.j2", lang=lang, style=STYLE, script=SCRIPT,
                             **_context(doc)).encode()


# ------------------------------------------------------------------ the server


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a phone that stalls must never hold up the daemon's exit
    block_on_close = False
    snapshot: Snapshot

    def handle_error(self, request: Any, client_address: Any) -> None:
        level = logging.DEBUG if isinstance(sys.exc_info()[1], OSError) else logging.WARNING
        log.log(level, "operator page: error serving %s", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = 10.0  # a client that connects and sends nothing frees its thread
    server_version = "ArenaScoreboard"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("operator page %s: " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"read-only: GET or HEAD\n",
                   "text/plain; charset=utf-8", {"Allow": "GET, HEAD"}, True)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _answer(self, *, body: bool) -> None:
        snap = self.server.snapshot  # one read: the loop may swap it meanwhile
        try:
            path = urlsplit(self.path).path
            if path == "/":
                self._send(HTTPStatus.OK, page(snap.doc), "text/html; charset=utf-8",
                           {"Content-Security-Policy": PAGE_CSP}, body)
            elif path == "/operator.json":
                self._send(HTTPStatus.OK, snap.body, "application/json; charset=utf-8",
                           None, body)
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8",
                           None, body)
        except OSError:
            log.debug("operator page: client %s went away", self.address_string())

    def _send(self, status: HTTPStatus, data: bytes, content_type: str,
              headers: Mapping[str, str] | None, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")  # always the state of the moment
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)


class OperatorWeb(ServerThread):
    """The page's server on its own thread; ``port=0`` picks a free one (read ``port``)."""

    def __init__(self, host: str, port: int, lang: str = words.DEFAULT) -> None:
        server = _Server((host, port), _Handler)
        server.snapshot = Snapshot({**EMPTY, "language": lang, "words": labels(lang)})
        self._page_server = server
        super().__init__(server, "operator-page", poll_s=0.2)

    def publish(self, snapshot: Snapshot) -> None:
        """From the loop: the one reference is replaced; nothing waits."""
        self._page_server.snapshot = snapshot

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.stop()

