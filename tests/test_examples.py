"""The bundled example games: one per preset, each replayed through `scoreboard replay`.

Each game's snapshots are compared with the reviewed `*.expected.jsonl`, and the facts that
matter are checked again against figures computed by hand from the scripts, so a wrong
expected file cannot pass unnoticed.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena import presets
from firmware_py.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "replay"
INDEX = tomllib.loads((EXAMPLES / "index.toml").read_text(encoding="utf-8"))["example"]


def run(example: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[list[Any], str]:
    args = ["replay", str(EXAMPLES / example["script"]), "--preset", example["preset"],
            "--stage", example["stage"]]
    for t in example["at"]:
        args += ["--at", str(t)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()], err


def test_every_preset_has_an_example_game() -> None:
    assert {e["preset"] for e in INDEX} == set(presets.names())


@pytest.mark.parametrize("example", INDEX, ids=lambda e: e["script"].removesuffix(".jsonl"))
def test_example_matches_its_reviewed_snapshots(example: dict[str, Any],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(example, capsys)
    expected_file = EXAMPLES / example["script"].replace(".jsonl", ".expected.jsonl")
    expected = [json.loads(line) for line in expected_file.read_text().splitlines()]
    assert docs == expected


def by_preset(name: str) -> dict[str, Any]:
    """The example whose script is named ``name``.jsonl."""
    return next(e for e in INDEX if e["script"] == f"{name}.jsonl")


def fields(doc: dict[str, Any], *keys: str) -> tuple[Any, ...]:
    return tuple(doc[k] for k in keys)


KEYS = ("phase", "period", "clock_ms", "running", "stop_time", "score")


def test_ice_hockey_game_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, err = run(by_preset("ice-hockey-2x20"), capsys)
    # Period 1 runs 0-650.5 and 700-1249.5 (1200 s); 1 min break to 1309.5; period 2 from
    # 1320, stopped 2465-2480 at 55 s left (inside the last minute, rules 000), ends 2535.
    assert fields(docs[0], *KEYS) == ("period", 1, 1_200_000, True, False,
                                      {"home": 0, "away": 0})
    assert fields(docs[1], *KEYS) == ("period", 1, 900_000, True, False,
                                      {"home": 1, "away": 0})
    assert fields(docs[2], *KEYS) == ("intermission", 2, 60_000, True, False,
                                      {"home": 1, "away": 1})
    assert fields(docs[3], *KEYS) == ("period", 2, 1_200_000, False, False,
                                      {"home": 1, "away": 1})
    assert fields(docs[4], *KEYS) == ("period", 2, 55_000, False, True,
                                      {"home": 2, "away": 1})
    assert docs[5]["result"] == {"home": 2, "away": 1, "decided_by": "regulation"}
    assert docs[5]["horn"] is True and docs[6]["horn"] is False
    assert "line 9: stop refused: the clock is already stopped" in err


def test_floorball_group_game_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, err = run(by_preset("floorball-2x15"), capsys)
    assert fields(docs[1], "phase", "period", "clock_ms", "running") == (
        "period", 2, 900_000, True)  # started from the break at 1000 s
    assert docs[2]["clock_ms"] == 295_000  # set to 300 s at 1500 s
    assert docs[3]["clock_ms"] == 390_000  # the correction undone at 1510 s
    assert docs[4]["result"] == {"home": 1, "away": 1, "decided_by": "regulation"}
    assert "line 7: timeout refused" in err


def test_floorball_playoff_net_time_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("floorball-2x20"), capsys)
    assert fields(docs[0], "phase", "period", "clock_ms") == ("intermission", 2, 120_000)
    assert fields(docs[1], "phase", "clock_ms", "running") == ("period", 1_200_000, False)
    assert fields(docs[2], "clock_ms", "running", "stop_time") == (170_000, False, True)
    assert docs[3]["result"] == {"home": 1, "away": 0, "decided_by": "regulation"}


def test_floorball_u9_forfeit_undone_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("floorball-u9-2x10"), capsys)
    assert docs[0]["result"] == {"home": 0, "away": 5, "decided_by": "forfeit"}
    assert docs[0]["score"] == {"home": 2, "away": 0}
    assert fields(docs[1], "phase", "clock_ms", "running", "result") == (
        "period", 300_000, False, None)
    assert docs[2]["result"] == {"home": 2, "away": 0, "decided_by": "regulation"}


def test_youth_hockey_overtime_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("youth-hockey-3x18"), capsys)
    assert fields(docs[0], "phase", "period", "clock_ms") == ("intermission", 2, 600_000)
    assert fields(docs[1], "phase", "period", "clock_ms", "running") == (
        "period", 3, 1_080_000, False)
    assert fields(docs[2], "phase", "period", "clock_ms") == ("overtime_break", 4, 180_000)
    assert fields(docs[3], "phase", "period", "clock_ms") == ("overtime", 4, 360_000)
    assert docs[4]["result"] == {"home": 1, "away": 2, "decided_by": "overtime"}
    assert docs[4]["clock_ms"] == 300_000


def test_football_p08_shortened_then_undone_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("football-p08"), capsys)
    assert docs[0]["result"] == {"home": 1, "away": 2, "decided_by": "regulation"}
    assert fields(docs[1], "phase", "clock_ms", "running") == ("period", 100_000, False)
    assert docs[2]["result"] == {"home": 1, "away": 2, "decided_by": "regulation"}
    assert docs[2]["strength"] == {"home": 7, "away": 7}


def test_football_p10_runs_out_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("football-p10"), capsys)
    assert fields(docs[0], "clock_ms", "running") == (889_750, False)
    assert fields(docs[1], "clock_ms", "running") == (889_750, True)
    assert docs[2]["result"] == {"home": 0, "away": 3, "decided_by": "regulation"}


def penalties(doc: dict[str, Any], team: str) -> list[tuple[int, str, int, bool]]:
    return [(p["player"], p["kind"], p["remaining_ms"], p["running"])
            for p in doc["penalties"][team]]


def test_ice_hockey_playoff_penalties_and_shootout_by_hand(
        capsys: pytest.CaptureFixture[str]) -> None:
    docs, err = run(by_preset("ice-hockey-2x20-playoff"), capsys)
    # 150 s: the goal releases #7 (70 s left, less than #8's first part); #9 starts at once.
    assert penalties(docs[0], "home") == [(8, "double_minor", 220_000, True),
                                          (9, "minor", 120_000, True)]
    assert docs[0]["strength"] == {"home": 3, "away": 5}
    # 210 s: the clock stood 160-200 s, so 170 s of game time have passed.
    assert penalties(docs[1], "home") == [(8, "double_minor", 200_000, True),
                                          (9, "minor", 100_000, True)]
    # 300 s (260 s of game time): #8 in its second part; a shorthanded goal releases nothing.
    assert penalties(docs[2], "home") == [(8, "double_minor", 110_000, True),
                                          (9, "minor", 10_000, True)]
    assert docs[2]["score"] == {"home": 1, "away": 1}
    # A misconduct: ten minutes for the player, no change of strength; last-minute stop time.
    assert penalties(docs[3], "away") == [(4, "misconduct", 550_000, True)]
    assert docs[3]["strength"] == {"home": 5, "away": 5} and docs[3]["stop_time"] is True
    # Rules 000: tied ranking match -> shootout, the away team first.
    assert docs[4]["shootout"] == {"home": [], "away": [], "next": "away"}
    # After three rounds 1:1; the tie-break pair starts with the team that shot second.
    assert docs[5]["shootout"] == {"home": [False, True, False], "away": [True, False, False],
                                   "next": "home"}
    assert docs[6]["shootout"]["next"] is None
    assert docs[6]["result"] == {"home": 2, "away": 1, "decided_by": "shootout"}
    assert "line 13: shot refused: #10 (away) has already shot in the first series" in err


def test_youth_hockey_shifts_overtime_and_barred_shooter_by_hand(
        capsys: pytest.CaptureFixture[str]) -> None:
    docs, err = run(by_preset("youth-hockey-3x18-shootout"), capsys)
    # Rules 002: the minor at 75 s lasts until the shift ends at 120 s.
    assert penalties(docs[0], "home") == [(7, "minor", 45_000, True)]
    assert docs[0]["shift_ms"] == 45_000
    assert docs[1]["penalties"]["home"] == [] and docs[1]["horn"] is True  # line change
    # Overtime started at 4230 s: at 4500 s, 90 s are left and the next change is at 300 s.
    assert (docs[2]["phase"], docs[2]["period"], docs[2]["clock_ms"], docs[2]["shift_ms"]) == (
        "overtime", 4, 90_000, 30_000)
    assert docs[3]["phase"] == "shootout" and docs[3]["shootout"]["next"] is None
    assert penalties(docs[3], "away") == [(4, "major", 210_000, True)]
    assert docs[4]["result"] == {"home": 2, "away": 1, "decided_by": "shootout"}
    assert ("line 10: shot refused: #4 (away) may not shoot: his penalty had not ended when "
            "playing time ended") in err


def test_floorball_personal_penalty_and_timeouts_by_hand(
        capsys: pytest.CaptureFixture[str]) -> None:
    docs, err = run(by_preset("floorball-2x20-timeouts"), capsys)
    assert penalties(docs[0], "away") == [(6, "personal", 600_000, True)]
    assert docs[1]["timeout"] == {"team": "home", "remaining_ms": 15_000}
    assert docs[2]["timeout"] is None and docs[2]["horn"] is True
    assert docs[3]["timeout"] == {"team": "away", "remaining_ms": 27_000}
    assert docs[3]["clock_ms"] == 890_000
    assert docs[4]["result"] == {"home": 1, "away": 0, "decided_by": "regulation"}
    assert "line 7: timeout refused: a time-out of home is running" in err
    assert "line 10: timeout refused: home has used its 1 time-out" in err


def test_football_extra_player_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("football-p10-extra-player"), capsys)
    assert [d["extra_player"] for d in docs] == ["home", "home", None, "home", None, None]
    assert docs[0]["strength"] == {"home": 5, "away": 4}
    assert docs[2]["strength"] == {"home": 4, "away": 4}


def records(doc: dict[str, Any]) -> list[tuple[int, int, str, str | None, int | None]]:
    return [(r["key"], r["seq"], r["what"], r["team"], r["player"]) for r in doc["records"]]


def test_a_tied_playoff_game_from_the_keys_alone_by_hand(
        capsys: pytest.CaptureFixture[str]) -> None:
    docs, err = run(by_preset("ice-hockey-2x20-playoff-keys"), capsys)
    assert err == ""  # every key did what the table meant
    # G, 9, Enter: the goal at the button's instant (240 s), shown as the table saw it.
    assert docs[0]["score"] == {"home": 1, "away": 0}
    assert docs[0]["feedback"]["text"] == "GOAL HOME #9 \u2713"
    assert records(docs[0]) == [(1, 3, "goal", "home", 9)]
    # L, 4, Enter, 1: kind 1 is the preset's first, a minor, from the button press at 400 s.
    assert penalties(docs[1], "away") == [(4, "minor", 116_000, True)]
    assert docs[1]["strength"] == {"home": 5, "away": 4}
    # X, 1 (the newest record), 12, Enter: the away goal's scorer corrected, same seq.
    assert records(docs[2])[0] == (1, 6, "goal", "away", 12)
    # A shorthanded goal releases nobody (rules 000, 'Penalties'): 16 s of the minor left.
    assert penalties(docs[2], "away") == [(4, "minor", 16_000, True)]
    # The goal at 700 s entered by mistake, taken back by holding NumLock (UNDO) a second.
    assert docs[3]["score"] == {"home": 1, "away": 1}
    assert docs[3]["feedback"]["press"] == "UNDO"
    # Stopped at 800 s with 6:40 left, set to 6:42 like a microwave (6, 4, 2, Enter).
    assert fields(docs[4], "clock_ms", "running") == (402_000, False)
    assert docs[5]["phase"] == "intermission"
    # /, 3 (GOAL HOME from the menu), 7, Enter.
    assert docs[6]["score"] == {"home": 2, "away": 1}
    assert records(docs[6])[0] == (1, 27, "goal", "home", 7)
    # 2:2 after regulation: rules 000, the winning goal race, the away team first.
    assert docs[7]["shootout"] == {"home": [], "away": [], "next": "away"}
    # 1:1 after three rounds; the tie-break pair opened by the team that shot second.
    assert docs[8]["shootout"] == {"home": [False, True, False, True],
                                   "away": [True, False, False, False], "next": None}
    assert docs[8]["result"] == {"home": 3, "away": 2, "decided_by": "shootout"}


def test_the_match_day_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    docs, _ = run(by_preset("youth-hockey-3x18-match-day"), capsys)
    # The hall's clock reads 09:35 at 0 s; the face-off is at 10:00 (1500 s). Rules 002,
    # 'Match format': the ice is resurfaced, then the warm-up at T-15 min (600 s) for
    # 10 min, ending with the horn (900-1200 s); the start countdown to 1500 s.
    countdowns = [d.get("countdown") for d in docs]
    assert countdowns[:4] == [{"label": "resurfacing", "remaining_ms": 300_000},
                              {"label": "warm-up", "remaining_ms": 300_000},
                              {"label": "start in", "remaining_ms": 300_000},
                              {"label": "start in", "remaining_ms": 150_000}]
    assert [d["horn"] for d in docs[:4]] == [False, False, True, False]
    assert countdowns[4:] == [None, None, None]
    # Due at 11:35 less the 25 min lead (rules 002): 11:10. 3 x 18 + 10 + 3 min from 10:00
    # ends at 11:07: 3 min to spare; the face-off at 10:05 makes it 2 min behind, and the
    # 20 s the second period waited after its break 2:20.
    behind = [None if d["schedule"] is None else d["schedule"]["behind_ms"] for d in docs]
    assert behind == [-180_000, -180_000, -180_000, -180_000, 120_000, 140_000, None]
    assert docs[0]["schedule"]["text"] == "ON SCHEDULE (3:00 TO SPARE)"
    assert docs[4]["schedule"]["text"] == "BEHIND SCHEDULE BY 2:00"
    assert docs[6]["result"] == {"home": 2, "away": 1, "decided_by": "regulation"}
