"""Every screen, every layout, every name length: readable from across the hall.

The clock's digits are at least 30 % of the screen height on the game screen, no text is
smaller than 4 %, every text has 7:1 contrast with what is behind it, nothing overlaps
(except text on its panel) or leaves the screen, and a long name is shrunk, narrowed and
only then cut with an ellipsis, never clipped.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from display import fonts
from display.layout import LayoutOptions, layout
from tests.display import states
from tests.display.checks import MIN_CLOCK, clock, is_name_or_cut, problems, shown_name

SIZES = [*states.SIZES, (1366, 768), (1280, 1024), (800, 480), (3840, 2160)]
STATUS = [None, {"restored": True, "office_online": False},
          # storage down at the same time as a damaged journal and a restored clock: the
          # loudest marks at once, still legible
          {"recording": False, "journal_damaged": 1234567, "restored": True,
           "office_online": False}]


def variations() -> dict[str, tuple[dict[str, Any], dict[str, Any] | None]]:
    out: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {
        name: (doc, between) for name, (doc, between, _s) in states.REFERENCE.items()}
    out["pregame"] = (states.base(phase="pregame", clock_ms=1_200_000, running=False,
                                  strength=None), None)
    out["overtime-break"] = (states.OVERTIME_BREAK, None)
    out["overtime"] = (states.base(phase="overtime", period=4, clock_ms=359_900,
                                   shift_ms=59_900, strength={"home": 5, "away": 5}), None)
    busy = copy.deepcopy(states.GAME)  # three penalties a side, two-digit scores, goal entry
    busy["score"] = {"home": 12, "away": 10}
    busy["penalties"]["away"] = [states.penalty(n, 100_000 * n) for n in (44, 5, 6)]
    busy["entry"] = {"what": "goal", "team": "home", "player": None, "stage": "number"}
    busy.update(timeout={"team": "home", "remaining_ms": 30_000}, shift_ms=60_000,
                extra_player="away")
    out["everything"] = (busy, None)
    menu = copy.deepcopy(states.GAME)  # the keypad's menu: its numbered list on the line
    menu["entry"] = states.MENU_ENTRY
    out["menu-entry"] = (menu, None)
    out["first-shot"] = (states.base(phase="shootout", clock_ms=0, shootout={
        "home": [], "away": [], "next": None}), None)
    long_shootout = copy.deepcopy(states.SHOOTOUT)  # 40 rounds: the oldest give way
    long_shootout["shootout"] = {"home": [False] * 40, "away": [False] * 40, "next": "home"}
    out["shootout-40"] = (long_shootout, None)
    for how in ("regulation", "overtime", "forfeit"):
        out[f"final-{how}"] = (states.base(phase="final", clock_ms=0, result={
            "home": 0, "away": 5, "decided_by": how}), None)
    out["between-next-only"] = (states.BETWEEN, {"next": states.BETWEEN_DATA["next"]})
    out["between-tables-only"] = (states.BETWEEN, {"tables": states.BETWEEN_DATA["tables"]})
    many = [{"group": g, "rows": states.BETWEEN_DATA["tables"][0]["rows"] * 2}
            for g in "ABCD"]
    out["between-many"] = (states.BETWEEN, {"next": states.BETWEEN_DATA["next"],
                                            "tables": many})
    # The public site's QR code beside the tables (display/screens/address.py): a long
    # address, only tables, many tables, the pregame lines above them.
    out["between-qr-long"] = (states.BETWEEN, {**states.BETWEEN_QR, "public_url":
                                               states.LONG_URL})
    out["between-qr-tables-only"] = (states.BETWEEN, {"tables": states.BETWEEN_DATA["tables"],
                                                      "public_url": states.PUBLIC_URL})
    out["between-qr-many"] = (states.BETWEEN, {"next": states.BETWEEN_DATA["next"],
                                               "tables": many, "public_url": states.PUBLIC_URL})
    out["pregame-tables-qr"] = (states.PREGAME, {**states.PREGAME_DATA,
                                                 "public_url": states.PUBLIC_URL})
    return out


VARIATIONS = variations()
NAME_PAIRS = [(states.NAMES[i], states.NAMES[-1 - i]) for i in range(len(states.NAMES))]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(VARIATIONS))
def test_every_screen_follows_the_legibility_rules(screen: str, size: tuple[int, int]) -> None:
    doc, between = VARIATIONS[screen]
    for home, away in NAME_PAIRS:
        for status in STATUS:
            named = states.with_names(doc, home, away)
            frame = layout(named, size, between=between, status=status,
                           measure=fonts.measure, options=LayoutOptions(shootout_rounds=5))
            assert problems(frame) == [], (screen, home, away, status)
            if frame.screen in ("game", "break", "final"):
                assert is_name_or_cut(shown_name(frame, "home"), home)
                assert is_name_or_cut(shown_name(frame, "away"), away)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", ["game", "game-extras", "pregame", "overtime",
                                    "everything", "break"])
def test_the_clock_is_at_least_30_percent_of_the_height(screen: str,
                                                        size: tuple[int, int]) -> None:
    doc, _between = VARIATIONS[screen]
    frame = layout(doc, size, measure=fonts.measure)
    digits = clock(frame)
    assert digits and all(d.px_height >= MIN_CLOCK * size[1] for d in digits)


@pytest.mark.parametrize("size", states.SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_names_up_to_twenty_characters_are_not_cut_on_the_game_screen(
        size: tuple[int, int]) -> None:
    """Real names fit whole (shrunk or narrowed); only twenty W's may be cut."""
    for name in states.NAMES[:-1]:
        frame = layout(states.with_names(states.GAME, name, name), size, measure=fonts.measure)
        assert shown_name(frame, "home") == name.upper()
        assert shown_name(frame, "away") == name.upper()


def test_the_pure_default_measure_also_lays_out_legibly() -> None:
    """Without pygame (the estimate is generous): still nothing overlaps or overflows."""
    for screen, (doc, between) in VARIATIONS.items():
        frame = layout(doc, (1280, 720), between=between)
        assert problems(frame) == [], screen


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_storage_fault_and_a_damaged_journal_are_shown_in_red_on_every_screen(
        size: tuple[int, int]) -> None:
    """The timekeeper sees at once that nothing is recorded, or that the journal waits for
    the NEXT hold: white on red in the operator line, on the game, break, final and
    between-games screens alike."""
    from display import colour as pal  # noqa: PLC0415

    for screen in ("game", "break", "final", "between-next-only", "everything"):
        doc, between = VARIATIONS[screen]
        for status, role, wording in (
                ({"recording": False}, "status.recording", "NOT RECORDING - STORAGE FAULT"),
                ({"journal_damaged": 4711}, "status.damaged",
                 "JOURNAL DAMAGED AT BYTE 4711 - HOLD NEXT")):
            frame = layout(doc, size, between=between, status=status, measure=fonts.measure)
            texts = [i for i in frame.items if getattr(i, "role", "") == role]
            boxes = [i for i in frame.items if getattr(i, "role", "") == f"{role}.box"]
            assert [t.text for t in texts] == [wording], (screen, size)  # type: ignore[attr-defined]
            assert [b.colour for b in boxes] == [pal.FAULT_BOX], (screen, size)  # type: ignore[attr-defined]
        quiet = layout(doc, size, between=between, status={"recording": True},
                       measure=fonts.measure)
        assert not [i for i in quiet.items if getattr(i, "role", "").startswith(
            ("status.recording", "status.damaged"))]
