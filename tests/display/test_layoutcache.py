"""The remembered layout (display/layoutcache.py) never shows a stale frame: for generated
sequences of documents (penalties appearing and running out, a goal's overlay, the period
and phase changing, a time-out, the line change, the operator line) each frame the cached
renderer draws equals, item for item and pixel for pixel, a fresh layout drawn from
scratch; and a tenths frame lays out and repaints only the clock's changed digit."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from display import fonts
from display._pygame import pygame
from display.layout import FrameInputs, LayoutOptions, layout_inputs
from display.layoutcache import LayoutCache
from display.render import Renderer
from tests.display import states

SIZE = (640, 360)  # small: many frames; the layout is the same function at every size
OPTIONS = LayoutOptions()

penalties = st.lists(st.builds(
    states.penalty, st.integers(1, 99), st.integers(-500, 700_000),
    kind=st.sampled_from(["minor", "double_minor", "major", "misconduct"]),
    running=st.booleans()), max_size=4)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A state document near the one before: the clock at any value, often a tenth apart."""
    doc = states.base(
        phase=draw(st.sampled_from(["period", "period", "pregame", "intermission",
                                    "overtime", "overtime_break", "shootout", "final"])),
        period=draw(st.integers(1, 3)),
        clock_ms=draw(st.one_of(st.integers(0, 1_200_000), st.sampled_from(
            [59_999, 59_950, 59_900, 60_000, 600_000, 599_001, 0, 100]))),
        running=draw(st.booleans()),
        stop_time=draw(st.booleans()),
        score={"home": draw(st.integers(0, 12)), "away": draw(st.integers(0, 12))},
        penalties={"home": draw(penalties), "away": draw(penalties)},
        shift_ms=draw(st.one_of(st.none(), st.integers(-300, 60_000))),
        timeout=draw(st.one_of(st.none(), st.fixed_dictionaries({
            "team": st.sampled_from(["home", "away"]),
            "remaining_ms": st.integers(0, 30_000)}))),
        goal=draw(st.one_of(st.none(), st.fixed_dictionaries({
            "team": st.sampled_from(["home", "away"]), "player": st.integers(1, 99)}))),
        extra_player=draw(st.sampled_from([None, "home", "away"])),
    )
    if doc["phase"] == "shootout":
        doc["shootout"] = {"home": [True, False], "away": [False], "next": "away"}
    if doc["phase"] == "final":
        doc["result"] = {"home": 2, "away": 1, "decided_by": "regulation"}
    return doc


statuses = st.one_of(st.none(), st.fixed_dictionaries({
    "restored": st.booleans(), "office_online": st.sampled_from([None, True, False]),
    "feedback": st.one_of(st.none(), st.fixed_dictionaries({
        "text": st.just("GOAL HOME #12 OK"), "accepted": st.booleans()}))}))


def ticking(doc: dict[str, Any], steps: int) -> list[dict[str, Any]]:
    """``doc`` a tenth later, ``steps`` times: the clock and every countdown run."""
    out = []
    for _ in range(steps):
        doc = copy.deepcopy(doc)
        doc["clock_ms"] = max(0, doc["clock_ms"] - 100)
        for side in ("home", "away"):
            for p in doc["penalties"][side]:
                p["remaining_ms"] -= 100 if p["running"] else 0
        if doc["shift_ms"] is not None:
            doc["shift_ms"] -= 100
        out.append(doc)
    return out


def pixels(surface: pygame.Surface) -> bytes:
    return pygame.image.tobytes(surface, "RGB")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(documents(), statuses, st.integers(0, 12)), min_size=1,
                max_size=4))
def test_a_cached_frame_equals_a_fresh_one_item_for_item(
        runs: list[tuple[dict[str, Any], dict[str, Any] | None, int]]) -> None:
    cache = LayoutCache(fonts.measure)
    for doc, status, steps in runs:
        for shown in [doc, *ticking(doc, steps)]:
            inputs = FrameInputs(shown, SIZE, None, status, OPTIONS)
            assert cache.layout(inputs) == layout_inputs(inputs, fonts.measure), shown


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(documents(), statuses, st.integers(0, 4)), min_size=1,
                max_size=3))
def test_a_cached_render_equals_an_uncached_one_pixel_for_pixel(
        runs: list[tuple[dict[str, Any], dict[str, Any] | None, int]]) -> None:
    cached = Renderer(SIZE)  # its layouts remembered, only the changes drawn
    for doc, status, steps in runs:
        for shown in [doc, *ticking(doc, steps)]:
            inputs = FrameInputs(shown, SIZE, None, status, OPTIONS)
            fresh = Renderer(SIZE)
            fresh.draw(layout_inputs(inputs, fonts.measure))
            assert pixels(cached.render(inputs)) == pixels(fresh.surface), shown


def last_minute(**changes: Any) -> dict[str, Any]:
    return states.base(**{"clock_ms": 48_321, "penalties": {
        "home": [states.penalty(8, 83_400)], "away": []}, **changes})


def test_a_tenths_frame_is_laid_out_from_memory_and_repaints_only_the_clock_digit() -> None:
    renderer = Renderer(SIZE)
    renderer.render(FrameInputs(last_minute(), SIZE))  # 48.4
    # A tenth later: the clock reads 48.3 and the penalty still 1:24 (83.3 s, rounded up).
    after = FrameInputs(last_minute(clock_ms=48_221, penalties={
        "home": [states.penalty(8, 83_300)], "away": []}), SIZE)
    hits = renderer.layouts.stats.hits
    renderer.render(after)
    assert renderer.layouts.stats.hits == hits + 1
    frame = layout_inputs(after, fonts.measure)
    (digit,) = [t for t in frame.texts() if t.role == "clock" and t.text == "3"]
    assert renderer.last_dirty == [digit.rect]


def test_what_changes_the_layout_misses_the_cache() -> None:
    """A penalty appearing, a goal's overlay, the period, the phase, the operator line, a
    penalty's shown second: each is a new layout, never the remembered one."""
    cache = LayoutCache(fonts.measure)
    first = FrameInputs(last_minute(), SIZE)
    cache.layout(first)
    changed = [
        last_minute(penalties={"home": [states.penalty(8, 83_400)],
                               "away": [states.penalty(4, 120_000)]}),
        last_minute(goal={"team": "home", "player": 17}),
        last_minute(period=2),
        last_minute(phase="intermission"),
        last_minute(penalties={"home": [states.penalty(8, 82_900)], "away": []}),
        last_minute(running=False),
    ]
    for doc in changed:
        misses = cache.stats.misses
        cache.layout(FrameInputs(doc, SIZE))
        assert cache.stats.misses == misses + 1, doc
    misses = cache.stats.misses
    cache.layout(FrameInputs(last_minute(), SIZE, status={"restored": True}))
    assert cache.stats.misses == misses + 1
    # An extra key the display does not read is not part of the key.
    cache.layout(FrameInputs(dict(last_minute(), restored=True), SIZE))
    assert cache.stats.misses == misses + 1
