"""The daemon's small parts, in-process: clock mapping, timeline recovery, pointer,
sd_notify, display mode (the key map: tests/display/test_keyboard.py)."""

from __future__ import annotations

import socket
import threading
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest

from arena import presets
from arena.core.commands import Goal, Start
from arena.core.phase import Team
from arena.core.units import NS_PER_S
from arena.core.values import MatchSetup
from arena.timesource import FakeClock
from firmware_py.matchfiles import MatchFiles
from firmware_py.outputs import status_text, steady_part
from firmware_py.runconfig import resolve_display_mode
from firmware_py.sdnotify import Notifier
from firmware_py.session import Session, open_session
from firmware_py.timeline import Timeline, parse_scale

PRESET = "floorball-2x15"


def test_timeline_maps_both_ways_exactly() -> None:
    real = FakeClock(10 * NS_PER_S)
    line = Timeline(real, Fraction(60), offset=-5)
    assert line.now() == 600 * NS_PER_S - 5
    for match_ns in (0, 1, 599 * NS_PER_S + 7, 600 * NS_PER_S - 5):
        back = line.to_real(match_ns)
        assert line.from_real(back) >= match_ns > line.from_real(back - 1)
    assert line.ticks_to_ns(10.0) == line.now()
    assert parse_scale("2.5") == Fraction(5, 2)
    with pytest.raises(ValueError, match="positive"):
        parse_scale("0")


def open_match(path: Path, line: Timeline, boot: str) -> Session:
    text = resources.files(presets).joinpath(f"{PRESET}.toml").read_text(encoding="utf-8")
    return open_session(path, text, f"{PRESET}.toml", MatchSetup(), timeline=line,
                        boot=boot, wall=None, adopt_timeline=True)


def test_same_boot_keeps_the_timeline_and_the_running_clock(tmp_path: Path) -> None:
    real = FakeClock(1000 * NS_PER_S)
    line = Timeline(real=real)
    session = open_match(tmp_path / "M1.journal", line, "boot-a")
    session.recorder.command(Start(line.now()))
    real.now += 5 * NS_PER_S
    session.recorder.command(Goal(line.now(), Team.HOME))
    session.close()
    real.now += 60 * NS_PER_S  # the daemon was down a minute; the clock kept running
    again = open_match(tmp_path / "M1.journal", Timeline(real=real), "boot-a")
    assert not again.restored
    state = again.recorder.match.state
    assert state.clock.running
    assert state.clock.remaining(real.now) == (15 * 60 - 65) * NS_PER_S
    again.close()


def test_new_boot_stops_the_clock_at_the_last_journalled_instant(tmp_path: Path) -> None:
    real = FakeClock(1000 * NS_PER_S)
    line = Timeline(real=real)
    session = open_match(tmp_path / "M1.journal", line, "boot-a")
    session.recorder.command(Start(line.now()))
    real.now += 5 * NS_PER_S
    goal_at = line.now()
    session.recorder.command(Goal(goal_at, Team.HOME))
    session.close()

    real.now = 3 * NS_PER_S  # power loss: the new boot's monotonic clock starts again
    line_b = Timeline(real=real)
    restored = open_match(tmp_path / "M1.journal", line_b, "boot-b")
    assert restored.restored
    assert line_b.now() == goal_at  # "now" is the last journalled instant
    state = restored.recorder.match.state
    assert not state.clock.running
    assert state.clock.remaining(line_b.now()) == (15 * 60 - 5) * NS_PER_S
    stop = [r for r in restored.records if r.get("type") == "command"][-1]
    assert stop["command"] == {"do": "stop"} and stop["at"] == goal_at
    restored.close()

    real.now += 30 * NS_PER_S  # a crash in the new boot: same offset, still marked
    line_c = Timeline(real=real)
    again = open_match(tmp_path / "M1.journal", line_c, "boot-b")
    assert line_c.offset == line_b.offset and again.restored
    again.recorder.command(Start(line_c.now()))  # the timekeeper confirms by starting
    again.close()
    confirmed = open_match(tmp_path / "M1.journal", Timeline(real=real), "boot-b")
    assert not confirmed.restored
    confirmed.close()


def test_the_pointer_is_switched_atomically(tmp_path: Path) -> None:
    files = MatchFiles(tmp_path)
    assert files.current() is None
    files.journal("A1").write_text("")
    files.set_current("A1")
    assert files.current() == "A1"
    assert not list(tmp_path.glob(".*tmp"))
    (tmp_path / "current").write_text("../etc\n")
    assert files.current() is None
    with pytest.raises(ValueError):
        files.journal("../x")


def test_sd_notify_sends_datagrams_to_the_socket(tmp_path: Path) -> None:
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        notifier = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "4000000"})
        assert notifier.watchdog_ns == 2 * NS_PER_S
        notifier.ready("M1 P1 15:00 stopped 0-0")
        notifier.status("same")
        notifier.status("same")  # unchanged: not sent again
        notifier.watchdog()
        notifier.stopping()
        notifier.close()
        got = [sock.recv(4096).decode() for _ in range(4)]
    assert got == ["READY=1\nSTATUS=M1 P1 15:00 stopped 0-0", "STATUS=same", "WATCHDOG=1",
                   "STOPPING=1"]
    assert Notifier({}).watchdog_ns is None


def test_sd_notify_never_blocks_when_nobody_reads(tmp_path: Path) -> None:
    """The socket's queue holds about ten datagrams; the loop must not wait on systemd."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        notifier = Notifier({"NOTIFY_SOCKET": str(path)})
        done = threading.Event()

        def flood() -> None:
            for n in range(200):
                notifier.status(f"status {n}")
            done.set()

        worker = threading.Thread(target=flood, daemon=True)
        worker.start()
        assert done.wait(10), "sd_notify blocked on a full socket queue"
        notifier.close()


def test_display_mode_auto() -> None:
    assert resolve_display_mode("auto", {}, pi=True, dri=True) == "fullscreen"
    assert resolve_display_mode("auto", {"DISPLAY": ":0"}, pi=True, dri=True) == "windowed"
    assert resolve_display_mode("auto", {"WAYLAND_DISPLAY": "w"}, pi=False, dri=True) \
        == "windowed"
    assert resolve_display_mode("auto", {}, pi=False, dri=True) == "headless"
    assert resolve_display_mode("headless", {"DISPLAY": ":0"}, pi=True, dri=True) == "headless"


def test_status_text_and_steady_part() -> None:
    from arena.core.match import Match  # noqa: PLC0415
    from arena.core.state import state_document  # noqa: PLC0415

    match = Match(presets.load(PRESET), MatchSetup())
    match.apply(Start(0))
    doc = state_document(match, 61 * NS_PER_S + 1)
    assert status_text(doc, False) == "M1 P1 13:59 running 0-0"
    assert status_text(doc, True).endswith("CLOCK RESTORED - CHECK")
    later = state_document(match, 62 * NS_PER_S)
    assert steady_part(doc) == steady_part(later)  # only the clock moved
