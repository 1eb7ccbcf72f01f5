"""The rosters, end to end: the scorer's name from the tournament file's roster on the hall's
screen. The office reads the rosters from its tournament file and sends them in the hall's
``next`` (docs/developer.md 4.4); the hall loads them with the match, journals them with its setup,
and a goal by a rostered number has ``goal.name`` in the state document (docs/developer.md 4.3) for
the few seconds the scorer is shown, drawn on the screen by the real renderer (SDL's dummy
driver). A number not in the roster shows the number only; a restart names the scorers as
before it (the roster is in the journal, not asked of the office again).

Through the broker exactly as shipped (tests/conftest.py ``shipped_broker``); the hall
is the in-process daemon with the real ``HallLink`` on a fake clock, the office the real
``OfficeService`` in real time, so every wait for them is a bounded poll.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.core.units import NS_PER_S
from display._pygame import pygame
from display.items import Text
from display.layout import FrameInputs, layout
from display.render import render
from firmware_py.daemon import Daemon
from firmware_py.linkconfig import LinkConfig
from firmware_py.mqtt import HallLink
from firmware_py.parts import HallParts, OfficeLink, OnNext, OnStandings
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.display.imagediff import difference
from tests.fixtures import SHIPPED_USERS, Office, ShippedBroker, wait_for

pytestmark = pytest.mark.slow  # every test here starts a process

T = "roster-cup"
SIZE = (1920, 1080)
LIONS = ('{name = "Lions", colours = ["#10233f", "#ffffff"], '
         'roster = {9 = "Åsa Öberg", 10 = "B. Bright"}}')  # TOML: an inline table on one line
CUP = f"""
name = "Roster Cup"
id = "{T}"
preset = "floorball-2x15"

[[groups]]
name = "A"
teams = [{LIONS}, "Bears"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-a"
start = 2026-12-05T09:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "A2"
group = "A"
hall = "hall-a"
start = 2026-12-05T10:00:00
home = "Bears"
away = "Lions"
"""


def real_link(config: LinkConfig, on_next: OnNext, on_standings: OnStandings) -> OfficeLink:
    return HallParts().link(config, on_next, on_standings)


def hall_config(tmp_path: Path, port: int) -> str:
    secret = tmp_path / "hall-a-password"
    secret.write_text(SHIPPED_USERS["hall-a"] + "\n", encoding="utf-8")
    # The config's own first match is not the office's: the office's `next` replaces it.
    return f"""
[match]
preset = "floorball-2x15"
id = "WARMUP"
[mqtt]
broker = "mqtt://127.0.0.1:{port}"
tournament = "{T}"
hall = "hall-a"
username = "hall-a"
password_file = "{secret}"
"""


def pumped_until(hall: InProcessHall, daemon: Daemon, done: Callable[[], bool]) -> bool:
    """One slice of the hall's loop and of its link, then whether ``done`` holds."""
    link = daemon.link
    assert link is not None
    daemon.run_until(hall.time.now + NS_PER_S // 100)
    link.pump()
    return done()


def scored(hall: InProcessHall, daemon: Daemon, press: str, number: str) -> dict[str, Any]:
    """A goal typed at the table (GOAL, the number, ENTER); the state document a second
    after it, as the daemon draws it."""
    console = daemon.console
    assert console is not None
    at = hall.time.now + NS_PER_S
    console.button(press, at, True)
    console.button(press, at + 50_000_000, False)
    for key in (*number, "enter"):
        console.key(key, at + NS_PER_S // 2)
    daemon.run_until(at + NS_PER_S)
    return daemon.document(hall.time.now)


def drawn(doc: dict[str, Any]) -> pygame.Surface:
    return render(FrameInputs(doc, SIZE))


def region(picture: pygame.Surface, item: Any) -> pygame.Surface:
    x, y, w, h = item.rect
    return picture.subsurface(pygame.Rect(x, y, w, h)).copy()


def test_a_rostered_scorers_name_reaches_the_hall_screen_and_survives_a_restart(
        shipped_broker: ShippedBroker, tmp_path: Path) -> None:
    port = shipped_broker.port
    cup = tmp_path / "cup.toml"
    cup.write_text(CUP, encoding="utf-8")
    office = Office(port, tmp_path / "office.sqlite", cup, username="office",
                    password=SHIPPED_USERS["office"])
    hall = InProcessHall(tmp_path / "a", hall_config(tmp_path, port))
    try:
        daemon = hall.start(parts=TestParts(link_factory=real_link))
        wait_for(lambda: pumped_until(hall, daemon, lambda: daemon.match.setup.match_id == "A1"),
                 20, "the office's next (A1) loaded at hall-a")
        home = daemon.match.setup.home
        assert home.roster == ((9, "Åsa Öberg"), (10, "B. Bright"))
        assert daemon.match.setup.away.roster == ()  # Bears have no roster in the file
        console = daemon.console
        assert console is not None
        start = hall.time.now + NS_PER_S
        console.button("start_stop", start, True)
        console.button("start_stop", start + 50_000_000, False)
        daemon.run_until(start + 5 * NS_PER_S)

        named = scored(hall, daemon, "goal_home", "9")
        assert named["goal"] == {"team": "home", "player": 9, "name": "Åsa Öberg"}
        assert hall.frames[-1].doc["goal"] == named["goal"]  # what the board drew
        # The rendered screen: the name is drawn where the layout puts it, and nothing else
        # moves (the clock and the scores are the same pixels as without the name).
        frame = layout(named, SIZE)
        names = [i for i in frame.with_role("goal.home.name") if isinstance(i, Text)]
        assert [t.text for t in names] == ["ÅSA ÖBERG"]
        with_name = drawn(named)
        without = drawn({**named, "goal": {"team": "home", "player": 9}})
        assert difference(region(with_name, names[0]), region(without, names[0])
                          ).strong_share > 0.02
        for role in ("clock", "score.home", "score.away"):
            for item in frame.with_role(role):
                assert difference(region(with_name, item), region(without, item)
                                  ).strong_share == 0, role

        unnamed = scored(hall, daemon, "goal_home", "23")  # not on the roster
        assert unnamed["goal"] == {"team": "home", "player": 23}
        frame = layout(unnamed, SIZE)
        assert [t.text for t in frame.texts() if t.role == "goal.home.player"] == ["23"]
        assert not frame.with_role("goal.home.name")
        away = scored(hall, daemon, "goal_away", "9")  # the other side's #9: no name
        assert away["goal"] == {"team": "away", "player": 9}

        # A crash and a restart: the match comes back from its journal, roster and all.
        gone = daemon.link
        assert isinstance(gone, HallLink)
        hall.crash()
        # The dead process's connection goes with it (else its paho thread would take the
        # client id back from the new one, over and over).
        gone._client.disconnect()
        gone._client.loop_stop()
        hall.time.now += NS_PER_S
        daemon = hall.start(parts=TestParts(link_factory=real_link))
        # The office has A1's events: its retained `next` is A2 now, which waits for A1's
        # final. So the names after the restart can only have come from A1's journal.
        wait_for(lambda: pumped_until(hall, daemon, lambda: daemon.next_match.pending is not None),
                 20, "the office's retained next (A2) heard after the restart")
        assert daemon.next_match.pending is not None
        assert daemon.next_match.pending["match"] == "A2"
        assert daemon.match.setup.match_id == "A1" and daemon.match.state.seq > 0
        assert daemon.match.setup.home.roster == home.roster
        again = scored(hall, daemon, "goal_home", "10")
        assert again["goal"] == {"team": "home", "player": 10, "name": "B. Bright"}
        assert again["score"] == {"home": 3, "away": 1}
    finally:
        hall.stop()
        office.stop()
