"""The match day on a whole board (docs/timekeeper.md, "The match day"): a scheduled
match's pregame on the hall display (resurfacing, the warm-up with its horn, the start countdown)
and the timekeeper's schedule line on the operator view, never applied by itself.

In-process halls on a fake clock (tests/daemon/inprocess.py) whose wall clock is set, so
the local schedule's start maps onto the match timeline; the horn is the real relay on
gpiozero's MockFactory, and ``LoopHorn`` records the instant of every switch.
"""

from __future__ import annotations

import json
import urllib.request
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from arena.timesource import FakeClock
from firmware_py.daemon import Daemon
from firmware_py.matchday import MatchDay, Scheduled, wall_seconds
from firmware_py.operatorweb import body_html
from tests.daemon.inprocess import Frame, InProcessHall

S = NS_PER_S
MIN = 60 * S

YOUTH = """
name = "Ice Cup"
id = "ice-cup"
preset = "youth-hockey-3x18"

[[groups]]
name = "A"
teams = ["Lions", "Bears", "Wolves"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-1"
start = 2026-12-05T08:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "A2"
group = "A"
hall = "hall-1"
start = 2026-12-05T09:30:00
home = "Bears"
away = "Wolves"

[[matches]]
id = "A3"
group = "A"
hall = "hall-1"
start = 2026-12-05T11:00:00
home = "Wolves"
away = "Lions"
"""

FOOTBALL = YOUTH.replace('"youth-hockey-3x18"', '"football-p08"').replace(
    "09:30:00", "08:30:00")


def hall_at(tmp_path: Path, tournament: str, wall: str, extra: str = "") -> InProcessHall:
    """A hall playing ``tournament`` from its local schedule, its wall clock at ``wall``
    (local time) when the fake monotonic clock starts, and synchronised."""
    path = tmp_path / "tournament.toml"
    path.write_text(tournament, encoding="utf-8")
    epoch = datetime.fromisoformat(wall).timestamp()
    clock = FakeClock(wall=epoch)
    config = f'[schedule]\nfile = "{path}"\nhall = "hall-1"\n{extra}'
    return InProcessHall(tmp_path, config, time=clock)


def countdown(frame: Frame) -> dict[str, Any] | None:
    return frame.doc.get("countdown")


def test_rules_002_pregame_resurfacing_warm_up_horn_then_start_on_the_hall_display(
        tmp_path: Path) -> None:
    """Rules 002 'Match format': the ice is resurfaced before the warm-up; the warm-up
    starts at T-15 min and lasts 10 min. The horn ends it at its exact instant (the
    preset's choice, cited), then the display counts down to the scheduled start."""
    hall = hall_at(tmp_path, YOUTH, "2026-12-05T07:30")
    daemon = hall.start()
    origin = hall.time.now
    start = origin + 30 * MIN  # 08:00
    try:
        assert daemon.match.setup.match_id == "A1"
        daemon.run_until(origin + 4 * MIN)
        assert countdown(hall.frames[-1]) is None  # 07:34: today's pregame
        daemon.run_until(start + 10 * S)
        frames = [f for f in hall.frames if f.at >= origin]
        labels: list[str] = []
        for frame in frames:
            shown = countdown(frame)
            label = None if shown is None else shown["label"]
            if label is not None and (not labels or labels[-1] != label):
                labels.append(label)
        assert labels == ["resurfacing", "warm-up", "start in"]

        def first(label: str) -> Frame:
            return next(f for f in frames if (countdown(f) or {}).get("label") == label)

        resurfacing, warmup, start_in = first("resurfacing"), first("warm-up"), first("start in")
        assert resurfacing.at == start - 25 * MIN  # 07:35: 10 min before the warm-up
        assert countdown(resurfacing) == {"label": "resurfacing", "remaining_ms": 600_000}
        assert warmup.at == start - 15 * MIN  # T-15 min
        assert countdown(warmup) == {"label": "warm-up", "remaining_ms": 600_000}
        assert start_in.at == start - 5 * MIN  # the warm-up lasted 10 min
        assert countdown(start_in) == {"label": "start in", "remaining_ms": 300_000}
        # Every second of the countdown is a frame of its own, at the instant it changes.
        during = [f.at for f in frames if start - 15 * MIN <= f.at < start - 14 * MIN]
        assert during == [start - 15 * MIN + k * S for k in range(60)]
        # The warm-up's horn: on at its end exactly, off after the preset's end horn (2 s).
        assert hall.horn.switched == [(start - 5 * MIN, True), (start - 5 * MIN + 2 * S, False)]
        assert start_in.doc["horn"] is True
        # The scheduled start passes without a press: the board waits, as today.
        assert countdown(hall.frames[-1]) is None
        assert daemon.match.state.phase is Phase.PREGAME
        between = hall.frames[-1].between
        assert between is not None and between["next"]["time"] == "2026-12-05T08:00"
    finally:
        hall.stop()


def test_without_a_synchronised_wall_clock_the_pregame_is_todays(tmp_path: Path) -> None:
    """The wall clock may be years off before it is synchronised (a Pi has no battery
    clock): then nothing is counted down and no warm-up horn sounds."""
    path = tmp_path / "tournament.toml"
    path.write_text(YOUTH, encoding="utf-8")
    hall = InProcessHall(tmp_path, f'[schedule]\nfile = "{path}"\nhall = "hall-1"\n')
    daemon = hall.start()
    try:
        daemon.run_until(hall.time.now + 40 * MIN)
        assert all(countdown(f) is None for f in hall.frames)
        assert hall.horn.switched == []
        assert daemon.match.pregame is None
    finally:
        hall.stop()


def operator_view(daemon: Daemon) -> dict[str, Any]:
    assert daemon.operator_web is not None
    with urllib.request.urlopen(daemon.operator_web.url("/operator.json"), timeout=5) as reply:
        doc: dict[str, Any] = json.loads(reply.read())
    return doc


def test_rules_003_the_timekeeper_sees_how_late_the_hall_runs_and_nothing_is_applied(
        tmp_path: Path) -> None:
    """Rules 003 'Match officials': referees may shorten the playing time to keep the
    schedule. A1 (1 x 25 min) at 08:00, A2 at 08:30: at 08:10, not started, the hall is 5
    minutes behind and one period of 20:00 would bring it back. The line follows the
    time; the board's clock is never touched."""
    served = '[operator]\nport = 0\nbind = "127.0.0.1"\n'
    hall = hall_at(tmp_path, FOOTBALL, "2026-12-05T08:10", served)
    daemon = hall.start()
    origin = hall.time.now
    try:
        daemon.run_until(origin)
        schedule = operator_view(daemon)["schedule"]
        assert schedule["text"] == ("BEHIND SCHEDULE BY 5:00: 1 PERIOD OF 20:00 WOULD BRING "
                                    "IT BACK (THE REFEREE DECIDES)")
        assert schedule["behind_ms"] == 5 * 60_000
        assert (schedule["periods"], schedule["period_ms"]) == (1, 20 * 60_000)
        daemon.run_until(origin + 3 * MIN)  # nothing pressed: the view moves on by itself
        schedule = operator_view(daemon)["schedule"]
        assert schedule["text"] == ("BEHIND SCHEDULE BY 8:00: 1 PERIOD OF 17:00 WOULD BRING "
                                    "IT BACK (THE REFEREE DECIDES)")
        # Never applied: the board's period is still the preset's 25:00, in pregame.
        assert daemon.match.state.phase is Phase.PREGAME
        assert daemon.match.state.clock.remaining(hall.time.now) == 25 * MIN
        assert hall.frames[-1].doc["clock_ms"] == 25 * 60_000
        assert daemon.match.state.seq == 0  # not one event: no set_clock, no end
    finally:
        hall.stop()


HOCKEY_NEXT = {"match": "A7", "preset": "ice-hockey-2x20", "stage": "group",
               "scheduled": "2026-12-05T08:00",
               "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                         "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}}}
OFFICE = '[mqtt]\nbroker = "mqtt://127.0.0.1:1"\ntournament = "T1"\nhall = "H1"\n'


def office_hall(tmp_path: Path, wall: str) -> InProcessHall:
    epoch = datetime.fromisoformat(wall).timestamp()
    clock = FakeClock(wall=epoch)
    return InProcessHall(tmp_path, OFFICE, time=clock)


def test_rules_000_the_offices_next_counts_to_the_teams_deadline_and_survives_a_restart(
        tmp_path: Path) -> None:
    """Rules 000 'Rules': the team must be ready to come on ice 5 minutes before the start;
    a game takes at most 50 minutes including the warm-up, so with only the office (one
    match at a time) the slot says when the hall is due. After a restart the office's
    retained `next` of the match on the board brings its scheduled time back."""
    hall = office_hall(tmp_path, "2026-12-05T07:30")
    daemon = hall.start()
    origin = hall.time.now
    start = origin + 30 * MIN
    try:
        hall.link.offer_next(dict(HOCKEY_NEXT))
        daemon.run_until(origin + S)
        assert daemon.match.setup.match_id == "A7"
        assert countdown(hall.frames[-1]) == {"label": "teams ready in",
                                              "remaining_ms": 24 * 60_000 + 59_000}
        daemon.run_until(start - 5 * MIN)
        assert countdown(hall.frames[-1]) == {"label": "start in", "remaining_ms": 300_000}
        assert hall.horn.switched == []  # no warm-up horn in rules 000
        # 08:10, not started: 2 x 20 and a 1 min break end at 08:51, one minute after the
        # slot; two periods of 19:30 would bring it back (never applied).
        daemon.run_until(start + 10 * MIN)
        view = daemon.schedule_view(hall.time.now)
        assert view is not None and view["text"] == (
            "BEHIND SCHEDULE BY 1:00: 2 PERIODS OF 19:30 WOULD BRING IT BACK (THE REFEREE "
            "DECIDES)")
    finally:
        hall.crash()
    daemon = hall.start()
    try:
        daemon.run_until(hall.time.now + S)
        assert daemon.match.setup.match_id == "A7" and daemon.match.pregame is None
        hall.link.offer_next(dict(HOCKEY_NEXT))  # the retained `next`, again on connecting
        daemon.run_until(hall.time.now + S)
        assert daemon.match.pregame is not None and daemon.match.pregame.start == start
        view = daemon.schedule_view(hall.time.now)
        assert view is not None and view["text"].startswith("BEHIND SCHEDULE BY 1:02")
    finally:
        hall.stop()


# ------------------------------------------------------------------ pure: the mapping, the view


def test_a_scheduled_time_is_mapped_once_and_a_bad_one_is_no_schedule() -> None:
    day = MatchDay()
    epoch = datetime.fromisoformat("2026-12-05T07:30").timestamp()
    doc = {"match": "A1", "scheduled": "2026-12-05T08:00"}
    assert day.scheduled("A1", doc, None, now=5 * S, wall=None) is None  # not synchronised
    got = day.scheduled("A1", doc, "2026-12-05T09:30", now=5 * S, wall=lambda: epoch)
    assert got == Scheduled("A1", 5 * S + 30 * MIN, 5 * S + 120 * MIN)
    # Kept: a wall clock read later (or stepped) does not move the instants.
    assert day.scheduled("A1", doc, "2026-12-05T09:30", now=9 * S,
                         wall=lambda: epoch + 100) == got
    assert day.scheduled("A2", doc, None, now=5 * S, wall=lambda: epoch) is None  # another's
    assert wall_seconds("at eight") is None and wall_seconds(None) is None
    assert day.scheduled("A1", {"match": "A1", "scheduled": "soon"}, None, now=0,
                         wall=lambda: epoch) is None
    # --time-scale 60: a wall-clock minute is an hour of match time.
    fast = MatchDay().scheduled("A1", doc, None, now=0, wall=lambda: epoch,
                                scale=Fraction(60))
    assert fast is not None and fast.start == 30 * 60 * MIN


def test_the_schedule_line_is_on_the_operator_page_and_window() -> None:
    from display.operatorwindow import operator_lines  # noqa: PLC0415 - loads pygame

    line = {"behind_ms": 720_000, "periods": 3, "period_ms": 660_000, "clock_ms": None,
            "text": "BEHIND SCHEDULE BY 12:00: 3 PERIODS OF 11:00 WOULD BRING IT BACK"}
    view = {"match": "A1", "teams": {"home": "Lions", "away": "Bears"}, "schedule": line}
    assert ('<p id="schedule" class="late">BEHIND SCHEDULE BY 12:00: 3 PERIODS OF 11:00'
            in body_html(view))
    assert "schedule" not in body_html({**view, "schedule": None})
    assert any(ln.text == line["text"] for ln in operator_lines(view))
