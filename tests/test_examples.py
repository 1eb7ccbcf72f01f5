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
