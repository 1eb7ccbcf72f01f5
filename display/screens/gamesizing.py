"""Choosing the game screen's arrangement for the farthest seat, and remembering the choice.

``game_screen`` lays out the arrangement that serves the back row best: ``search`` tries
the standard and the far arrangement (display/screens/game.py draws both) and taller names
and bottom-zone rows, scores each by how many pixels its must-read texts are short of the
seat's letter height (``shortfall``, ``_deficit``), and ``CHOICES`` remembers the winner
by what decides it (``decisive``), so a ticking clock lays out one arrangement, not every
candidate again. ``_notes`` says what the seat is not given, for ``--legibility``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import values
from ..document import PenaltyView, StateView, StatusView
from ..fit import fit_text, line_height
from ..items import Item, Text
from .common import Canvas, halves
from .game import base_caps, game_items, grid, standard_screen, zone_text


@dataclass(frozen=True, slots=True)
class GameLayout:
    """The game screen as chosen: its items, the arrangement ("" standard, "far" fewer
    things), and what the back row is not given (``notes``, for ``--legibility``)."""

    items: list[Item]
    variant: str
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Which arrangement ``search`` chose: the far one or not, the grid (``None``: the
    standard one, else the names' and the bottom rows' cap heights), and how many of each
    kept text the fullest arrangement tried shows (for the notes)."""

    far: bool
    grown: tuple[int, int] | None
    wanted: tuple[tuple[str, int], ...]


def game_screen(canvas: Canvas, state: StateView, status: StatusView) -> GameLayout:
    """The arrangement that serves the farthest seat best (``search``), the choice
    remembered for what decides it (``decisive``): a penalty's second, the clock or a
    countdown ticking only lays out the arrangement chosen for them before, not every
    candidate again."""
    key = decisive(canvas, state, status)
    chosen = CHOICES.recall(key)
    if chosen is None:
        chosen, items = search(canvas, state, status)
        CHOICES.keep(key, chosen)
    else:
        items = arranged(canvas, state, status, chosen)
    return GameLayout(items, "far" if chosen.far else "",
                      _notes(canvas, state, items, dict(chosen.wanted)))


def arranged(canvas: Canvas, state: StateView, status: StatusView, chosen: Arrangement
             ) -> list[Item]:
    """The items of the arrangement ``chosen``."""
    g = grid(canvas) if chosen.grown is None else grid(canvas, *chosen.grown)
    return game_items(canvas, g, state, status, far=chosen.far)


def search(canvas: Canvas, state: StateView, status: StatusView
           ) -> tuple[Arrangement, list[Item]]:
    """Every arrangement worth trying, and the one that serves the farthest seat best.

    First the texts sized for the seat (clock, scores, period, penalty times:
    ``KEY_ROLES``): the far arrangement (fewer penalties and indicators) where the standard
    one leaves them shorter of its letter height. Then the free area goes to the other
    texts it must read (``SECONDARY_ROLES``: names, penalty numbers and kinds, strength, STOP
    TIME, the period's caption): the bottom zone's rows and the names grow towards the
    seat's height. Of those arrangements the one short by the fewest pixels wins, every
    must-read text counting as far short as it is, a text left out as wholly short and the
    sized texts twice, so nothing grows where it costs more than it gains.
    """
    base_name, base_row = base_caps(canvas)
    legible = canvas.legible
    names = _name_caps(canvas, state, base_name)
    rows = sorted({base_row, max(base_row, (base_row + legible) // 2), max(base_row, legible)})
    standard = standard_screen(canvas, state, status)
    short = shortfall(canvas, standard)
    far = False
    tried: list[list[Item]] = [standard]
    if short:
        fewer = game_items(canvas, grid(canvas), state, status, far=True)
        tried.append(fewer)
        far = shortfall(canvas, fewer) < short
    candidates: list[tuple[tuple[int, int] | None, list[Item]]] = [
        (None, tried[-1] if far else standard)]
    for name_cap in names:
        for row_cap in rows:
            if (name_cap, row_cap) == (base_name, base_row):
                continue
            g = grid(canvas, name_cap, row_cap)
            if g.columns[0][3] < 2 * line_height(g.row_cap, zone_text(canvas)):
                continue  # no bottom zone left to speak of
            candidates.append(((name_cap, row_cap), game_items(canvas, g, state, status, far=far)))
    wanted = _wanted([*tried, *(items for _grown, items in candidates)])
    grown, items = min(candidates, key=lambda c: shortfall(canvas, c[1])
                       + _deficit(canvas, c[1], wanted))
    return Arrangement(far, grown, tuple(sorted(wanted.items()))), items


def decisive(canvas: Canvas, state: StateView, status: StatusView) -> tuple[object, ...]:
    """What ``search``'s choice depends on: everything it reads but the digits of the
    times that tick, of which only the shape stays (``shape``: "1:23" and "1:59" alike,
    "10:00" not).

    Why their digits cannot change the choice: the clock and the penalties' times are
    seven-segment digits, all as wide as each other (``segments.advance``), so a time's
    size follows from its shape alone; the time-out's and the line change's seconds are
    in their own rows (whose heights do not depend on the text) and their size is not
    scored, only whether they are there, which does not hang on a digit's width.
    tests/display/test_choices.py checks the remembered choice against a fresh search."""
    tenths = canvas.options.tenths_below_ms
    shapes = (shape(values.clock_text(state.clock_ms, tenths)),
              tuple(tuple(shape(values.minutes_seconds(p.remaining_ms)) for p in side)
                    for side in state.penalties),
              None if state.timeout is None
              else shape(values.minutes_seconds(state.timeout.remaining_ms)),
              None if state.shift_ms is None else shape(str(values.whole_seconds(state.shift_ms))),
              None if state.countdown is None
              else shape(values.minutes_seconds(state.countdown.remaining_ms)))
    timeless = replace(
        state, clock_ms=0,
        penalties=(_timeless(state.penalties[0]), _timeless(state.penalties[1])),
        shift_ms=None if state.shift_ms is None else 0,
        timeout=None if state.timeout is None else replace(state.timeout, remaining_ms=0),
        countdown=None if state.countdown is None
        else replace(state.countdown, remaining_ms=0))
    return (canvas, timeless, status, shapes)


def shape(shown: str) -> str:
    """A time as shown with every digit a 0: what its width depends on."""
    return shown.translate(_ZEROS)


_ZEROS = str.maketrans("123456789", "000000000")


def _timeless(penalties: tuple[PenaltyView, ...]) -> tuple[PenaltyView, ...]:
    return tuple(replace(p, remaining_ms=0) for p in penalties)


class Choices:
    """The arrangements ``search`` chose, by ``decisive`` key: a few hundred, forgotten all
    at once when full (a match needs a handful at a time: the penalties on the board, a
    time-out, the line change; a dict's get and set are each atomic, so the display and
    the operator window may share it)."""

    LIMIT = 256

    def __init__(self) -> None:
        self._chosen: dict[tuple[object, ...], Arrangement] = {}
        self.hits = 0
        self.misses = 0

    def recall(self, key: tuple[object, ...]) -> Arrangement | None:
        chosen = self._chosen.get(key)
        if chosen is None:
            self.misses += 1
        else:
            self.hits += 1
        return chosen

    def keep(self, key: tuple[object, ...], chosen: Arrangement) -> None:
        if len(self._chosen) >= self.LIMIT:
            self._chosen.clear()
        self._chosen[key] = chosen

    def forget(self) -> None:
        """Every choice (the bench's cold runs, tests that count searches)."""
        self._chosen.clear()


CHOICES = Choices()


# The texts the farthest seat must read (docs/technician.md, "The hall display"): those
# sized for it first, then those that grow into the free area.
KEY_ROLES = ("clock", "score.home", "score.away", "period", "penalty.home.time",
             "penalty.away.time")
SECONDARY_ROLES = ("name.home", "name.away", "penalty.home.player", "penalty.away.player",
                   "strength", "stop_time", "period.caption")
MUST_READ = (*KEY_ROLES[3:], *SECONDARY_ROLES)  # the clock and scores are always there
# Never dropped for another text to grow: left out, each counts as wholly short too.
KEPT = (*MUST_READ, "shift", "timeout", "stopped", "extra.home", "extra.away",
        "penalty.home.more", "penalty.away.more")


def shortfall(canvas: Canvas, items: list[Item]) -> int:
    """How many pixels the texts the back row must read are short of its legible size."""
    return sum(max(0, canvas.legible - i.px_height) for i in items
               if isinstance(i, Text) and i.role in KEY_ROLES)


def _name_caps(canvas: Canvas, state: StateView, base: int) -> list[int]:
    """The names' cap heights worth trying: the standard, and as tall as the longer of
    the two names fits its half of the screen up to the seat's height."""
    half = halves(canvas)[0][2]
    fitted = max(fit_text(state.team(side).name.upper(), half, canvas.legible, canvas.measure,
                          min_px=canvas.min_px).px_height for side in ("home", "away"))
    grown = min(canvas.legible, fitted)
    return [base, grown] if grown > base else [base]


def _count(items: list[Item]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        if isinstance(item, Text) and item.role in KEPT:
            counts[item.role] = counts.get(item.role, 0) + 1
    return counts


def _wanted(tried: list[list[Item]]) -> dict[str, int]:
    """How many of each must-read text the fullest arrangement tried shows."""
    wanted: dict[str, int] = {}
    for items in tried:
        for role, n in _count(items).items():
            wanted[role] = max(wanted.get(role, 0), n)
    return wanted


def _deficit(canvas: Canvas, items: list[Item], wanted: dict[str, int]) -> int:
    """Pixels the must-read texts are short of the seat's letter height, a text left out
    counting as wholly short."""
    legible = canvas.legible
    short = sum(max(0, legible - i.px_height) for i in items
                if isinstance(i, Text) and i.role in MUST_READ)
    counts = _count(items)
    return short + legible * sum(max(0, n - counts.get(role, 0)) for role, n in wanted.items())


def _notes(canvas: Canvas, state: StateView, items: list[Item], wanted: dict[str, int]
           ) -> tuple[str, ...]:
    """What the farthest seat is not given, and why, for ``scoreboard snapshot
    --legibility``."""
    legible = canvas.legible
    hall = canvas.options.hall
    need_cm = hall.cm(legible, canvas.height)
    notes: list[str] = []
    counts = _count(items)
    texts = [i for i in items if isinstance(i, Text)]
    for side in ("home", "away"):
        name = state.team(side).name.upper()
        shown = [t for t in texts if t.role == f"name.{side}"]
        half = halves(canvas)[0][2]
        if shown and shown[0].px_height < legible \
                and canvas.measure(name, "sans", legible) > half:
            notes.append(f"name.{side}: {len(name)} letters at {need_cm:.1f} cm need "
                         f"{canvas.measure(name, 'sans', legible) / half:.1f} times the half "
                         f"screen; shown at {hall.cm(shown[0].px_height, canvas.height):.1f} cm")
        running = [p for p in state.penalties[0 if side == "home" else 1] if p.running]
        blocks = counts.get(f"penalty.{side}.time", 0)
        if state.goal is None or state.goal.team != side:
            hidden = running[blocks:]
            if hidden:
                players = ", ".join(f"#{p.player or '?'}" for p in hidden)
                notes.append(f"penalty.{side}: {players} folded into +N (no room for another "
                             f"block at the size the seat reads)")
    labels = {"strength": "strength", "stop_time": "STOP TIME", "period.caption":
              "the period's caption"}
    for role, label in labels.items():
        if wanted.get(role, 0) > counts.get(role, 0):
            notes.append(f"{role}: {label} dropped (no room for its row at a size the seat "
                         "reads)")
    short = sorted({t.role for t in texts if t.role in MUST_READ and t.px_height < legible})
    if short:
        notes.append("short of the seat: " + ", ".join(short) + " (the clock and the scores "
                     "keep their size; what is left of the screen is shared out)")
    return tuple(notes)
