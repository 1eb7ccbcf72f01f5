"""Loopback helpers for whatever runs a private broker here (the demo, the tests, the
benchmarks): a free port, whether something listens on one, and where mosquitto is."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

# Debian's package puts mosquitto in /usr/sbin, which is not on a normal user's PATH.
DEBIAN_MOSQUITTO = Path("/usr/sbin/mosquitto")


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int) -> bool:
    """Something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def find_mosquitto(which: Callable[[str], str | None] = shutil.which,
                   fallback: Path = DEBIAN_MOSQUITTO) -> str | None:
    """The mosquitto binary: on PATH, or where Debian puts it; None if not installed."""
    found = which("mosquitto")
    if found:
        return found
    return str(fallback) if fallback.is_file() and os.access(fallback, os.X_OK) else None
