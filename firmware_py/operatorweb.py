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
import html
import json
import logging
import sys
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from arena import words
from arena.serverthread import ServerThread
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


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _words(name: str) -> str:
    return name.replace("_", " ")


def _say(doc: Mapping[str, Any], name: str, **fields: object) -> str:
    """The view's own word ``name`` (operator.* in the hall's language), English if absent."""
    said = doc.get("words") or {}
    text = said.get(name) if isinstance(said, Mapping) else None
    text = str(text) if text is not None else str(labels(words.DEFAULT).get(name, name))
    return text.format(**fields) if fields else text


def entry_html(entry: Mapping[str, Any] | None, doc: Mapping[str, Any] | None = None) -> str:
    """The keypad entry, whatever of its parts it has (``prompt``, ``typed``, ``keys``,
    ``head`` or ``what``/``team``/``player``/``stage``/``kinds``): shown generically, so a
    richer keypad grammar needs nothing here. ``doc``: the view, for its words."""
    doc = doc or {}
    if not entry:
        return f'<p class="quiet">{_e(_say(doc, "no_entry"))}</p>'
    head = _e(entry["head"]) if entry.get("head") else \
        " ".join(_e(entry.get(k)).upper() for k in ("what", "team") if entry.get(k))
    parts = [f'<p class="big">{head or _e(_say(doc, "entry"))}</p>'] \
        if head or not entry.get("prompt") else []
    if entry.get("prompt"):
        parts.append(f'<p class="big">{_e(entry["prompt"])}</p>')
    typed = entry.get("typed", entry.get("player"))
    parts.append(f'<p class="typed">{_e(typed) if typed not in (None, "") else "_"}</p>')
    if entry.get("stage"):
        parts.append(f'<p class="quiet">{_e(_say(doc, "next", stage=entry["stage"]))}</p>')
    keys = entry.get("keys") or [[k.split(" ", 1)[0], k.split(" ", 1)[-1]]
                                 for k in entry.get("kinds") or [] if isinstance(k, str)]
    if keys:
        rows = "".join(f"<tr><th>{_e(pair[0])}</th><td>{_e(_words(str(pair[1])))}</td></tr>"
                       for pair in keys if isinstance(pair, list | tuple) and len(pair) == 2)
        parts.append(f'<table class="keys">{rows}</table>')
    return "".join(parts)


def feedback_html(feedback: Mapping[str, Any] | None) -> str:
    if not feedback:
        return ""
    cls = "ok" if feedback.get("accepted") else "refused"
    return f'<p class="{cls}">{_e(feedback.get("text"))}</p>'


def body_html(doc: Mapping[str, Any]) -> str:
    """The page's content for ``doc``; the script below draws the same from the JSON."""
    if doc.get("match") is None:
        return f'<p class="quiet">{_e(_say(doc, "waiting"))}</p>'
    teams, score = doc.get("teams", {}), doc.get("score", {})
    office = doc.get("office")
    link = _say(doc, "no_office") if office is None else _say(
        doc, "office" if office.get("connected") else "office_offline",
        n=office.get("unacked", 0))
    if office is not None and office.get("problem"):
        link += f" \u00b7 {_say(doc, 'office_problem', reason=office['problem'])}"
    records = "".join(
        f"<tr><td>{_e(r['seq'])}</td><td>{_e(r['text']) if r.get('text') else _record(r)}"
        f"</td><td>P{_e(r['period'])} {_e(r['clock'])}</td>"
        f"<td>{_e(_say(doc, 'undo')) if r.get('undo_next') else ''}</td></tr>"
        for r in doc.get("records", []))
    kinds = "".join(f"<tr><th>{_e(k['key'])}</th><td>{_e(k.get('text') or _words(k['name']))}"
                    "</td>"
                    f"<td>{_e(_say(doc, 'minutes', n=k['minutes']))}</td></tr>"
                    for k in doc.get("kinds", []))
    suspended = doc.get("suspensions", {})
    banned = " ".join(
        f"{_e(teams.get(side, side))}: "
        f"{', '.join('#' + _e(p) for p in suspended.get(side, [])) or _e(_say(doc, 'none'))}."
        for side in ("home", "away"))
    running = _say(doc, "running" if doc.get("running") else "stopped")
    horn = f"  {_say(doc, 'horn')}" if doc.get("horn") else ""
    return (
        f'<section id="feedback">{feedback_html(doc.get("feedback"))}</section>'
        f'<section id="entry">{entry_html(doc.get("entry"), doc)}</section>'
        f'<section id="game"><p class="big">{_e(teams.get("home"))} {_e(score.get("home"))}'
        f' : {_e(score.get("away"))} {_e(teams.get("away"))}</p>'
        f'<p>{_e(doc.get("match"))} {_e(doc.get("phase_text", doc.get("phase")))} '
        f'{_e(doc.get("period"))}  <b>{_e(doc.get("clock"))}</b> {_e(running)}{_e(horn)}</p>'
        f'<p class="quiet">{_e(link)}</p>'
        f'{schedule_html(doc.get("schedule"))}</section>'
        f'<section id="records"><h2>{_e(_say(doc, "records"))}</h2><table>{records}</table>'
        '</section>'
        f'<section id="kinds"><h2>{_e(_say(doc, "kinds"))}</h2><table>{kinds}</table>'
        '</section>'
        f'<section id="suspended"><h2>{_e(_say(doc, "suspended"))}</h2><p>{banned}</p>'
        '</section>')


def _record(r: Mapping[str, Any]) -> str:
    return (f"{_e(r['what'])} {_e(r['team'])}"
            f"{' #' + _e(r['player']) if r.get('player') is not None else ''}"
            f"{' ' + _e(_words(r['kind'])) if r.get('kind') else ''}")


def schedule_html(schedule: Mapping[str, Any] | None) -> str:
    """The timekeeper's schedule line (docs/timekeeper.md, "The match day"): a suggestion, never
    applied."""
    if not schedule:
        return ""
    late = "late" if int(schedule.get("behind_ms", 0)) > 0 else "quiet"
    return f'<p id="schedule" class="{late}">{_e(schedule.get("text"))}</p>'


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
    return (
        f'<!doctype html><html lang="{_e(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<title>{_e(_say(doc, "title"))}</title><style>{STYLE}'
        '.lost #view{opacity:.4}</style></head>'
        f'<body><main id="view">{body_html(doc)}</main><script>{SCRIPT}</script>'
        '</body></html>').encode()


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

