"""``scoreboard run`` as a process, for what needs one: stopping in order on SIGTERM, and
systemd's notify protocol (READY after the first frame, WATCHDOG, STATUS, STOPPING).

Everything else the running scoreboard does is tested in-process on a fake clock
(tests/daemon/test_inprocess.py); SIGKILL recovery in tests/daemon/test_kills.py.
Headless (SDL dummy driver), mock pins; the tests wait for conditions with bounded polling.
"""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

import pytest

from tests.daemon.conftest import Hall, write_script

pytestmark = pytest.mark.slow  # every test here starts a process


def test_sigterm_stops_in_order_with_the_horn_off(tmp_path: Path) -> None:
    hall = Hall(tmp_path)
    script = write_script(tmp_path / "horn.jsonl", [{"t": 0, "do": "start"},
                                                   {"t": 0.1, "do": "horn", "on": True}])
    hall.start("--script", str(script))
    hall.wait_doc(lambda d: d["horn"], 30, "the horn to sound")
    assert hall.signal(signal.SIGTERM) == 0
    order = [line.split("msg=")[1].split(" ")[0].strip('"')
             for line in hall.log_text().splitlines()
             if any(f"msg={m}" in line or f'msg="{m}' in line
                    for m in ("stopping", "horn relay off", "journal closed", "stopped"))]
    assert order == ["stopping", "horn", "journal", "stopped"], hall.log_text()
    doc = hall.doc()
    assert doc is not None and doc["running"]  # the last state, written on the way out


def test_sd_notify_ready_after_the_first_frame_watchdog_and_status(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(20)
        hall = Hall(tmp_path)
        script = write_script(tmp_path / "s.jsonl", [{"t": 0, "do": "start"}])
        hall.start("--script", str(script),
                   env={"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "200000"})
        messages: list[str] = []
        ready_had_frame = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = sock.recv(4096).decode()
            if message.startswith("READY=1"):
                ready_had_frame = hall.state_file.exists()
            messages.append(message)
            if sum(m == "WATCHDOG=1" for m in messages) >= 3 and ready_had_frame is not None:
                break
        assert hall.signal(signal.SIGTERM) == 0
        while True:  # what was sent while stopping
            try:
                sock.settimeout(2)
                messages.append(sock.recv(4096).decode())
            except TimeoutError:
                break
    assert ready_had_frame is True
    assert any(m.startswith("READY=1\nSTATUS=M1 P1 ") for m in messages)
    assert sum(m == "WATCHDOG=1" for m in messages) >= 3
    assert any(m.startswith("STATUS=M1 P1 ") and " running 0-0" in m for m in messages)
    assert "STOPPING=1" in messages
