"""An HTTP server bound at once and served on a thread of its own: the office page, the
public site and the timekeeper's page are each one (``office.web.officepage``,
``office.web.publicweb``, ``firmware_py.operatorweb``).

Bound in the constructor, not in ``start``: a port in use is the caller's error at once, and
``port`` is known before the first request (``port=0`` picks a free one).
"""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer


class ServerThread:
    """``server`` served by ``start`` until ``stop``."""

    def __init__(self, server: ThreadingHTTPServer, name: str, poll_s: float = 0.1) -> None:
        self._server = server
        self._name = name
        # serve_forever only notices stop() between polls: a short poll keeps stop() prompt
        # for a negligible cost (an idle wake-up, no work).
        self._poll_s = poll_s
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, path: str = "/") -> str:
        """The address of ``path`` on this server (as a client on this machine reaches it)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}{path}"

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"{self._name} already started")
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        args=(self._poll_s,), name=f"{self._name}:{self.port}",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting requests and close the listening socket (idempotent)."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()
