"""State documents for the display tests: the reference screens and the variations the
legibility tests sweep. Built from what ``scoreboard replay`` prints for the example games
(examples/replay/), edited where a screen should show more at once."""

from __future__ import annotations

import copy
from typing import Any

from display.hall import HallGeometry

NAMES = [  # three to twenty characters, the widest letters, accents above and below
    "LIO",
    "Lions",
    "HC Kometa Brno",
    "Ústí nad Labem ŠČŽ",
    "Crvena Zvezda Beograd"[:20],
    "WWWWWWWWWWWWWWWWWWWW",
]

KINDS = ["1 minor", "2 double_minor", "3 major", "4 misconduct", "5 game_misconduct",
         "6 match"]


def base(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "preset": "ice-hockey-2x20", "stage": "playoff", "match": "QF2",
        "teams": {"home": {"name": "Crvena Zvezda Beograd"[:20],
                           "colours": ["#c8102e", "#ffffff"]},
                  "away": {"name": "Lions", "colours": ["#f2f2f2", "#10233f"]}},
        "phase": "period", "period": 1, "clock_ms": 1_050_000, "running": True,
        "stop_time": False, "horn": False, "score": {"home": 0, "away": 0},
        "penalties": {"home": [], "away": []}, "strength": {"home": 5, "away": 5},
        "shift_ms": None, "timeout": None, "shootout": None, "extra_player": None,
        "result": None, "entry": None,
    }
    doc.update(copy.deepcopy(changes))
    return doc


def penalty(player: int, ms: int, *, kind: str = "minor", running: bool = True
            ) -> dict[str, Any]:
    return {"player": player, "kind": kind, "remaining_ms": ms, "running": running}


# The last minute of period 2 (ice hockey, rules 000): tenths, stop time, two home
# penalties running and a third waiting (3 on 5), the timekeeper typing a penalty's kind.
GAME = base(
    period=2, clock_ms=48_321, stop_time=True, score={"home": 2, "away": 3},
    penalties={"home": [penalty(8, 83_400, kind="double_minor"), penalty(19, 21_050),
                        penalty(4, 120_000, running=False)],
               "away": [penalty(12, 600_000, kind="misconduct")]},
    strength={"home": 3, "away": 5},
    entry={"what": "penalty", "team": "away", "player": "27", "stage": "kind",
           "kinds": KINDS},
)

# The keypad's menu after MENU and a "1" (docs/timekeeper.md, "The menu"): what
# ``KeypadEntry.describe`` gives, the numbers 1 and 10-17 still open.
MENU_ENTRY: dict[str, Any] = {
    "what": "menu", "team": None, "player": None, "stage": "choice",
    "prompt": "MENU: action", "typed": "1",
    "keys": [["1", "start/stop"], ["10", "shot away"], ["11", "set clock"],
             ["12", "end period/break"], ["13", "forfeit: home loses"],
             ["14", "forfeit: away loses"], ["15", "cancel/correct"], ["16", "next"],
             ["17", "undo"], ["enter", "pick it"], ["backspace", "erase"],
             ["escape", "cancel"]]}

# Every other indicator at once (a synthetic document: no single preset has them all): a
# time-out (rules 001), the line-change countdown (rules 002), the extra player (rules 003),
# a penalty; with the status marks of a clock restored after a power loss and the office
# link down.
GAME_EXTRAS = base(
    preset="youth-hockey-3x18", teams={
        "home": {"name": "HC Kometa Brno", "colours": ["#0033a0", "#ffd100"]},
        "away": {"name": "LIO", "colours": ["#ffd700", "#000000"]}},
    period=3, clock_ms=431_000, running=False, score={"home": 1, "away": 6},
    penalties={"home": [], "away": [penalty(7, 45_000)]},
    strength={"home": 5, "away": 4}, shift_ms=23_400, extra_player="home",
    timeout={"team": "away", "remaining_ms": 14_200},
)

BREAK = base(
    phase="intermission", period=2, clock_ms=583_700, score={"home": 1, "away": 1},
    penalties={"home": [penalty(10, 74_000)], "away": []}, strength={"home": 4, "away": 5},
    teams={"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
           "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}},
)

OVERTIME_BREAK = base(phase="overtime_break", period=4, clock_ms=180_000,
                      score={"home": 2, "away": 2})

# Sudden death after ten rounds (a round more than the first series), home to shoot.
SHOOTOUT = base(
    phase="shootout", period=2, clock_ms=0, running=False, score={"home": 1, "away": 1},
    shootout={"home": [True, False, False, True, False, False, True, False, False, False],
              "away": [False, True, False, True, False, True, False, False, False, False],
              "next": "home"},
)

FINAL = base(
    phase="final", period=2, clock_ms=0, running=False, score={"home": 1, "away": 1},
    shootout={"home": [False, True, False, True], "away": [True, False, False, False],
              "next": None},
    result={"home": 2, "away": 1, "decided_by": "shootout"},
)

BETWEEN_DATA: dict[str, Any] = {
    "next": {"match": "A5", "time": "2025-05-17T14:30:00", "label": "Group A",
             "home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
             "away": {"name": "Crvena Zvezda Beograd", "colours": ["#c8102e", "#ffffff"]}},
    "tables": [
        {"group": "A", "rows": [
            {"team": "Lions", "played": 2, "won": 2, "drawn": 0, "lost": 0, "goals_for": 7,
             "goals_against": 2, "points": 4},
            {"team": "Crvena Zvezda Beograd", "played": 2, "won": 1, "drawn": 0, "lost": 1,
             "goals_for": 5, "goals_against": 4, "points": 2},
            {"team": "Bears", "played": 2, "won": 0, "drawn": 1, "lost": 1, "goals_for": 3,
             "goals_against": 5, "points": 1},
            {"team": "Ústí nad Labem", "played": 2, "won": 0, "drawn": 1, "lost": 1,
             "goals_for": 2, "goals_against": 6, "points": 1}]},
        {"group": "B", "rows": [
            {"team": "HC Kometa Brno", "played": 2, "won": 1, "drawn": 1, "lost": 0,
             "goals_for": 6, "goals_against": 3, "points": 3},
            {"team": "Eagles", "played": 2, "won": 1, "drawn": 1, "lost": 0, "goals_for": 4,
             "goals_against": 2, "points": 3},
            {"team": "Sokol", "played": 2, "won": 0, "drawn": 1, "lost": 1, "goals_for": 2,
             "goals_against": 4, "points": 1},
            {"team": "Wolves", "played": 2, "won": 0, "drawn": 1, "lost": 1, "goals_for": 1,
             "goals_against": 4, "points": 1}]},
    ],
}
BETWEEN = FINAL

# Seconds after a goal (the state document's ``goal``): the scorer, with a name as a roster
# would give it, over the scoring side's penalties; the clock stopped.
GOAL = base(
    period=1, clock_ms=612_000, running=False, score={"home": 1, "away": 0},
    penalties={"home": [], "away": [penalty(4, 75_000, kind="major")]},
    goal={"team": "home", "player": 19, "name": "R. Kalniņš"},
)

# Before the first face-off, the match from the office: its time, who is suspended.
PREGAME = base(phase="pregame", period=1, clock_ms=1_200_000, running=False,
               strength={"home": 5, "away": 5})
PREGAME_DATA: dict[str, Any] = {
    "next": {**BETWEEN_DATA["next"], "match": "A5",
             "suspended": [{"team": "home", "player": 7}, {"team": "away", "player": 23}]},
    "tables": BETWEEN_DATA["tables"],
}

# The public site's address ([display] public_url): a QR code beside the tables.
PUBLIC_URL = "http://results.local/"
LONG_URL = ("https://results.example.org/" + "tournament/2025/u11-boys/" * 7)[:200]  # the most
BETWEEN_QR: dict[str, Any] = {**BETWEEN_DATA, "public_url": PUBLIC_URL}

# name -> (state document, between-games data, status): the reference images.
REFERENCE: dict[str, tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]] = {
    "game": (GAME, None, None),
    "game-extras": (GAME_EXTRAS, None, {"restored": True, "office_online": False}),
    "break": (BREAK, None, None),
    "shootout": (SHOOTOUT, None, None),
    "final": (FINAL, None, None),
    "between": (BETWEEN, BETWEEN_DATA, {"office_online": True}),
    "between-qr": (BETWEEN, BETWEEN_QR, {"office_online": True}),
    "goal": (GOAL, None, None),
    "pregame": (PREGAME, {"next": PREGAME_DATA["next"]}, None),
    "pregame-tables": (PREGAME, PREGAME_DATA, None),
    "far": (GAME, None, None),
}
# The hall each reference is laid out for (display/hall.py); the default otherwise.
HALLS: dict[str, HallGeometry] = {"far": HallGeometry(68.5, 40)}
SIZES = [(1920, 1080), (1280, 720), (1024, 768)]
# The game screens in each language besides English (docs/developer.md, "Languages"), at 1920x1080:
# reference images named <screen>-<language>-1920x1080.png.
LANGUAGE_REFERENCE = [(screen, lang) for lang in ("cs", "sr", "fi")
                      for screen in ("game", "game-extras")]
LANGUAGE_SIZE = (1920, 1080)


def with_names(doc: dict[str, Any], home: str, away: str) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["teams"]["home"]["name"] = home
    out["teams"]["away"]["name"] = away
    return out
