"""What every screen shares: the canvas in height percentages, fitted text, team names with
their colour stripes, and the footer (the timekeeper's entry line and the status marks).

Sizes are fractions of the screen height (``u``), so one layout serves 1920x1080 and
1280x720 alike; the width decides between the wide (16:9) and narrow (4:3) arrangement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from arena.core.prompts import Phrase
from arena.words import DEFAULT as DEFAULT_LANGUAGE
from arena.words import LANGUAGES, phrase, table, word

from .. import colour as pal
from .. import segments
from ..document import EntryView, StatusView, TeamView
from ..fit import Measure, extents, fit_text, line_height
from ..hall import DEFAULT as DEFAULT_HALL
from ..hall import HallGeometry
from ..items import CONTENT, PANEL, Align, Box, Colour, FontName, Item, Mark, Rect, Text

MIN_TEXT = 0.04  # no text smaller than 4 % of the screen height
WIDE_ASPECT = 1.7  # 16:9 (1.78) is wide; 16:10, 5:3, 4:3 and 5:4 take the narrow layout


@dataclass(frozen=True, slots=True)
class LayoutOptions:
    """What the state document does not carry but the preset knows (the daemon passes its
    preset's values; ``scoreboard snapshot`` looks the preset up by name)."""

    tenths_below_ms: int = 60_000  # the clock shows SS.t below this (preset tenths_below_s)
    shootout_rounds: int = 3  # shots a team in the first series (preset shootout.rounds)
    shift_length_ms: int = 60_000  # a line-change shift (preset shifts.length_s)
    periods: int = 2  # the pregame screen's "2 x 20:00" (preset clock.periods)
    period_ms: int = 1_200_000  # (preset clock.period_s)
    hall: HallGeometry = DEFAULT_HALL  # the screen's height and the farthest seat ([display])
    # The words' language ([display] language, docs/developer.md, "Languages").
    language: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"display language {self.language!r}: one of "
                             f"{', '.join(LANGUAGES)}")


@dataclass(frozen=True, slots=True)
class Canvas:
    width: int
    height: int
    measure: Measure
    options: LayoutOptions

    def word(self, key: str, **fields: object) -> str:
        """The display's word ``key`` (``display.*`` in arena/words/) in the hall's
        language."""
        return word(key, self.options.language, **fields)

    def phrase(self, said: Phrase) -> str:
        """A keypad phrase (arena/core/prompts.py) in the hall's language."""
        return phrase(said.to_json(), self.options.language)

    def knows(self, key: str) -> bool:
        """Whether ``key`` is a word (for values that come from the document, such as a
        countdown's label: an unknown one is shown as it came)."""
        return key in table(DEFAULT_LANGUAGE)

    @property
    def wide(self) -> bool:
        return self.width >= WIDE_ASPECT * self.height

    def u(self, percent: float) -> int:
        """``percent`` of the screen height, in pixels."""
        return round(self.height * percent / 100)

    def x(self, percent: float) -> int:
        """``percent`` of the screen width, in pixels."""
        return round(self.width * percent / 100)

    @property
    def min_px(self) -> int:
        return math.ceil(MIN_TEXT * self.height)

    @property
    def legible(self) -> int:
        """The letter height (pixels) the hall's farthest seat reads: the clock, the scores,
        the period and the running penalties' times are at least this where they fit."""
        return max(self.min_px, self.options.hall.legible_px(self.height))

    @property
    def margin(self) -> int:
        return self.x(2.5)


def text(canvas: Canvas, area: Rect, cap_top: int, cap: int, content: str, *,
         colour: Colour, align: Align = "center", role: str = "", font: FontName = "sans",
         layer: int = CONTENT) -> Text | None:
    """``content`` fitted into the horizontal span of ``area`` with its capitals starting at
    ``cap_top`` (shrunk, condensed, truncated as needed). The rectangle is the line's height
    and the drawn width, placed by ``align``; ``None`` if nothing fits."""
    cap = max(cap, canvas.min_px)
    fitted = fit_text(content, area[2], cap, canvas.measure, min_px=canvas.min_px, font=font)
    if not fitted.text:
        return None
    if font == "sans":  # the line the text needs: capitals at ``cap_top``
        above, _below = extents(fitted.text)
        height = line_height(cap, fitted.text)
        top = cap_top - math.ceil(above * cap)
    else:
        height = fitted.px_height
        top = cap_top + (cap - fitted.px_height) // 2
    width = fitted.width
    if align == "left":
        x = area[0]
    elif align == "right":
        x = area[0] + area[2] - width
    else:
        x = area[0] + (area[2] - width) // 2
    return Text((x, top, width, height), fitted.text, fitted.px_height, colour, align, font,
                fitted.condense, layer, role)


def row_cap_top(top: int, height: int, cap: int, texts: str | None = None) -> int:
    """Where capitals of size ``cap`` start so that the line ``texts`` need (accents,
    descenders; any text if ``None``) is centred in a row from ``top`` of ``height``."""
    return top + (height - line_height(cap, texts)) // 2 + math.ceil(extents(texts)[0] * cap)


@lru_cache(maxsize=1024)
def digit_height(text_: str, max_width: int, max_height: int) -> int:
    """The tallest seven-segment setting of ``text_`` no wider than ``max_width`` (pure, and
    a search down from ``max_height``: remembered, as every frame asks the same few)."""
    height = max_height
    while height > 1 and segments.text_width(text_, height) > max_width:
        height -= 1
    return height


def digits(area: Rect, content: str, height: int, colour: Colour, *, role: str,
           per_char: bool = False, align: Align = "center") -> list[Text]:
    """Seven-segment ``content``, ``height`` tall, centred vertically in ``area``.

    ``per_char`` gives each character its own item (the clock): when 12:34 becomes 12:33
    only the last digit's cell is redrawn.
    """
    width = segments.text_width(content, height)
    if align == "left":
        x0 = area[0]
    elif align == "right":
        x0 = area[0] + area[2] - width
    else:
        x0 = area[0] + (area[2] - width) // 2
    y = area[1] + (area[3] - height) // 2
    if not per_char:
        return [Text((x0, y, width, height), content, height, colour, "left", "digits",
                     role=role)]
    return [Text((x0 + dx, y, w, height), char, height, colour, "left", "digits", role=role)
            for char, (dx, w) in zip(content, segments.cells(content, height), strict=True)]


def halves(canvas: Canvas) -> tuple[Rect, Rect]:
    """The home (left) and away (right) halves inside the margins, with a gutter between."""
    m, gutter = canvas.margin, canvas.x(2)
    half = (canvas.width - 2 * m - gutter) // 2
    return (m, 0, half, canvas.height), (canvas.width - m - half, 0, half, canvas.height)


def team_name(canvas: Canvas, area: Rect, cap_top: int, cap: int, team: TeamView, *,
              side: str, align: Align = "center") -> list[Item]:
    """A team's name in capitals (the scoreboard's style), white on the dark background."""
    item = text(canvas, area, cap_top, cap, team.name.upper(), colour=pal.WHITE, align=align,
                role=f"name.{side}")
    return [item] if item else []


def stripe(rect: Rect, team: TeamView, side: str) -> Box:
    """The team's colours as a band on the board's background: the first colour, edged with
    the second (home dark, away light: rules 000). Each is at least 3:1 against the
    background (``colour.visible_on``): a shirt colour too dark to see there is drawn
    lighter rather than as a hole in the board."""
    edge = max(1, rect[3] // 5)
    return Box(rect, pal.visible_on(team.primary, pal.BACKGROUND), CONTENT, f"stripe.{side}",
               pal.visible_on(team.secondary, pal.BACKGROUND), edge)


def footer_top(canvas: Canvas) -> int:
    return canvas.u(92.5)


def footer(canvas: Canvas, entry: EntryView | None, status: StatusView) -> list[Item]:
    """The bottom band: the timekeeper's operator line (left: the outcome of the last
    press while it lasts, else the pending entry; only with ``status.operator_line``),
    "NOT RECORDING - STORAGE FAULT", "JOURNAL DAMAGED AT BYTE N - HOLD NEXT" and "CLOCK
    RESTORED - CHECK" (right) and the office-link mark (far right). Empty when there is
    nothing to say, so spectators see a clean board."""
    items: list[Item] = []
    top, bottom = footer_top(canvas), canvas.u(99.5)
    band = bottom - top  # 7 % of the height: a line of the smallest text with any accents
    cap = canvas.min_px
    cap_top = row_cap_top(top, band, cap)
    right = canvas.width - canvas.margin
    if status.office_online is False:
        size = canvas.u(3.6)
        items.append(Mark((right - size, top + (band - size) // 2, size, size), "link_down",
                          pal.LINK_DOWN, role="status.link"))
        right -= size + canvas.x(1.2)
    # Loudest first, from the right: nothing is being recorded (red), a damaged journal
    # waits for the timekeeper (red), then the restored clock and journals set aside (amber).
    marks: list[tuple[str, Colour, Colour, str]] = []
    if status.board_link_lost:
        # A second board: what it shows may be stale (its clock runs on from the anchor).
        marks.append((canvas.word("display.status.board_link"), pal.FAULT_BOX, pal.WHITE,
                      "status.board_link"))
    if not status.recording:
        marks.append((canvas.word("display.status.recording"), pal.FAULT_BOX, pal.WHITE,
                      "status.recording"))
    if status.journal_damaged is not None:
        marks.append((canvas.word("display.status.damaged", byte=status.journal_damaged),
                      pal.FAULT_BOX, pal.WHITE, "status.damaged"))
    if status.restored:
        marks.append((canvas.word("display.status.restored"), pal.RESTORED_BOX, pal.BLACK,
                      "status.restored"))
    if status.set_aside is not None:
        # Never sent: the timekeeper must know an old hall's journals were found here.
        marks.append((canvas.word("display.status.set_aside", what=status.set_aside),
                      pal.RESTORED_BOX, pal.BLACK, "status.set_aside"))
    if status.schedule is not None:
        # The hall plays on without it; the technician must know why it is not used.
        marks.append((canvas.word("display.status.schedule", why=status.schedule),
                      pal.RESTORED_BOX, pal.BLACK, "status.schedule"))
    for rank, (message, fill, ink, role) in enumerate(marks):
        width = canvas.measure(message, "sans", cap) + 2 * canvas.u(1.5)
        if right - width < canvas.margin and rank > 0:
            continue  # no room left: a quieter mark gives way to the louder ones
        left = max(canvas.margin, right - width)
        box: Rect = (left, top, right - left, band)
        items.append(Box(box, fill, PANEL, f"{role}.box"))
        label = text(canvas, (left + canvas.u(1.5), 0, box[2] - 2 * canvas.u(1.5), 0), cap_top,
                     cap, message, colour=ink, role=role)
        if label:
            items.append(label)
        right = left - canvas.x(1.2)
    if not status.operator_line:
        return items
    feedback = status.feedback
    if (feedback is not None or entry is not None) and right - canvas.margin > canvas.u(10):
        box = (canvas.margin, top, right - canvas.margin, band)
        pad = canvas.u(1.5)
        room = (box[0] + pad, 0, box[2] - 2 * pad, 0)
        line = None
        if feedback is not None:
            fill, role = (pal.ACCEPTED_BOX, "feedback.ok") if feedback.accepted \
                else (pal.FAULT_BOX, "feedback.refused")
            wordings = [feedback.text, *feedback.shorter]
        else:
            assert entry is not None
            fill, role = pal.OPERATOR_BOX, "entry"
            wordings = entry_lines(entry, canvas)
        for candidate in wordings:  # the fullest wording that fits uncut, else the last cut
            line = text(canvas, room, cap_top, cap, candidate, colour=pal.WHITE,
                        align="left", role=role)
            if line is not None and line.text == candidate:
                break
        if line:
            items.append(Box(box, fill, PANEL, f"{role}.box"))
            items.append(line)
    return items


def entry_lines(entry: EntryView, canvas: Canvas | None = None) -> list[str]:
    """What the timekeeper is typing, fullest wording first: ``PENALTY HOME  #7  KIND:
    1 MINOR  2 DOUBLE MINOR  3 MAJOR`` (as many choices as fit, then "…"), ``PENALTY HOME
    #7  KIND?``; the team as its button names it, the digits typed so far. An entry with a
    ``prompt`` (every entry of the keypad grammar) shows the prompt, what was typed, then
    as many of its numbered choices as fit: the operator view shows them all. Every word is
    the hall's language (``canvas``; English without one): the prompt and the choices from
    the keypad's phrases (``entry.say``) where the document has them, else its English."""
    def say(key: str, fallback: str) -> str:
        if canvas is None or not canvas.knows(key):
            return fallback
        return canvas.word(key)

    if entry.prompt or entry.say_prompt is not None:
        prompt, keys = entry.prompt or "", entry.keys
        if canvas is not None and entry.say_prompt is not None:
            prompt = canvas.phrase(entry.say_prompt)
            if entry.say_keys:
                keys = tuple((key, canvas.phrase(does)) for key, does in entry.say_keys)
        head = f"{prompt.upper()}  {entry.typed or '_'}"
        numbered = [f"{key} {label.upper()}" for key, label in keys if key.isdigit()]
        lines = [f"{head}  " + "   ".join(numbered[:n])
                 + ("   \u2026" if n < len(numbered) else "")
                 for n in range(len(numbered), 0, -1)]
        return [*lines, head, prompt.upper()]
    what = say(f"display.entry.{entry.what}", entry.what.upper()) if entry.what \
        else say("display.entry", "ENTRY")
    player = f"#{entry.player}" if entry.player else "#_"
    team = say(f"display.entry.{entry.team}", (entry.team or "").upper()) if entry.team else ""
    head = f"{what} {team}".strip()
    if entry.stage == "kind":
        kind = say("display.entry.kind", "KIND")
        kinds = [k.replace("_", " ").upper() for k in entry.kinds]
        lines = [f"{head}  {player}  {kind}: " + "   ".join(kinds[:n])
                 + ("   \u2026" if n < len(kinds) else "") for n in range(len(kinds), 0, -1)]
        return [*lines, f"{head}  {player}  {kind}?", f"{head}  {player}"]
    prompt = say("display.entry.scorer", "SCORER") if entry.what == "goal" \
        else say("display.entry.player", "PLAYER")
    return [f"{head}  {prompt} {player}", f"{head}  {player}"]
