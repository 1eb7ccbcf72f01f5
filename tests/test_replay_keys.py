"""`scoreboard replay` with what only a replay script may hold (docs/developer.md, "Replay
scripts"): key presses through the hall's console and keypad grammar, the match day, the
records' seqs, and the match taken from the tournament file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware_py.cli import main
from firmware_py.script import ScriptError, parse_script
from tests.fixtures import tournament_file


def script(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def replay(capsys: pytest.CaptureFixture[str], path: Path, *args: str
           ) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["replay", str(path), *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def key(t: float, *names: str, hold: float | None = None) -> str:
    line: dict[str, Any] = {"t": t, "keys": list(names)} if len(names) > 1 else \
        {"t": t, "key": names[0]}
    if hold is not None:
        line["hold"] = hold
    return json.dumps(line)


HOCKEY = ("--preset", "ice-hockey-2x20")


# -- keys ------------------------------------------------------------------------------------


def test_a_pending_entry_is_in_the_state_document_and_a_goal_completes_on_its_timeout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # docs/timekeeper.md, "Entries in detail": a goal's button already said what happened,
    # so the scorer typed and never confirmed is entered when the entry times out (5 s, the
    # console map's default), at the button's instant.
    path = script(tmp_path, key(0, "KEY_KPPLUS"), key(10, "KEY_G"), key(11, "KEY_KP7"))
    code, docs, err = replay(capsys, path, *HOCKEY, "--at", "12", "--at", "16")
    assert code == 0 and err == ""
    entry = docs[0]["entry"]
    assert (entry["what"], entry["team"], entry["player"]) == ("goal", "home", "7")
    assert docs[0]["score"] == {"home": 0, "away": 0}
    assert docs[1]["entry"] is None and docs[1]["score"] == {"home": 1, "away": 0}
    assert docs[1]["records"][0]["clock_ms"] == 1_190_000  # the press at 10 s


def test_start_stop_pressed_twice_within_the_double_tap_guard_starts_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The console's guard (hardware/console.toml double_tap_ms = 300): a bounce of the
    # finger must not start and stop the clock.
    path = script(tmp_path, key(0, "KEY_KPPLUS"), key(0.2, "KEY_KPPLUS"),
                  key(5, "KEY_KPPLUS"))
    _, docs, _ = replay(capsys, path, *HOCKEY, "--at", "1", "--at", "6")
    assert docs[0]["running"] is True
    assert (docs[1]["running"], docs[1]["clock_ms"]) == (False, 1_195_000)


def test_undo_acts_only_on_a_hold_and_the_answers_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = tmp_path / "answers.jsonl"
    path = script(tmp_path, key(0, "KEY_KPPLUS"), key(10, "KEY_G"), key(11, "KEY_KPENTER"),
                  key(20, "KEY_NUMLOCK"), key(30, "KEY_NUMLOCK", hold=1.5))
    code, docs, err = replay(capsys, path, *HOCKEY, "--at", "25", "--at", "35",
                             "--answers", str(answers))
    assert code == 0 and err == ""
    assert docs[0]["score"] == {"home": 1, "away": 0}  # a tap of UNDO does nothing
    assert docs[1]["score"] == {"home": 0, "away": 0}
    told = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [(a["line"], a["t"], a["does"]) for a in told] == [
        (1, 0.0, "start_stop"), (2, 10.0, "goal_home"), (3, 11.0, "enter"),
        (4, 20.0, "undo"), (5, 30.0, "undo"), (5, 31.5, "undo")]
    assert told[1]["entry"]["prompt"] == "GOAL HOME: scorer"
    assert told[1]["entry"]["timeout"]["in_s"] == 5
    assert told[2]["feedback"]["text"] == "GOAL HOME \u2713"
    assert told[5]["released"] is True and told[5]["feedback"]["press"] == "UNDO"


def test_the_answers_are_worded_in_the_halls_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = {}
    for lang in ("en", "cs"):
        out = tmp_path / f"{lang}.jsonl"
        path = script(tmp_path, key(0, "KEY_A"))
        assert main(["replay", str(path), *HOCKEY, "--at", "1", "--answers", str(out),
                     "--language", lang]) == 0
        answers[lang] = json.loads(out.read_text(encoding="utf-8"))["entry"]["prompt"]
    capsys.readouterr()
    assert answers["en"] == "PENALTY HOME: player"
    assert answers["cs"] != answers["en"] and answers["cs"]


def test_a_key_the_rules_refuse_is_reported_with_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, key(0, "KEY_KPPLUS"), key(10, "KEY_Z"))  # a time-out, group game
    code, docs, err = replay(capsys, path, *HOCKEY, "--at", "11")
    assert code == 0
    assert "game.jsonl line 2: timeout refused" in err
    assert docs[0]["feedback"]["accepted"] is False


def test_the_numpad_layout_has_no_letter_keys(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, key(0, "KEY_G"))
    assert replay(capsys, path, *HOCKEY, "--at", "1")[0] == 0
    code, _, err = replay(capsys, path, *HOCKEY, "--at", "1", "--layout", "numpad")
    assert code == 2
    assert "game.jsonl line 1: key 'KEY_G' is not in the numpad key map" in err


@pytest.mark.parametrize(("line", "message"), [
    ('{"t": 0, "key": "KEY_NOPE"}', "key 'KEY_NOPE' is not in the keyboard key map"),
    ('{"t": 0, "key": "KEY_KP5", "hold": 1}', "which acts on its press"),
    ('{"t": 0, "keys": ["KEY_KP5", "KEY_KP6"], "hold": 1}', "'hold' is for one key"),
    ('{"t": 0, "key": "KEY_KP5", "keys": ["KEY_KP6"]}', "not both"),
    ('{"t": 0, "keys": []}', "'keys' must be a list of key names"),
    ('{"t": 0, "key": 5}', "a key name must be a string"),
    ('{"t": 0, "key": "KEY_KP5", "team": "home"}', "unknown field 'team'"),
    ('{"t": 0, "key": "KEY_NUMLOCK", "hold": 0}', "'hold' must be more than 0 seconds"),
    ('{"t": 0, "match_day": {"clock": "9.40"}}', "match_day 'clock' must be a time of day"),
    ('{"t": 0, "match_day": {"start": "10:00"}}', "unknown field 'start' in match_day"),
    ('{"t": 0, "match_day": "10:00"}', "'match_day' must be an object"),
])
def test_a_malformed_key_or_match_day_line_stops_the_replay_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str) -> None:
    path = script(tmp_path, '{"t": 0, "do": "start"}', line)
    code, docs, err = replay(capsys, path, *HOCKEY, "--at", "1")
    assert code == 2 and docs == []
    assert "game.jsonl line 2: " in err and message in err


def test_a_script_played_on_a_board_refuses_keys_and_the_match_day() -> None:
    # `scoreboard run --script` reads commands only: a key there would bypass the hall's
    # console, a match day the office's schedule.
    for line in ('{"t": 1, "key": "KEY_KP5"}', '{"t": 1, "match_day": {"clock": "09:00"}}'):
        with pytest.raises(ScriptError, match=r"run line 2: '(key|match_day)' lines are "
                           r"played by `scoreboard replay`"):
            parse_script('{"t": 0, "do": "start"}\n' + line, "run")


# -- records ---------------------------------------------------------------------------------


def test_the_records_name_the_seq_a_cancel_takes(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    first = script(tmp_path, '{"t": 0, "do": "start"}',
                   '{"t": 10, "do": "goal", "team": "home", "player": 9}',
                   '{"t": 20, "do": "penalty", "team": "away", "player": 4, "kind": "minor"}')
    _, docs, _ = replay(capsys, first, *HOCKEY, "--at", "30")
    listed = docs[0]["records"]
    assert [(r["key"], r["what"], r["player"]) for r in listed] == [
        (1, "penalty", 4), (2, "goal", 9)]
    goal_seq = listed[1]["seq"]
    again = script(tmp_path, *first.read_text(encoding="utf-8").splitlines(),
                   f'{{"t": 40, "do": "cancel", "seq": {goal_seq}}}')
    code, docs, err = replay(capsys, again, *HOCKEY, "--at", "41")
    assert code == 0 and err == ""
    assert docs[0]["score"] == {"home": 0, "away": 0}
    assert [r["what"] for r in docs[0]["records"]] == ["penalty"]


# -- the match day ---------------------------------------------------------------------------


def test_the_match_day_from_the_command_line_is_the_script_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = [a for t in ("60", "600", "1500") for a in ("--at", t)]
    lined = script(tmp_path, '{"t": 0, "match_day": {"clock": "09:35", "scheduled": '
                   '"10:00", "next": "11:35"}}', '{"t": 1500, "do": "start"}')
    _, by_line, _ = replay(capsys, lined, "--preset", "youth-hockey-3x18", *at)
    bare = script(tmp_path, '{"t": 1500, "do": "start"}')
    _, by_flags, _ = replay(capsys, bare, "--preset", "youth-hockey-3x18", "--clock",
                            "09:35", "--scheduled", "10:00", "--next", "11:35", *at)
    assert by_line == by_flags
    # Rules 002, 'Match format': the resurfacing before the warm-up (at T-15 min).
    assert by_flags[0]["countdown"] == {"label": "resurfacing", "remaining_ms": 540_000}
    assert by_flags[2]["schedule"]["text"] == "ON SCHEDULE (3:00 TO SPARE)"
    _, plain, _ = replay(capsys, bare, "--preset", "youth-hockey-3x18", *at)
    assert "countdown" not in plain[0] and "schedule" not in plain[0]


def test_a_match_day_without_its_start_is_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, '{"t": 5, "match_day": {"clock": "09:35"}}')
    code, _, err = replay(capsys, path, *HOCKEY, "--at", "6")
    assert code == 2 and "line 1: the match day needs 'scheduled'" in err
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(path), *HOCKEY, "--at", "6", "--clock", "25:00"])
    assert exited.value.code == 2 and "must be a time of day" in capsys.readouterr().err


def test_rules_000_teams_ready_and_the_slot_behind(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 000, 'Rules': the team ready 5 minutes before the start; the game within its
    # 50 minutes: 9:50 late, two periods of 20 minutes and a 1-minute break overrun it by
    # 50 s, and the referee may shorten them: two of 19:35 would bring it back.
    path = script(tmp_path, '{"t": 0, "match_day": {"clock": "10:50", "scheduled": '
                  '"11:00"}}', '{"t": 1200, "do": "start"}')
    _, docs, _ = replay(capsys, path, *HOCKEY, "--at", "60", "--at", "400", "--at", "1190")
    assert docs[0]["countdown"] == {"label": "teams ready in", "remaining_ms": 240_000}
    assert docs[1]["countdown"] == {"label": "start in", "remaining_ms": 200_000}
    line = docs[2]["schedule"]
    assert line["behind_ms"] == 50_000 and line["period_ms"] == 1_175_000
    assert line["text"].startswith("BEHIND SCHEDULE BY 0:50: 2 PERIODS OF 19:35")


# -- the tournament file's match -------------------------------------------------------------


def test_the_match_from_the_tournament_file(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    cup = tournament_file(tmp_path / "cup.toml", "cup", [("A1", "hall-1"), ("A2", "hall-1")])
    path = script(tmp_path, '{"t": 0, "do": "start"}')
    code, docs, err = replay(capsys, path, "--tournament", str(cup), "--match", "A2",
                             "--at", "1")
    assert code == 0, err
    doc = docs[0]
    assert (doc["preset"], doc["match"], doc["stage"]) == ("floorball-2x15", "A2", "group")
    assert (doc["teams"]["home"]["name"], doc["teams"]["away"]["name"]) == ("Y", "X")
    _, docs, _ = replay(capsys, path, "--tournament", str(cup), "--match", "A2",
                        "--home", "Lions", "--at", "1")
    assert docs[0]["teams"]["home"]["name"] == "Lions"
    # The file's start (10:00) and the hall's next match (none after A2): the match day.
    _, docs, _ = replay(capsys, script(tmp_path, ""), "--tournament", str(cup), "--match",
                        "A2", "--clock", "09:59", "--at", "0")
    assert docs[0]["countdown"] == {"label": "start in", "remaining_ms": 60_000}


def test_a_match_the_tournament_file_lacks_is_named(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cup = tournament_file(tmp_path / "cup.toml", "cup", [("A1", "hall-1")])
    path = script(tmp_path, '{"t": 0, "do": "start"}')
    code, _, err = replay(capsys, path, "--tournament", str(cup), "--match", "Z9", "--at", "1")
    assert code == 2 and "no match 'Z9' (its matches: A1)" in err
    code, _, err = replay(capsys, path, "--tournament", "cup", "--at", "1")
    assert code == 2 and "must be the tournament file" in err
    code, _, err = replay(capsys, path, "--at", "1")
    assert code == 2 and "give --preset or --preset-file" in err


def test_wall_times_compare_by_date_when_both_have_one() -> None:
    from firmware_py.replayday import MatchDay, parse_wall, scheduled_at  # noqa: PLC0415

    late = parse_wall("2026-05-16T00:30")
    assert late.minus(parse_wall("2026-05-15T23:30")) == 3600
    assert late.minus(parse_wall("23:30")) == -23 * 3600  # no date: the time of day alone
    assert parse_wall("10:30:15").second == 10 * 3600 + 30 * 60 + 15
    with pytest.raises(ValueError, match="to the second"):
        parse_wall("10:30:15.5")
    day = MatchDay(parse_wall("09:35"), parse_wall("10:00"), parse_wall("11:35"))
    at = scheduled_at(day, 7 * 10**9, "A1")
    assert (at.start, at.next_start) == (7 * 10**9 + 1500 * 10**9, 7 * 10**9 + 7200 * 10**9)


def test_a_published_key_script_is_the_commands_its_keys_make_numbered_in_order() -> None:
    from arena import presets  # noqa: PLC0415
    from arena.core.values import MatchSetup  # noqa: PLC0415
    from firmware_py.replaypublisher import published_lines  # noqa: PLC0415

    text = "\n".join([key(0, "KEY_KPPLUS"), key(10, "KEY_G"), key(11, "KEY_KP9"),
                      '{"t": 20, "match_day": {"clock": "09:00", "scheduled": "09:30"}}',
                      key(30, "KEY_KPPLUS"), '{"t": 40, "do": "start"}'])
    lines, source = published_lines(text, "keys", presets.load("ice-hockey-2x20"),
                                    MatchSetup())
    made = [(line.line, line.command.name, line.t) for line in lines]
    # The goal typed and never confirmed is entered by its timeout, at the button's 10 s.
    assert made == [(1, "start", 0), (2, "goal", 10 * 10**9), (3, "stop", 30 * 10**9),
                    (4, "start", 40 * 10**9)]
    assert source == {1: 1, 2: 3, 3: 5, 4: 6}
    plain = '{"t": 0, "do": "start"}\n\n{"t": 5, "do": "stop"}'
    lines, source = published_lines(plain, "plain", presets.load("ice-hockey-2x20"),
                                    MatchSetup())
    assert [line.line for line in lines] == [1, 3] and source == {1: 1, 3: 3}
