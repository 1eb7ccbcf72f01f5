"""systemd's notify protocol without a dependency: one datagram per message.

``$NOTIFY_SOCKET`` names an AF_UNIX datagram socket (a leading '@' means an abstract name,
sent with a leading NUL byte). Without it (not under systemd, a test) nothing is sent.
``$WATCHDOG_USEC`` is the unit's WatchdogSec=; the loop pings at half of it, so one slow
iteration never gets the daemon killed but a hung loop does.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self._address = "\0" + address[1:] if address.startswith("@") else address
        self._sock: socket.socket | None = None
        if self._address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        watchdog = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        usable = watchdog.isdigit() and int(watchdog) > 0 and (not pid or pid == str(os.getpid()))
        # Ping at half the watchdog period (systemd's own advice), in ns; None: no watchdog.
        self.watchdog_ns: int | None = int(watchdog) * 1000 // 2 if usable else None
        self._status = ""

    def send(self, *lines: str) -> None:
        """Send ``KEY=value`` lines in one datagram; never raises (systemd may be gone)."""
        if self._sock is None:
            return
        try:
            # Never block the loop: if nobody reads the socket (its queue holds about ten
            # datagrams), the message is dropped instead.
            self._sock.sendto("\n".join(lines).encode("utf-8"), socket.MSG_DONTWAIT,
                              self._address)
        except OSError as err:
            log.debug("sd_notify %s failed: %s", lines, err)

    def ready(self, status: str = "") -> None:
        self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def status(self, text: str) -> None:
        """STATUS=, sent only when it changed."""
        if text != self._status:
            self._status = text
            self.send(f"STATUS={text}")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
