"""Sizes follow the hall: the back row reads the clock, the scores, the period and the
running penalties' times (docs/technician.md, "The hall display").

A letter reads from 250 times its height; the layout gives those texts at least the
farthest seat's letter height where the screen allows, shows fewer of them rather than
shrinking them, and never lets anything overlap or leave the screen. Also here: penalty
kinds, waiting penalties, running versus stopped (on real pixels), the scorer after a goal
and the pregame facts.
"""

from __future__ import annotations

import copy
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena import words
from display import fonts
from display.hall import PROJECTOR, TV55, HallGeometry, parse_hall
from display.items import Frame, Text
from display.layout import LayoutOptions, layout
from display.screens.game import kind_label
from display.screens.gamesizing import KEY_ROLES
from tests.display import states
from tests.display.checks import problems

FAR_TV = HallGeometry(68.5, 40)  # the 40 m hall on a 55-inch TV: 16 cm letters
SCREENS = [((1920, 1080), TV55), ((1280, 720), TV55), ((1024, 768), TV55),
           ((1280, 800), PROJECTOR), ((1920, 1080), FAR_TV), ((1024, 768), FAR_TV)]


def frame_for(doc: dict[str, Any], size: tuple[int, int], hall: HallGeometry = TV55, *,
              between: dict[str, Any] | None = None, language: str = "en") -> Frame:
    return layout(doc, size, between=between, measure=fonts.measure,
                  options=LayoutOptions(hall=hall, language=language))


def key_texts(frame: Frame) -> list[Text]:
    return [t for t in frame.texts() if t.role in KEY_ROLES]


def times(frame: Frame, side: str | None = None) -> list[Text]:
    sides = (side,) if side else ("home", "away")
    return [t for t in frame.texts() if t.role in {f"penalty.{s}.time" for s in sides}]


# ------------------------------------------------------------------ the geometry


def test_the_letter_height_the_back_row_reads() -> None:
    """40 m needs 16 cm letters; on a 68.5 cm picture 1080 px tall that is 253 px."""
    assert FAR_TV.legible_px(1080) == 253  # 16 cm * 1080 / 68.5 = 252.3
    assert TV55.legible_px(1080) == 158  # 25 m: 10 cm
    assert PROJECTOR.legible_px(1080) == 87  # 16 cm on a 2 m picture: 8 %
    assert TV55.cm(335, 1080) == pytest.approx(21.2, abs=0.05)
    assert TV55.readable_from_m(158, 1080) == pytest.approx(25.05, abs=0.01)
    assert parse_hall("tv55") is TV55 and parse_hall("Projector") is PROJECTOR
    assert parse_hall("120@30") == HallGeometry(120, 30)
    for bad in ("big", "120", "x@30", "0@30", "120@0"):
        with pytest.raises(ValueError, match="hall"):
            parse_hall(bad)


# ------------------------------------------------------------------ generated states

KINDS = ["minor", "double_minor", "major", "misconduct", "game_misconduct", "match"]


@st.composite
def game_states(draw: st.DrawFn) -> dict[str, Any]:
    """A period or a break with up to three penalties a side of mixed kinds (running and
    waiting), names up to twenty characters, a goal just scored, the clock running or
    stopped, the stop-time window, time-outs, line changes, the extra player, an entry."""
    def penalties() -> list[dict[str, Any]]:
        count = draw(st.integers(0, 3))
        running = draw(st.integers(0, count))
        return [states.penalty(draw(st.integers(1, 99)), draw(st.integers(0, 1_200_000)),
                               kind=draw(st.sampled_from(KINDS)), running=i < running)
                for i in range(count)]

    doc = states.base(
        phase=draw(st.sampled_from(["period", "period", "overtime", "intermission",
                                    "pregame"])),
        period=draw(st.integers(1, 4)), clock_ms=draw(st.integers(0, 1_200_000)),
        running=draw(st.booleans()), stop_time=draw(st.booleans()),
        score={"home": draw(st.integers(0, 19)), "away": draw(st.integers(0, 19))},
        penalties={"home": penalties(), "away": penalties()},
        strength={"home": draw(st.integers(3, 5)), "away": draw(st.integers(3, 5))},
        shift_ms=draw(st.none() | st.integers(0, 90_000)),
        extra_player=draw(st.sampled_from([None, "home", "away"])),
        timeout=draw(st.none() | st.builds(dict, team=st.sampled_from(["home", "away"]),
                                           remaining_ms=st.integers(0, 60_000))),
        entry=draw(st.sampled_from([None, states.GAME["entry"]])),
    )
    if draw(st.booleans()):
        doc["goal"] = {"team": draw(st.sampled_from(["home", "away"])),
                       "player": draw(st.none() | st.integers(0, 99)),
                       "name": draw(st.none() | st.sampled_from(["R. Kalniņš", "M. Bērziņš",
                                                                 "Ö" * 30]))}
    return states.with_names(doc, draw(st.sampled_from(states.NAMES)),
                             draw(st.sampled_from(states.NAMES)))


# A short goal panel (taller names and rows for a 40 m hall on a break) with a scorer and his
# name: GOAL was set beside a number squeezed under the smallest size, reaching out of the
# panel (test_a_short_goal_panel_drops_the_name_not_the_number).
SHORT_GOAL = states.with_names(
    dict(states.base(phase="intermission", running=False),
         goal={"team": "home", "player": 0, "name": "R. Kalniņš"}), "LIO", "LIO")


@pytest.mark.parametrize("language", words.LANGUAGES)  # the longer Czech and Finnish words
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=game_states(), screen=st.sampled_from(SCREENS))
@example(doc=SHORT_GOAL, screen=((1920, 1080), FAR_TV))
def test_nothing_overlaps_or_leaves_the_screen_in_any_hall(
        language: str, doc: dict[str, Any], screen: tuple[tuple[int, int], HallGeometry]
) -> None:
    size, hall = screen
    frame = frame_for(doc, size, hall, language=language)
    assert problems(frame) == []
    assert len([t for t in frame.texts() if t.role == "clock"]) >= 4  # never dropped
    if frame.screen == "game" and doc["phase"] != "pregame":
        assert [t.text for t in frame.texts() if t.role == "period"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=game_states())
def test_running_penalty_times_are_at_least_8_percent_on_full_hd_in_the_default_hall(
        doc: dict[str, Any]) -> None:
    frame = frame_for(doc, (1920, 1080))
    shown = times(frame)
    running = {side: any(p["running"] for p in doc["penalties"][side]) for side in
               ("home", "away")}
    for side, any_running in running.items():
        if any_running and doc.get("goal", {}).get("team") != side:
            assert times(frame, side), side  # a running penalty always has its time up
    assert all(t.px_height >= 0.08 * 1080 for t in shown), shown


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=game_states(), screen=st.sampled_from(SCREENS))
def test_what_the_back_row_must_read_is_never_cut_short_to_show_more(
        doc: dict[str, Any], screen: tuple[tuple[int, int], HallGeometry]) -> None:
    """A side shows a second penalty only when the first's time keeps its size: the
    times of one side are all alike, and folding the rest into +N is preferred to
    shrinking them under the hall's letter height."""
    size, hall = screen
    frame = frame_for(doc, size, hall)
    for side in ("home", "away"):
        heights = {t.px_height for t in times(frame, side)}
        if len(times(frame, side)) > 1:
            assert min(heights) >= min(hall.legible_px(size[1]), max(heights)), heights


@pytest.mark.parametrize(("size", "hall"), SCREENS, ids=str)
def test_the_key_texts_reach_the_hall_where_the_screen_allows(
        size: tuple[int, int], hall: HallGeometry) -> None:
    """The clock, scores, period and penalty times of the reference game: at the legible
    size, or (where the screen has no room for that: a narrow column, a 4:3 band) as large
    as the screen allows, which --legibility reports as short."""
    need = hall.legible_px(size[1])
    frame = frame_for(states.GAME, size, hall)
    for t in key_texts(frame):
        if t.role.startswith(("clock", "score")):
            assert t.px_height >= min(need, 0.19 * size[1]), t  # 4:3 scores: 20 % bands
    if size == (1920, 1080):
        for t in key_texts(frame):
            if t.text != "10:00":  # five digits in a third of the width: 200 px at most
                assert t.px_height >= min(need, 253), t


def test_full_hd_in_the_default_hall_reads_from_the_back_row() -> None:
    """The measured screen (a 55-inch TV at 25 m, 10 cm letters): penalty times, period,
    clock and scores all at least 10 cm; before this they were 3.5 cm."""
    frame = frame_for(states.GAME, (1920, 1080))
    assert frame.variant == ""
    for t in key_texts(frame):
        assert TV55.cm(t.px_height, 1080) >= 10.0 - 0.05, t
    assert len(times(frame, "home")) == 2  # both running penalties of a 3 on 5


def test_a_far_hall_shows_fewer_things_bigger() -> None:
    """At 40 m on a 720p TV the standard screen cannot give the period and the penalties
    16 cm; the far one drops the quieter indicators and the second penalty instead of
    shrinking them."""
    standard = frame_for(states.GAME, (1280, 720))
    far = frame_for(states.GAME, (1280, 720), FAR_TV)
    assert standard.variant == "" and far.variant == "far"
    need = FAR_TV.legible_px(720)
    assert next(t for t in far.texts() if t.role == "period").px_height >= need
    assert len(times(far, "home")) == 1
    assert [t.text for t in far.texts() if t.role == "penalty.home.more"] == ["+2"]
    assert not far.with_role("strength") and not far.with_role("stop_time")
    assert standard.with_role("strength") and standard.with_role("stop_time")


# ------------------------------------------------------------------ penalties


def test_kinds_are_told_apart_and_waiting_penalties_count_as_plus_n() -> None:
    labels = {kind_label(k) for k in ("major", "misconduct", "game_misconduct", "match")}
    assert len(labels) == 4 and "" not in labels and kind_label("minor") == ""
    doc = states.base(penalties={
        "home": [states.penalty(4, 200_000, kind="major"),
                 states.penalty(5, 120_000, kind="misconduct", running=False),
                 states.penalty(6, 120_000, running=False)],
        "away": [states.penalty(9, 300_000, kind="game_misconduct"),
                 states.penalty(10, 300_000, kind="match")]})
    frame = frame_for(doc, (1920, 1080))
    shown = " ".join(t.text for t in frame.texts() if t.role.startswith("penalty."))
    for part in ("#4", "MAJ", "#9", "GM", "#10", "MP", "3:20", "5:00"):
        assert part in shown.split(), part
    assert [t.text for t in frame.texts() if t.role == "penalty.home.more"] == ["+2"]
    assert "#5" not in shown  # a waiting penalty has no time yet: only counted


# ------------------------------------------------------------------ running and stopped


def _render(doc: dict[str, Any], size: tuple[int, int] = (1280, 720)) -> Any:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from display.layout import FrameInputs  # noqa: PLC0415
    from display.render import render  # noqa: PLC0415

    return render(FrameInputs(doc, size))


def _colours(surface: Any, rect: tuple[int, int, int, int]) -> set[tuple[int, int, int]]:
    x, y, w, h = rect
    return {tuple(surface.get_at((x + i, y + j)))[:3]  # type: ignore[misc]
            for i in range(0, w, 3) for j in range(0, h, 3)}


@pytest.mark.parametrize("stop_time", [False, True], ids=["play", "stop-time-window"])
def test_running_and_stopped_differ_in_the_clocks_colour_and_a_stop_mark(
        stop_time: bool) -> None:
    from display import colour as pal  # noqa: PLC0415

    running = states.base(clock_ms=45_000 if stop_time else 600_000, stop_time=stop_time)
    stopped = dict(running, running=False)
    on, off = _render(running), _render(stopped)
    frame_on = layout(running, (1280, 720))
    frame_off = layout(stopped, (1280, 720))
    clock = next(t for t in frame_on.texts() if t.role == "clock").rect
    assert clock == next(t for t in frame_off.texts() if t.role == "clock").rect
    assert pal.CLOCK in _colours(on, clock) and pal.WHITE not in _colours(on, clock)
    assert pal.WHITE in _colours(off, clock) and pal.CLOCK not in _colours(off, clock)
    (box,) = frame_off.with_role("stopped.box")
    assert pal.STOP_BOX in _colours(off, box.rect)
    assert [t.text for t in frame_off.texts() if t.role == "stopped"] == ["STOP"]
    assert not frame_on.with_role("stopped.box")  # running: no red anywhere
    assert pal.STOP_BOX not in _colours(on, (0, 0, 1280, 720))
    if stop_time:  # the window's own mark stays, in amber: never taken for STOP
        assert [t.colour for t in frame_off.texts() if t.role == "stop_time"] == [pal.ALERT]


# ------------------------------------------------------------------ after a goal


@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_scorer_is_shown_and_the_clock_is_left_alone(size: tuple[int, int]) -> None:
    before = copy.deepcopy(states.GOAL)
    del before["goal"]
    with_goal = frame_for(states.GOAL, size)
    without = frame_for(before, size)
    assert [t.text for t in with_goal.texts() if t.role == "goal.home.player"] == ["19"]
    assert [t.text for t in with_goal.texts() if t.role == "goal.home.name"] == ["R. KALNIŅŠ"]
    clock = {i for i in with_goal.items if i.role == "clock"}
    assert clock and clock == {i for i in without.items if i.role == "clock"}
    assert times(with_goal, "away") == times(without, "away")  # the other side's penalties
    unnamed = dict(states.GOAL, goal={"team": "away", "player": 7})
    frame = frame_for(unnamed, size)
    assert [t.text for t in frame.texts() if t.role == "goal.away.player"] == ["7"]
    assert not frame.with_role("goal.away.name")  # no roster: the number only


# English words leave this hall's break rows shorter, and its goal panel tall enough.
@pytest.mark.parametrize("language", ["cs", "sr", "fi"])
def test_a_short_goal_panel_drops_the_name_not_the_number(language: str) -> None:
    """Where the panel has no room for GOAL, the number at the smallest size and the name,
    the name goes: the number keeps a readable size and nothing leaves the panel (Czech
    GÓL's accent made GOAL's line taller than the squeezed number's, once above the box)."""
    frame = frame_for(SHORT_GOAL, (1920, 1080), FAR_TV, language=language)
    assert problems(frame) == []
    box = frame.with_role("goal.home.box")[0].rect
    assert box[3] < 200  # the short panel this is about, not the default one
    shown = [t for t in frame.texts() if t.role.startswith("goal.home.")]
    for t in shown:
        assert box[1] <= t.rect[1] and t.rect[1] + t.rect[3] <= box[1] + box[3], t
    player = [t for t in shown if t.role == "goal.home.player"]
    assert [t.text for t in player] == ["0"]
    assert player[0].px_height >= math.ceil(0.04 * 1080)
    assert not frame.with_role("goal.home.name")


# ------------------------------------------------------------------ pregame


@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_pregame_shows_the_periods_the_start_and_who_is_suspended(
        size: tuple[int, int]) -> None:
    for between in (states.REFERENCE["pregame"][1], states.PREGAME_DATA):
        frame = frame_for(states.PREGAME, size, between=between)
        assert frame.screen == "between" and problems(frame) == []
        shown = " ".join(t.text for t in frame.texts())
        assert "2 PERIODS OF 20:00" in shown
        assert "14:30" in shown  # the office's scheduled start
        assert "LIONS #7" in shown and "#23" in shown
    alone = frame_for(states.PREGAME, size)  # no office, no schedule: the game screen
    assert [t.text for t in alone.texts() if t.role == "pregame.periods"] == ["2 \u00d7 20:00"]
    counting = dict(states.PREGAME, countdown={"label": "warm-up", "remaining_ms": 299_500})
    frame = frame_for(counting, size, between=states.PREGAME_DATA)
    assert "WARM-UP 5:00" in " ".join(t.text for t in frame.texts())


def test_the_daemon_passes_the_offices_suspensions_before_the_face_off() -> None:
    from arena import presets  # noqa: PLC0415
    from arena.core.match import Match  # noqa: PLC0415
    from arena.core.values import MatchSetup  # noqa: PLC0415
    from firmware_py.between import between_games  # noqa: PLC0415

    match = Match(presets.load("ice-hockey-2x20"), MatchSetup(match_id="A5"))
    loaded = {"scheduled": "2025-05-17T14:30", "suspended": [{"team": "away", "player": 23}]}
    data = between_games(match, 0, pending=None, loaded=loaded, standings={}, final_hold=0)
    assert data is not None
    assert data["next"]["time"] == "2025-05-17T14:30"
    assert data["next"]["suspended"] == [{"team": "away", "player": 23}]


# ------------------------------------------------------------------ --legibility


def test_snapshot_prints_every_texts_height_and_reading_distance(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json  # noqa: PLC0415

    from display.snapshot import main  # noqa: PLC0415

    path = tmp_path / "game.json"
    path.write_text(json.dumps(states.GAME), encoding="utf-8")
    assert main(["--state", str(path), "--legibility"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("game 1920x1080 (standard), hall 68.5 cm @ 25 m: the back row reads "
                      "10.0 cm (158 px)")
    rows = {line.split()[0]: line for line in out[2:]}
    assert rows["clock"].split()[1:] == ["48.4", "335", "21.2", "53.1", "m"]
    assert rows["period"].split()[1:] == ["2", "158", "10.0", "25.1", "m"]
    # 3 ON 5 must read from the back row too; this busy screen has no room to give it 10 cm
    assert "SHORT of the back row" in rows["strength"]
    assert "(not sized for it)" in rows["entry"]  # the timekeeper's line is for him
    why = [line for line in out if line.startswith("why: ")]
    assert any("name.home: 20 letters at 10.0 cm need" in line for line in why), why
    assert main(["--state", str(path), "--legibility", "--hall", "68.5@40", "--size",
                 "1024x768", "--out", str(tmp_path / "far.png")]) == 0
    out = capsys.readouterr().out
    assert "SHORT of the back row" in out and (tmp_path / "far.png").exists()
    assert main(["--state", str(path)]) == 2
    assert "--out FILE.png is needed" in capsys.readouterr().err


# ------------------------------------------------------------------ the free area


QUIET = states.base(period=3, clock_ms=754_000, running=False, score={"home": 1, "away": 0},
                    teams={"home": {"name": "Lions", "colours": ["#c8102e", "#ffffff"]},
                           "away": {"name": "Bears", "colours": ["#f2f2f2", "#2f64c4"]}},
                    penalties={"home": [states.penalty(17, 71_000)], "away": []},
                    strength={"home": 4, "away": 5})


def heights(frame: Frame, role: str) -> list[int]:
    return [t.px_height for t in frame.texts() if t.role == role]


def test_a_quiet_screen_gives_its_free_area_to_what_the_back_row_must_read() -> None:
    """One penalty and 4 ON 5 leave room on the 55-inch TV at 25 m (10 cm letters): short
    names grow to the back row's height; with a name too long for that, the bottom rows
    (the penalty's number, the strength, STOP) grow instead. The sized texts keep theirs,
    nothing is dropped for it, nothing overlaps."""
    size = (1920, 1080)
    need = TV55.legible_px(size[1])
    busy = frame_for(states.GAME, size)
    standard_row = max(heights(busy, "strength"))
    short_names = frame_for(QUIET, size)
    assert heights(short_names, "name.home") == heights(short_names, "name.away") == [need]
    long_name = frame_for(states.with_names(QUIET, "Crvena Zvezda Beograd", "Bears"), size)
    for role in ("strength", "penalty.home.player", "stopped"):
        assert min(heights(long_name, role)) > standard_row, role
    for frame in (short_names, long_name):
        assert problems(frame) == []
        assert len(times(frame, "home")) == 1 and frame.with_role("strength")
        assert min(heights(frame, "penalty.home.time")) >= need


def test_the_free_area_is_not_bought_by_dropping_what_a_busy_screen_shows() -> None:
    """Two running penalties a side and the indicators fill the bottom zone: the rows keep
    the standard size rather than fold a penalty away to grow."""
    frame = frame_for(states.GAME, (1920, 1080))
    assert len(times(frame, "home")) == 2
    assert frame.with_role("strength") and frame.with_role("stop_time")
    assert any("short of the seat" in note for note in frame.notes)
