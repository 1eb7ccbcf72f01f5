"""What both HTTP servers do with the result forms (``office.web.resultdesk``): read a form's
body, bounded, and send an :class:`Answer` (never cached, with the forms' policy)."""

from __future__ import annotations

from http import HTTPStatus
from http.server import BaseHTTPRequestHandler

from office.web.resultdesk import FORM_CSP, MAX_BODY, Answer


def read_form(handler: BaseHTTPRequestHandler) -> bytes | None:
    """The request's body (``Content-Length`` of it); None when it is larger than a form
    can be (nothing of it is read then: the connection is closed)."""
    try:
        length = int(handler.headers.get("Content-Length") or 0)
    except ValueError:
        return None
    if length < 0 or length > MAX_BODY:
        return None
    return handler.rfile.read(length) if length else b""


def send_answer(handler: BaseHTTPRequestHandler, answer: Answer) -> None:
    body = answer.html.encode("utf-8")
    handler.send_response(HTTPStatus(answer.status))
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    # A form of the moment, with its nonce: never kept by a cache or a proxy.
    handler.send_header("Cache-Control", "no-store")
    handler.send_header("X-Content-Type-Options", "nosniff")
    handler.send_header("Content-Security-Policy", FORM_CSP)
    # The link's token is in the address: it must not travel on as a Referer.
    handler.send_header("Referrer-Policy", "no-referrer")
    if answer.location is not None:
        handler.send_header("Location", answer.location)
    for name, value in answer.headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)
