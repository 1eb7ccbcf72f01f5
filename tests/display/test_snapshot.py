"""``scoreboard snapshot`` (display.snapshot): any state document to a PNG, clear errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from display._pygame import pygame
from display.layout import LayoutOptions, layout
from display.options import options_for_name
from display.snapshot import EXIT_BAD_INPUT, main, parse_size, snapshot
from tests.display import states


def write(path: Path, value: object) -> Path:
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def test_a_state_document_becomes_a_png_of_the_asked_size(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    state = write(tmp_path / "state.json", states.GAME)
    out = tmp_path / "game.png"
    assert main(["--state", str(state), "--size", "1024x768", "--out", str(out)]) == 0
    assert pygame.image.load(str(out)).get_size() == (1024, 768)
    assert str(out) in capsys.readouterr().out


def test_replay_output_lines_are_chosen_with_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    lines = "\n".join(json.dumps({"t": t, **doc}) for t, doc in
                      ((150.0, states.GAME), (2500.0, states.SHOOTOUT))) + "\n"
    state = write(tmp_path / "replay.jsonl", lines)
    out = tmp_path / "s.png"
    assert main(["--state", str(state), "--out", str(out)]) == EXIT_BAD_INPUT
    assert "2 state documents, one a line: choose one with --line N" in capsys.readouterr().err
    assert main(["--state", str(state), "--line", "2", "--out", str(out)]) == 0
    assert pygame.image.load(str(out)).get_size() == (1920, 1080)
    assert main(["--state", str(state), "--line", "3", "--out", str(out)]) == EXIT_BAD_INPUT
    assert "--line 3: the file has 2 document line(s)" in capsys.readouterr().err


def test_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(states.FINAL)))
    out = tmp_path / "final.png"
    assert main(["--state", "-", "--size", "1280x720", "--out", str(out)]) == 0
    assert out.exists()


def test_between_games_data_and_status_marks(tmp_path: Path) -> None:
    state = write(tmp_path / "state.json", states.BETWEEN)
    between = write(tmp_path / "between.json", states.BETWEEN_DATA)
    out = tmp_path / "between.png"
    assert main(["--state", str(state), "--between", str(between), "--restored",
                 "--office-offline", "--out", str(out)]) == 0
    assert out.exists()


@pytest.mark.parametrize(("content", "message"), [
    ("", "empty: expected a state document"),
    ('{"phase": "period",', "not JSON: line 1 column 20"),
    ("[1, 2]", "expected a JSON object (a state document), got list"),
    ('{"score": {}}', "phase: missing (is this a state document?)"),
    ('{"phase": "halftime"}', "phase: expected one of pregame, period"),
    ('{"phase": "period", "score": {"home": "2"}}', "score.home: expected a whole number"),
    ('{"phase": "period", "teams": {"home": {"colours": ["navy"]}}}',
     "teams.home.colours: not a colour"),
    ('{"phase": "period", "penalties": {"home": [{"player": 7, "remaining_ms": null}]}}',
     "penalties.home[0].remaining_ms: expected a whole number, got null"),
])
def test_a_bad_state_file_names_the_problem_and_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str) -> None:
    state = write(tmp_path / "state.json", content)
    assert main(["--state", str(state), "--out", str(tmp_path / "x.png")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"scoreboard snapshot: {state}: ") and message in err, err
    assert not (tmp_path / "x.png").exists()


def test_a_bad_between_file_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = write(tmp_path / "state.json", states.FINAL)
    between = write(tmp_path / "b.json", {"tables": [{"group": "A", "rows": [{"team": 3}]}]})
    assert main(["--state", str(state), "--between", str(between), "--out",
                 str(tmp_path / "x.png")]) == EXIT_BAD_INPUT
    assert f"{between}: tables[0].rows[0].team: expected a string" in capsys.readouterr().err


def test_missing_files_and_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(tmp_path / "nope.json"), "--out",
                 str(tmp_path / "x.png")]) == EXIT_BAD_INPUT
    assert "nope.json: cannot read" in capsys.readouterr().err
    state = write(tmp_path / "state.json", states.GAME)
    assert main(["--state", str(state), "--out", str(tmp_path / "no" / "x.png")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["--state", str(state), "--out", str(tmp_path / "x.jpg")]) == 2
    assert "must end in .png" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["1920", "1920x", "x1080", "axb", "100x100", "1920x1080x3",
                                  "99999x1080"])
def test_a_bad_size_is_refused_with_exit_2(tmp_path: Path, text: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    state = write(tmp_path / "state.json", states.GAME)
    with pytest.raises(SystemExit) as exit_:
        main(["--state", str(state), "--size", text, "--out", str(tmp_path / "x.png")])
    assert exit_.value.code == EXIT_BAD_INPUT
    assert "--size" in capsys.readouterr().err


def test_sizes_parse() -> None:
    assert parse_size("1280x720") == (1280, 720)
    assert parse_size("1024X768") == (1024, 768)


def test_the_presets_options_come_from_the_documents_preset_name(tmp_path: Path) -> None:
    """Youth hockey shoots five a team in the first series: five marks a row, not three."""
    doc = states.base(preset="youth-hockey-3x18", phase="shootout", clock_ms=0,
                      shootout={"home": [True], "away": [], "next": "away"})
    options = options_for_name(doc["preset"])
    assert options == LayoutOptions(tenths_below_ms=60_000, shootout_rounds=5,
                                    shift_length_ms=60_000, periods=3, period_ms=18 * 60_000)
    frame = layout(doc, (1280, 720), options=options)
    assert len(frame.with_role("mark.home")) == len(frame.with_role("mark.away")) == 5
    assert options_for_name("no-such-preset") == options_for_name(None) == LayoutOptions()
    assert snapshot(doc, (1280, 720), tmp_path / "so.png").exists()


def test_the_scoreboard_command_has_the_subcommand(tmp_path: Path) -> None:
    """``scoreboard snapshot`` draws a state document to a PNG; a missing file is bad
    input."""
    from firmware_py import cli  # noqa: PLC0415

    state = write(tmp_path / "state.json", states.SHOOTOUT)
    out = tmp_path / "so.png"
    assert cli.main(["snapshot", "--state", str(state), "--size", "1280x720", "--out",
                     str(out)]) == 0
    assert pygame.image.load(str(out)).get_size() == (1280, 720)
    assert cli.main(["snapshot", "--state", str(tmp_path / "none.json"), "--out",
                     str(out)]) == EXIT_BAD_INPUT
