"""The game screen remembers which arrangement its search chose (display/screens/gamesizing.py,
``decisive`` and ``CHOICES``): for generated sequences of states, the clock and every
countdown ticking by whole seconds, penalties appearing, on standard and far halls, at
16:9 and 4:3, the screen laid out from the remembered choice equals a fresh search's, item
for item, with the same variant and notes; and a penalty running out its two minutes
searches only when its time changes shape, not every second."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from display import fonts
from display.hall import TV55, HallGeometry
from display.layout import LayoutOptions, read_views
from display.screens.common import Canvas
from display.screens.gamesizing import (
    CHOICES,
    GameLayout,
    _notes,
    decisive,
    game_screen,
    search,
)
from tests.display import states

FAR_TV = HallGeometry(68.5, 40)  # 16 cm letters: the far arrangement and grown rows
NEAR = HallGeometry(68.5, 10)  # nothing to grow for
SIZES = [(1920, 1080), (1024, 768), (1280, 720)]

penalties = st.lists(st.builds(
    states.penalty, st.integers(1, 99), st.integers(-500, 700_000),
    kind=st.sampled_from(["minor", "double_minor", "major", "misconduct"]),
    running=st.booleans()), max_size=4)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    return states.base(
        phase=draw(st.sampled_from(["period", "period", "pregame", "intermission",
                                    "overtime"])),
        clock_ms=draw(st.one_of(st.integers(0, 1_200_000),
                                st.sampled_from([60_500, 600_400, 10_200, 0]))),
        running=draw(st.booleans()),
        stop_time=draw(st.booleans()),
        teams={"home": {"name": draw(st.sampled_from(states.NAMES)),
                        "colours": ["#c8102e", "#ffffff"]},
               "away": {"name": draw(st.sampled_from(states.NAMES)),
                        "colours": ["#f2f2f2", "#10233f"]}},
        penalties={"home": draw(penalties), "away": draw(penalties)},
        strength=draw(st.sampled_from([{"home": 5, "away": 5}, {"home": 3, "away": 5}])),
        # across 10 s and 1:00 (a digit fewer), and through zero
        shift_ms=draw(st.one_of(st.none(), st.integers(-300, 61_000))),
        timeout=draw(st.one_of(st.none(), st.fixed_dictionaries({
            "team": st.sampled_from(["home", "away"]),
            "remaining_ms": st.integers(0, 61_000)}))),
        goal=draw(st.one_of(st.none(), st.fixed_dictionaries({
            "team": st.sampled_from(["home", "away"]), "player": st.integers(1, 99)}))),
        extra_player=draw(st.sampled_from([None, "home", "away"])),
    )


# What changes between the runs of one match: a penalty, a goal, a time-out, the line change
# (the rest of the document stays, so a key missing any of these would be found out).
changes = st.lists(st.one_of(
    st.fixed_dictionaries({"penalties": st.fixed_dictionaries(
        {"home": penalties, "away": penalties})}),
    st.fixed_dictionaries({"goal": st.one_of(st.none(), st.fixed_dictionaries({
        "team": st.sampled_from(["home", "away"]), "player": st.integers(1, 99)}))}),
    st.fixed_dictionaries({"timeout": st.one_of(st.none(), st.fixed_dictionaries({
        "team": st.sampled_from(["home", "away"]),
        "remaining_ms": st.integers(0, 61_000)}))}),
    st.fixed_dictionaries({"shift_ms": st.one_of(st.none(), st.integers(-300, 61_000))}),
    st.fixed_dictionaries({"running": st.booleans(), "stop_time": st.booleans()}),
    st.fixed_dictionaries({"extra_player": st.sampled_from([None, "home", "away"])}),
), max_size=3)


def seconds_later(doc: dict[str, Any], steps: int) -> list[dict[str, Any]]:
    """``doc`` a second later, ``steps`` times: the clock and every countdown run."""
    out = []
    for _ in range(steps):
        doc = copy.deepcopy(doc)
        doc["clock_ms"] = max(0, doc["clock_ms"] - 1000)
        for side in ("home", "away"):
            for p in doc["penalties"][side]:
                p["remaining_ms"] -= 1000 if p["running"] else 0
        if doc["shift_ms"] is not None:
            doc["shift_ms"] -= 1000
        if doc["timeout"] is not None:
            doc["timeout"]["remaining_ms"] = max(0, doc["timeout"]["remaining_ms"] - 1000)
        out.append(doc)
    return out


def fresh(canvas: Canvas, doc: dict[str, Any]) -> GameLayout:
    """The game screen as a search from nothing gives it."""
    views = read_views(doc)
    chosen, items = search(canvas, views.state, views.status)
    return GameLayout(items, "far" if chosen.far else "",
                      _notes(canvas, views.state, items, dict(chosen.wanted)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.lists(st.tuples(changes, st.integers(1, 12)), min_size=1, max_size=4),
       st.sampled_from(SIZES), st.sampled_from([TV55, FAR_TV, NEAR]))
def test_the_remembered_choice_lays_out_what_a_fresh_search_does(
        first: dict[str, Any], runs: list[tuple[list[dict[str, Any]], int]],
        size: tuple[int, int], hall: HallGeometry) -> None:
    canvas = Canvas(*size, fonts.measure, LayoutOptions(hall=hall))
    CHOICES.forget()
    hits = CHOICES.hits
    shown, seen, again = 0, set(), 0
    doc = first  # each run the one before, changed and a few seconds on
    for changed, steps in runs:
        for change in changed:
            doc = {**doc, **copy.deepcopy(change)}
        for state in [doc, *seconds_later(doc, steps)]:
            views = read_views(state)
            key = decisive(canvas, views.state, views.status)
            again += key in seen
            seen.add(key)
            assert game_screen(canvas, views.state, views.status) == fresh(canvas, state), state
            assert search(canvas, views.state, views.status)[0] == CHOICES.recall(key), state
            shown += 1
    # Laid out from memory whenever the key was seen before (and each recalled once more
    # above for the comparison): the equality above held for remembered choices.
    assert CHOICES.hits - hits == shown + again


def test_a_penalty_running_out_searches_when_its_time_changes_shape_only() -> None:
    """Two minutes of a minor, second by second, on the far hall: 2:00 to 0:00 is one shape
    ("0:00"), so one search, each second after it laid out from the remembered choice; the
    penalty gone (the core drops it), another."""
    canvas = Canvas(1920, 1080, fonts.measure, LayoutOptions(hall=FAR_TV))
    CHOICES.forget()
    doc = states.base(clock_ms=900_000, penalties={"home": [], "away": [
        states.penalty(12, 120_000)]})
    misses = CHOICES.misses
    for state in [doc, *seconds_later(doc, 120)]:
        views = read_views(state)
        game_screen(canvas, views.state, views.status)
    assert CHOICES.misses - misses == 1
    views = read_views(states.base(clock_ms=780_000))
    game_screen(canvas, views.state, views.status)
    assert CHOICES.misses - misses == 2


def test_what_the_search_reads_is_in_the_key() -> None:
    """A new penalty, a time a digit longer, a name, a time-out starting, the hall: each
    is a new key (a search), never the remembered choice."""
    canvas = Canvas(1920, 1080, fonts.measure, LayoutOptions(hall=FAR_TV))
    doc = states.base(penalties={"home": [states.penalty(8, 83_400)], "away": []})
    changed = [
        states.base(penalties={"home": [states.penalty(8, 83_400)],
                               "away": [states.penalty(4, 120_000)]}),
        states.base(penalties={"home": [states.penalty(8, 603_400)], "away": []}),
        states.base(penalties={"home": [states.penalty(8, 83_400)], "away": []},
                    teams={"home": {"name": "LIO", "colours": ["#c8102e", "#ffffff"]},
                           "away": {"name": "Lions", "colours": ["#f2f2f2", "#10233f"]}}),
        states.base(penalties={"home": [states.penalty(8, 83_400)], "away": []},
                    timeout={"team": "home", "remaining_ms": 30_000}),
    ]
    base = read_views(doc)
    key = decisive(canvas, base.state, base.status)
    for other in changed:
        views = read_views(other)
        assert decisive(canvas, views.state, views.status) != key, other
    near = Canvas(1920, 1080, fonts.measure, LayoutOptions(hall=TV55))
    assert decisive(near, base.state, base.status) != key
    # and a second later (the penalty's and the clock's digits only) it is the same key
    later = read_views(seconds_later(doc, 1)[0])
    assert decisive(canvas, later.state, later.status) == key
