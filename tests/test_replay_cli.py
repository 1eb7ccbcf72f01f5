"""`scoreboard replay` exactly as docs/developer.md 4.2 says, and the CLI's other commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from demo import command as demo_command
from firmware_py.cli import main


def script(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def replay(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> tuple[int, list[dict[
        str, object]], str]:
    code = main(["replay", str(path), *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


START = '{"t": 0.0, "do": "start"}'


def test_one_state_document_per_at_in_the_order_given(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, START, '{"t": 75.3, "do": "stop"}')
    code, docs, err = replay(capsys, path, "--preset", "ice-hockey-2x20",
                             "--at", "100", "--at", "10", "--at", "75.3")
    assert code == 0 and err == ""
    assert [d["t"] for d in docs] == [100.0, 10.0, 75.3]
    assert [d["clock_ms"] for d in docs] == [1_124_700, 1_190_000, 1_124_700]
    assert next(iter(docs[0])) == "t"


def test_a_command_at_exactly_an_at_time_is_applied_before_the_snapshot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, START, '{"t": 50, "do": "goal", "team": "away", "player": 11}')
    _, docs, _ = replay(capsys, path, "--preset", "floorball-2x15", "--at", "50",
                        "--at", "49.999")
    assert docs[0]["score"] == {"home": 0, "away": 1}
    assert docs[1]["score"] == {"home": 0, "away": 0}


def test_the_state_document_has_every_key_of_the_design(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, START)
    _, docs, _ = replay(capsys, path, "--preset", "ice-hockey-2x20", "--stage", "playoff",
                        "--match", "A3", "--at", "1")
    assert set(docs[0]) == {
        "t", "preset", "stage", "match", "teams", "phase", "period", "clock_ms", "running",
        "stop_time", "horn", "score", "penalties", "strength", "shift_ms", "timeout",
        "shootout", "extra_player", "result", "entry",
        "records",  # replay only, as "t": what cancel and correct take (docs/developer.md 4.3)
    }
    assert (docs[0]["stage"], docs[0]["match"]) == ("playoff", "A3")


def test_refused_commands_are_reported_with_their_line_and_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, START, '{"t": 5, "do": "stop"}', '{"t": 6, "do": "stop"}',
                  '{"t": 7, "do": "start"}')
    code, docs, err = replay(capsys, path, "--preset", "ice-hockey-2x20", "--at", "17")
    assert code == 0
    assert err.strip() == f"{path} line 3: stop refused: the clock is already stopped"
    assert docs[0]["clock_ms"] == 1_200_000 - 15_000


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ('["start"]', "line 2: must be a JSON object"),
        ('{"do": "stop"}', "line 2: missing field 't'"),
        ('{"t": "5", "do": "stop"}', "line 2: 't' must be a number of seconds"),
        ('{"t": -1, "do": "stop"}', "line 2: 't' must not be negative"),
        ('{"t": 5, "do": "jump"}', "line 2: unknown command 'jump'"),
        ('{"t": 5, "do": "goal"}', "line 2: goal: missing field 'team'"),
        ('{"t": 5, "do": "goal", "team": "guests"}', "line 2: 'team' must be \"home\" or"),
        ('{"t": 5, "do": "set_clock", "ms": "1:00"}', "line 2: 'ms' must be whole"),
    ],
)
def test_a_malformed_line_stops_the_replay_naming_the_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str) -> None:
    path = script(tmp_path, '{"t": 1, "do": "start"}', line)
    code, docs, err = replay(capsys, path, "--preset", "ice-hockey-2x20", "--at", "10")
    assert code != 0
    assert docs == []
    assert message in err and str(path) in err


def test_time_going_backwards_is_malformed(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, '{"t": 10, "do": "start"}', '{"t": 9.5, "do": "stop"}')
    code, _, err = replay(capsys, path, "--preset", "ice-hockey-2x20", "--at", "10")
    assert code == 2
    assert "line 2: 't' 9.5 is smaller than the line before (10 s)" in err


def test_a_users_preset_file_and_a_bad_one(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    preset = tmp_path / "mini.toml"
    preset.write_text(
        'name = "mini"\nsummary = "s"\nrules = "ours"\n[clock]\nperiods = 1\nperiod_s = 60\n'
        '[field]\nplayers = 4\n[decision]\nstages = []\n', encoding="utf-8")
    path = script(tmp_path, START)
    code, docs, _ = replay(capsys, path, "--preset-file", str(preset), "--at", "61")
    assert code == 0
    assert docs[0]["preset"] == "mini" and docs[0]["phase"] == "final"
    preset.write_text(preset.read_text().replace("period_s = 60", "period_s = -60"))
    code, _, err = replay(capsys, path, "--preset-file", str(preset), "--at", "1")
    assert code == 2
    assert f"{preset}: clock.period_s: must be at least 1, got -60" in err


def test_unknown_preset_and_missing_script(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = replay(capsys, script(tmp_path, START), "--preset", "hockey", "--at", "1")
    assert code == 2 and "unknown preset 'hockey'" in err
    code, _, err = replay(capsys, tmp_path / "none.jsonl", "--preset", "ice-hockey-2x20",
                          "--at", "1")
    assert code == 2 and "cannot read" in err


def test_presets_lists_the_seven_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7
    assert any(line.startswith("youth-hockey-3x18") and "line change" in line for line in lines)


@pytest.mark.parametrize("argv", [["--help"], ["replay", "--help"], ["presets", "--help"],
                                  ["horn-off", "--help"], ["wiring", "--help"],
                                  ["snapshot", "--help"]])
def test_every_command_has_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    assert "usage: scoreboard" in capsys.readouterr().out


def test_demo_plays_every_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo_command.main(["--examples"]) == 0
    out = capsys.readouterr().out
    assert out.count("final ") >= 7
    assert "final 1:2 (overtime)" in out


@pytest.mark.slow
def test_the_installed_console_script_runs(tmp_path: Path) -> None:
    scoreboard = Path(sys.executable).parent / "scoreboard"
    path = script(tmp_path, START)
    done = subprocess.run([str(scoreboard), "replay", str(path), "--preset", "football-p10",
                           "--at", "1500"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["decided_by"] == "regulation"


@pytest.mark.slow
def test_horn_off_drives_the_relay_off_and_fails_clearly_without_gpio() -> None:
    scoreboard = Path(sys.executable).parent / "scoreboard"
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    done = subprocess.run([str(scoreboard), "horn-off"], capture_output=True, text=True,
                          check=False, env={**env, "GPIOZERO_PIN_FACTORY": "mock"})
    assert done.returncode == 0, done.stderr
    assert "horn relay on GPIO26 driven off (active high)" in done.stdout
    done = subprocess.run([str(scoreboard), "horn-off", "--pin", "21", "--active-low"],
                          capture_output=True, text=True, check=False,
                          env={**env, "GPIOZERO_PIN_FACTORY": "mock"})
    assert "GPIO21 driven off (active low)" in done.stdout
    done = subprocess.run([str(scoreboard), "horn-off"], capture_output=True, text=True,
                          check=False, env={**env, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 1
    assert "scoreboard horn-off: GPIO26: BadPinFactory" in done.stderr


def test_demo_draws_the_hall_display_when_asked(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert demo_command.main(["--pictures", str(tmp_path)]) == 0
    pictures = sorted(p.name for p in tmp_path.glob("*.png"))
    assert "youth-hockey-3x18-shootout-154-match_ended.png" in pictures
    assert any("-goal.png" in p for p in pictures) and any("-shot.png" in p for p in pictures)
    assert f"picture: {tmp_path}" in capsys.readouterr().out
