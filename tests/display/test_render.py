"""Rendering: only what changed is redrawn, rendered text is cached, pixels stay in their
rectangles, and the result equals a full redraw."""

from __future__ import annotations

import copy

import pytest

from display import fonts
from display._pygame import pygame
from display.items import Frame, contains
from display.layout import FrameInputs, layout
from display.render import Renderer, merge, render
from tests.display import states
from tests.display.imagediff import difference

SIZE = (1280, 720)
MAGENTA = (255, 0, 255)


def frame_for(doc: dict[str, object]) -> Frame:
    return layout(doc, SIZE, measure=fonts.measure)


def test_the_first_frame_is_drawn_whole_and_an_unchanged_one_not_at_all() -> None:
    renderer = Renderer(SIZE)
    assert renderer.draw(frame_for(states.GAME)) == [(0, 0, *SIZE)]
    assert renderer.draw(frame_for(states.GAME)) == []


def test_a_tenth_later_only_the_changed_clock_digit_is_redrawn() -> None:
    renderer = Renderer(SIZE)
    before = frame_for(states.GAME)  # 48.4
    renderer.draw(before)
    after = frame_for(dict(states.GAME, clock_ms=states.GAME["clock_ms"] - 100))  # 48.3
    dirty = renderer.draw(after)
    (last,) = [t for t in after.texts() if t.role == "clock" and t.text == "3"]
    assert dirty == [last.rect]
    assert dirty[0][2] * dirty[0][3] < 0.05 * SIZE[0] * SIZE[1]


def test_a_penalty_second_redraws_its_time_and_nothing_else() -> None:
    renderer = Renderer(SIZE)
    doc = copy.deepcopy(states.GAME)
    renderer.draw(frame_for(doc))
    doc["penalties"]["home"][1]["remaining_ms"] -= 1000
    dirty = renderer.draw(frame_for(doc))
    assert len(dirty) == 1
    times = [t for t in frame_for(doc).texts() if t.role == "penalty.home.time"]
    assert any(contains(dirty[0], t.rect) for t in times)


def test_drawing_the_changes_gives_the_same_picture_as_drawing_everything() -> None:
    renderer = Renderer(SIZE)
    sequence = [states.GAME, states.GAME_EXTRAS, states.BREAK, states.SHOOTOUT, states.FINAL,
                dict(states.GAME, clock_ms=1_000), states.GAME]
    for doc in sequence:
        renderer.draw(frame_for(doc))
        fresh = render(FrameInputs(doc, SIZE))
        found = difference(renderer.surface, fresh)
        assert found.mean == 0 and found.strong_share == 0, doc["phase"]


def test_rendered_text_is_cached() -> None:
    renderer = Renderer(SIZE)
    renderer.render(FrameInputs(states.GAME, SIZE))
    misses = renderer.stats.misses
    renderer.invalidate()  # a full redraw of the same frame: every image from the cache
    renderer.render(FrameInputs(states.GAME, SIZE))
    assert renderer.stats.misses == misses
    assert renderer.stats.hits > 0


def test_every_item_paints_only_inside_its_rectangle() -> None:
    """Each item alone on a clean surface: its pixels stay in its rectangle (so redrawing a
    rectangle really repaints all of that item, and items never bleed into each other)."""
    for doc, between, status in states.REFERENCE.values():
        frame = layout(doc, SIZE, between=between, status=status, measure=fonts.measure)
        for item in frame.items:
            renderer = Renderer(SIZE)
            renderer.draw(Frame(SIZE, MAGENTA, (item,)))  # a colour no item uses
            painted = _painted(renderer.surface, MAGENTA)
            assert painted is not None, item  # every item shows something
            assert contains(item.rect, painted), item


def test_text_ink_is_not_clipped_by_its_rectangle() -> None:
    """Drawn in its rectangle, every text shows all of its ink: accents above capitals and
    marks below the baseline included."""
    frame = layout(states.with_names(states.GAME, "Ústí nad Labem ŠČŽ", "ĄĘÇŞ Q Å"), SIZE,
                   measure=fonts.measure)
    for text in frame.texts():
        if text.font != "sans":
            continue
        renderer = Renderer(SIZE)
        renderer.draw(Frame(SIZE, (0, 0, 0), (text,)))
        image, _rise = renderer._text(text.text, text.px_height, text.colour, text.condense)
        ink = image.get_bounding_rect()
        painted = _painted(renderer.surface)
        assert painted is not None and painted[2:] == (ink.w, ink.h), text


def test_merge_joins_overlapping_rectangles() -> None:
    assert merge([(0, 0, 10, 10), (5, 5, 10, 10), (100, 100, 1, 1), (0, 0, 0, 5)]) == [
        (0, 0, 15, 15), (100, 100, 1, 1)]


def _painted(surface: pygame.Surface, background: tuple[int, int, int] = (0, 0, 0)
             ) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels that are not the background."""
    mask = pygame.mask.from_threshold(surface, background, (1, 1, 1, 255))
    mask.invert()
    rects = mask.get_bounding_rects()
    if not rects:
        return None
    box = rects[0].unionall(rects[1:])
    return (box.x, box.y, box.w, box.h)


def test_digits_copied_ready_blended_equal_digits_blended_on_the_screen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock (on the bare background) is blitted already blended onto the background:
    pixel for pixel what blending it on the screen gives, a tenth later too."""
    docs = [states.GAME, dict(states.GAME, clock_ms=states.GAME["clock_ms"] - 100),
            dict(states.GAME, running=False)]
    fast = Renderer(SIZE)
    fast_pixels = []
    for doc in docs:
        fast.draw(frame_for(doc))
        fast_pixels.append(pygame.image.tobytes(fast.surface, "RGB"))
    monkeypatch.setattr(Renderer, "_on_background", lambda self, image, key: image)
    blended = Renderer(SIZE)
    for doc, expected in zip(docs, fast_pixels, strict=True):
        blended.draw(frame_for(doc))
        assert pygame.image.tobytes(blended.surface, "RGB") == expected
