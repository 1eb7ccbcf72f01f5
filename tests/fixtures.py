"""The setup the process tests share: a real mosquitto, a tournament file, the office.

- ``Broker``: one mosquitto on a free loopback port with its own config and data directory,
  started by the test that needs it and stopped by its pid; ``ShippedBroker`` is the office
  broker exactly as installed (shipped config and ACL, a password file made as install.sh
  makes it). The ``broker`` and ``shipped_broker`` fixtures (tests/conftest.py) start one
  for a test and stop it after.
- ``tournament_file``: the smallest tournament an office accepts events for.
- ``Office``: the real office in a thread of the test; ``office_serve``: ``office serve``
  as a child process, ``stop_gently`` ends it as systemd does.
- ``wait_for``: tests wait for conditions with bounded polling, never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from firmware_py.loopback import DEBIAN_MOSQUITTO, find_mosquitto, free_port, port_open

__all__ = ["MOSQUITTO", "ROOT", "SHIPPED_USERS", "Broker", "Office", "ShippedBroker",
           "add_user", "free_port", "mirror_acl", "office_serve", "port_open", "shipped_config",
           "stop_gently", "stored_ids", "tournament_file", "wait_for"]

ROOT = Path(__file__).resolve().parents[1]

MOSQUITTO = find_mosquitto() or str(DEBIAN_MOSQUITTO)
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def tournament_file(path: Path, tournament: str, matches: list[tuple[str, str]]) -> Path:
    """A tournament file with these ``(match, hall)`` group matches (teams X v Y, home and
    away swapped each time, as a double round robin has them): all an office needs to
    accept their events."""
    lines = [f'name = "{tournament}"', f'id = "{tournament}"', 'preset = "floorball-2x15"',
             "", "[[groups]]", 'name = "A"', 'teams = ["X", "Y"]']
    for i, (match, hall) in enumerate(matches):
        lines += ["", "[[matches]]", f'id = "{match}"', 'group = "A"', f'hall = "{hall}"',
                  f"start = 2026-12-05T{9 + i:02d}:00:00",
                  *(('home = "X"', 'away = "Y"') if i % 2 == 0 else ('home = "Y"', 'away = "X"'))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Office:
    """The real office in a thread of the test: ``OfficeService`` on an ``OfficePeer`` and a
    SQLite ``Store``, as ``office serve`` runs them. It stores the halls' events and
    publishes each hall's ``acks``; ``stop`` and a new ``Office`` on the same file are an
    office restart (its persistent session stays with the broker)."""

    def __init__(self, port: int, db: Path, tournament: Path, *, username: str | None = None,
                 password: str | None = None, public_url: str | None = None) -> None:
        from arena.tournament.files import load_tournament  # noqa: PLC0415
        from office.peer import OfficePeer  # noqa: PLC0415
        from office.service import OfficeService  # noqa: PLC0415
        from office.storage.store import Store  # noqa: PLC0415

        self.db = db
        cup = load_tournament(tournament)
        self.store = Store(db)
        self.peer = OfficePeer("127.0.0.1", port, cup.id, username=username, password=password,
                               reconnect_s=(1, 1))
        self.service = OfficeService(cup, self.store, self.peer, public_url=public_url)
        self._stop = threading.Event()
        self.peer.start()
        self._thread = threading.Thread(target=self._run, name="test-office", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.service.refresh()
        while not self._stop.is_set():
            self.service.pump(0.05)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.peer.close()
        self.store.close()


def stored_ids(db: Path) -> list[str]:
    """Every ``event_id`` in an office's store (one row each: the store's key)."""
    with contextlib.closing(sqlite3.connect(db)) as con:
        return [r[0] for r in con.execute("SELECT event_id FROM events ORDER BY match, seq")]


def wait_for(condition: Callable[[], bool], timeout: float, what: str,
             step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


class Broker:
    """One mosquitto process on 127.0.0.1:``port`` with its data in ``directory``."""

    def __init__(self, directory: Path, port: int | None = None, extra: str = "") -> None:
        self.dir = directory
        self.port = port or free_port()
        self.extra = extra
        self.config_text: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config = self.dir / "mosquitto.conf"
        self.log = self.dir / "mosquitto.log"

    def write_config(self) -> None:
        if self.config_text is not None:  # a whole configuration of the test's own
            self.config.write_text(self.config_text)
            return
        # As root mosquitto drops to the `mosquitto` user, which cannot write a test's temp
        # directory; `user root` keeps it root (ignored when not started as root).
        lines = [
            f"listener {self.port} 127.0.0.1",
            "set_tcp_nodelay true",
            "persistence true",
            f"persistence_location {self.dir}/",
            "autosave_interval 1",  # save sessions every second: the tests kill it
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"log_dest file {self.log}",
            "user root",
        ]
        if "allow_anonymous" not in self.extra:
            lines.append("allow_anonymous true")
        self.config.write_text("\n".join(lines) + "\n" + self.extra + "\n")

    def start(self) -> None:
        assert self.proc is None
        if not Path(MOSQUITTO).exists():  # fail loudly: a skip would hide the missing tests
            raise RuntimeError("mosquitto is not installed: apt-get install mosquitto "
                               "(./quickstart.sh test installs it)")
        self.write_config()
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.config)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: port_open(self.port) or self.proc is None or
                 self.proc.poll() is not None, 10, "mosquitto to listen")
        if self.proc.poll() is not None:
            raise RuntimeError(f"mosquitto exited: {self.log.read_text(errors='replace')}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        os.kill(self.proc.pid, sig)
        self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def saved_after(self, instant: float) -> bool:
        db = self.dir / "mosquitto.db"
        return db.exists() and db.stat().st_mtime > instant


SHIPPED_CONF = ROOT / "systemd" / "mosquitto" / "arena.conf"
SHIPPED_ACL = ROOT / "systemd" / "mosquitto" / "arena.acl"


def add_user(passwd: Path, user: str, password: str) -> None:
    """One user in a mosquitto password file, the way install.sh adds the office's: the
    password twice on standard input (``-c`` creates the file for the first user)."""
    create = [] if passwd.exists() else ["-c"]
    subprocess.run([MOSQUITTO_PASSWD, *create, str(passwd), user],
                   input=f"{password}\n{password}\n".encode(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def shipped_config(broker: Broker, passwd: Path, acl: Path = SHIPPED_ACL) -> str:
    """systemd/mosquitto/arena.conf as shipped, moved to the test's port, password file, log
    and data directory (the ACL is the shipped file itself unless ``acl`` names another).
    Nothing else changes."""
    text = SHIPPED_CONF.read_text()
    for old, new in [("listener 1883", f"listener {broker.port} 127.0.0.1"),
                     ("/etc/mosquitto/arena.passwd", str(passwd)),
                     ("/etc/mosquitto/arena.acl", str(acl)),
                     # `user root`: as root mosquitto would drop to a user that cannot
                     # write the test's directory (ignored when not started as root).
                     ("log_dest syslog", f"log_dest file {broker.log}\nuser root")]:
        assert old in text, old
        text = text.replace(old, new)
    # Debian's mosquitto.conf gives the location the shipped file relies on.
    return text + f"persistence_location {broker.dir}/\n"


def mirror_acl(directory: Path, hall: str) -> Path:
    """The shipped ACL with its ``#mirror`` template made a block for ``hall``, as
    systemd/mosquitto/README.md tells the technician to (the user ``mirror-<hall>``)."""
    lines = []
    for line in SHIPPED_ACL.read_text().splitlines():
        filled = line.removeprefix("#mirror ").replace("HALL", hall)
        lines.append(filled if line.startswith("#mirror ") else line)
    acl = directory / "arena.acl"
    acl.write_text("\n".join(lines) + "\n")
    return acl


class ShippedBroker(Broker):
    """A mosquitto with exactly the shipped office configuration and ACL, and a password
    file made as install.sh makes it, holding ``users`` (user name -> password)."""

    def __init__(self, directory: Path, users: dict[str, str], port: int | None = None, *,
                 acl: Path = SHIPPED_ACL, extra: str = "") -> None:
        super().__init__(directory, port)
        self.users = dict(users)
        self.passwd = self.dir / "arena.passwd"
        for user, password in self.users.items():
            add_user(self.passwd, user, password)
        # ``extra``: more of the shipped configuration (a venue's bridge), as conf.d adds it.
        self.config_text = shipped_config(self, self.passwd, acl) + extra


#: The users of ``shipped_broker``: the office, two halls and a read-only display.
SHIPPED_USERS = {"office": "office-secret", "hall-a": "a-secret", "hall-b": "b-secret",
                 "display": "display-secret"}


def office_serve(directory: Path, broker_port: int, tournament: Path, *,
                 username: str | None = None, password: str | None = None,
                 http: int | None = None, extra: Sequence[str] = ()) -> subprocess.Popen[bytes]:
    """``office serve`` on ``tournament`` as a child process, its database
    (``office.sqlite``), log (``office.log``) and password file in ``directory``; its page on
    127.0.0.1:``http`` if given. The caller ends it (``stop_gently``, or a kill)."""
    login: list[str] = []
    if username is not None:
        login = ["--username", username]
    if password is not None:
        secret = directory / f"{username or 'office'}-password"
        secret.write_text(password + "\n")
        login += ["--password-file", str(secret)]
    page = ["--http", str(http), "--host", "127.0.0.1"] if http is not None else []
    with open(directory / "office.log", "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "office", "serve", "--tournament", str(tournament),
             "--db", str(directory / "office.sqlite"),
             "--broker", f"mqtt://127.0.0.1:{broker_port}", *login, *page, *extra],
            cwd=ROOT, stdout=log, stderr=log)


def stop_gently(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM, as systemd stops a service; SIGKILL only if it hangs."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
