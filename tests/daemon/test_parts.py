"""The daemon's small parts, in-process: clock mapping, timeline recovery, pointer,
sd_notify, key map, display mode."""

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
from display.keyboard import _BUTTONS, ButtonEdge, Keyboard, KeypadKey
from firmware_py.cli import KEY_MAP_HELP
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


def test_the_help_shows_the_keyboard_map_the_code_has() -> None:
    names = {"start_stop": "START/STOP", "horn": "HORN", "goal_home": "GOAL HOME",
             "goal_away": "GOAL AWAY", "penalty_home": "PENALTY HOME",
             "penalty_away": "PENALTY AWAY", "timeout_home": "TIME-OUT HOME",
             "timeout_away": "TIME-OUT AWAY", "next": "NEXT", "undo": "UNDO",
             "shot_home": "SHOT HOME", "shot_away": "SHOT AWAY", "set_clock": "SET CLOCK",
             "end": "END", "forfeit_home": "FORFEIT HOME", "forfeit_away": "FORFEIT AWAY",
             "cancel": "CANCEL/CORRECT", "menu": "MENU", "schedule": "NEXT MATCH"}
    from display._pygame import pygame  # noqa: PLC0415

    for key, (plain, shifted) in _BUTTONS.items():
        label = pygame.key.name(key).upper() if key != pygame.K_SPACE else "Space"
        line = next(line for line in KEY_MAP_HELP.splitlines()
                    if line.strip().startswith(label + " "))
        assert names[plain] in line and names[shifted] in line


def test_keyboard_edges_and_keypad(monkeypatch: pytest.MonkeyPatch) -> None:
    from display._pygame import pygame  # noqa: PLC0415

    events = [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_g, mod=pygame.KMOD_LSHIFT),
              pygame.event.Event(pygame.KEYUP, key=pygame.K_g, mod=0),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP7, mod=0),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0)]
    monkeypatch.setattr(pygame.event, "get", lambda: events)
    assert Keyboard(buttons=True).poll() == [ButtonEdge("goal_away", True),
                                             ButtonEdge("goal_away", False), KeypadKey("7"),
                                             KeypadKey("enter")]
    assert Keyboard(buttons=False).poll() == [KeypadKey("7"), KeypadKey("enter")]


def test_every_console_action_has_a_key_and_the_numeric_keypad_reaches_the_menu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from display._pygame import pygame  # noqa: PLC0415
    from hardware.console import ACTIONS  # noqa: PLC0415

    assert {a for pair in _BUTTONS.values() for a in pair} == set(ACTIONS)
    events = [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_PLUS, mod=0),
              pygame.event.Event(pygame.KEYUP, key=pygame.K_KP_PLUS, mod=0),
              pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_PERIOD, mod=0)]
    monkeypatch.setattr(pygame.event, "get", lambda: events)
    # Not windowed: the letters are no buttons, but the keypad's own + is MENU.
    assert Keyboard(buttons=False).poll() == [ButtonEdge("menu", True),
                                              ButtonEdge("menu", False), KeypadKey("dot")]


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
