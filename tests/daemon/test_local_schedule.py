"""A hall without an office plays from a local copy of the tournament file (docs/technician.md,
"A hall without an office"): the next match in this hall after each final, a match picked
at the table with the keypad (MENU 18), the teams of a bracket match picked there, the
office's ``next`` winning over a local pick not yet started, and a bad ``[schedule]`` shown
on the board instead of stopping it.

In-process halls on a fake clock (tests/daemon/inprocess.py); matches end by a forfeit
from a replay script of their own (``script_dir``), so a game takes no time to play.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.entry import KeypadEntry, PickMatch, ScheduledChoice
from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from arena.tournament.files import load_event, load_tournament
from firmware_py.config import ConfigError, ScheduleConfig
from firmware_py.daemon import Daemon
from firmware_py.matchfiles import MatchFiles
from firmware_py.schedule import ScheduleError, load, next_document, remaining
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall

TOURNAMENT = """
name = "Harbour Cup"
id = "harbour-cup"
preset = "football-p08"

[[groups]]
name = "A"
teams = ["Lions", {name = "Bears", short = "BRS", colours = ["#102040", "#ffffff"]}, "Wolves"]

[[groups]]
name = "B"
teams = ["Foxes", "Owls"]

[[matches]]
id = "A1"
group = "A"
hall = "hall-1"
start = 2026-12-05T08:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "B1"
group = "B"
hall = "hall-2"
start = 2026-12-05T08:00:00
home = "Foxes"
away = "Owls"

[[matches]]
id = "A2"
group = "A"
hall = "hall-1"
start = 2026-12-05T08:30:00
home = "Bears"
away = "Wolves"

# The rest of group A's round robin (the office's file check wants it complete).
[[matches]]
id = "A3"
group = "A"
hall = "hall-2"
start = 2026-12-05T09:30:00
home = "Wolves"
away = "Lions"

[[matches]]
id = "F1"
stage = "playoff"
hall = "hall-1"
start = 2026-12-05T10:00:00
home = "A1"
away = "B1"
"""


def schedule_file(tmp_path: Path) -> Path:
    path = tmp_path / "tournament.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    return path


def hall_config(tmp_path: Path, extra: str = 'hall = "hall-1"') -> str:
    return (f'[display]\nfinal_hold_s = 1\n[schedule]\nfile = "{schedule_file(tmp_path)}"\n'
            f"{extra}\n")


def forfeits(tmp_path: Path, *matches: str) -> Path:
    """A script per match that starts it and ends it by a forfeit a second later."""
    folder = tmp_path / "scripts"
    folder.mkdir(exist_ok=True)
    for match in matches:
        write_script(folder / f"{match}.jsonl", [
            {"t": 0, "do": "start"}, {"t": 1, "do": "forfeit", "team": "away"}])
    return folder


def run_for(daemon: Daemon, hall: InProcessHall, seconds: float) -> None:
    daemon.run_until(hall.time.now + int(seconds * NS_PER_S))


def keys(daemon: Daemon, hall: InProcessHall, *names: str) -> None:
    console = daemon.console
    assert console is not None
    at = hall.time.now
    console.button("menu", at, True)
    console.button("menu", at + 50_000_000, False)
    for name in names:
        console.key(name, at + 100_000_000)
    run_for(daemon, hall, 1)


# ------------------------------------------------------------------ pure: what is left


def test_the_remaining_matches_are_this_halls_unplayed_ones_in_schedule_order(
        tmp_path: Path) -> None:
    t = load_event(schedule_file(tmp_path))  # a tournament file: a one-category event
    assert [m.id for m in remaining(t, "hall-1", set())] == ["A1", "A2", "F1"]
    assert [m.id for m in remaining(t, "hall-1", {"A1"})] == ["A2", "F1"]
    assert [m.id for m in remaining(t, "hall-1", set(), on_board="A2")] == ["A1", "F1"]
    assert [m.id for m in remaining(t, "hall-2", {"B1"})] == ["A3"]
    assert [m.id for m in remaining(t, "hall-2", {"B1", "A3"})] == []


def test_a_placeholder_match_is_marked_until_the_timekeeper_confirms_it(
        tmp_path: Path) -> None:
    schedule = load(ScheduleConfig(schedule_file(tmp_path), "hall-1"), None)
    a1, _, f1 = schedule.choices(set())
    assert a1 == ScheduledChoice("A1", "A1 Lions - Bears 08:00", (False, False))
    assert f1 == ScheduledChoice("F1", "F1 1st A? - 1st B? 10:00 TEAMS NOT KNOWN",
                                 (True, True))
    t = load_tournament(schedule_file(tmp_path))
    f1_match = t.match("F1")
    assert f1_match is not None
    doc = next_document(t, f1_match)
    assert doc["teams_known"] is False and doc["label"] == "F1 - TEAMS NOT KNOWN"
    assert doc["teams"]["home"]["name"] == "1st A"
    picked = next_document(t, f1_match, "Bears", "Owls")
    assert "teams_known" not in picked and picked["label"] == "F1"
    assert picked["teams"]["home"] == {"name": "Bears", "colours": ["#102040", "#ffffff"]}
    assert picked["stage"] == "playoff" and picked["scheduled"] == "2026-12-05T10:00"
    kept = next_document(t, f1_match, confirmed=True)
    assert "teams_known" not in kept and kept["teams"]["away"]["name"] == "1st B"


def test_the_keypad_picks_a_match_and_the_teams_of_a_placeholder_match() -> None:
    entry = KeypadEntry(["minor"])
    entry.schedule = (ScheduledChoice("A2", "A2 Bears - Wolves 08:30"),
                      ScheduledChoice("F1", "F1 1st A? - 1st B? 10:00", (True, True)))
    entry.teams = ("Lions", "Bears", "Wolves", "Foxes", "Owls")
    entry.choose("menu", 0)
    assert entry.key("1", 1) == [] and entry.key("8", 2) == []  # MENU 18
    described = entry.describe()
    assert described is not None and described["prompt"] == "NEXT MATCH: which"
    assert ["1", "A2 Bears - Wolves 08:30"] in described["keys"]
    assert entry.key("1", 3) == []  # a digit alone loads nothing
    assert entry.key("enter", 4) == [PickMatch(4, "A2")]
    entry.choose("schedule", 10)
    entry.key("2", 11)
    assert entry.key("enter", 12) == []
    described = entry.describe()
    assert described is not None and described["prompt"] == "F1 TEAMS NOT KNOWN: home team"
    assert ["enter", "keep the name shown"] in described["keys"]
    entry.key("2", 13)
    assert entry.key("enter", 14) == []  # home: Bears; now the away team
    assert entry.key("enter", 15) == [PickMatch(15, "F1", home="Bears", away=None)]


# ------------------------------------------------------------------ a whole hall


def test_a_fresh_hall_plays_its_schedule_in_order_and_waits_at_a_placeholder_match(
        tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start(script_dir=forfeits(tmp_path, "A1", "A2"))
    try:
        assert daemon.match.setup.match_id == "A1"  # not the config's M1
        assert daemon.match.setup.home.name == "Lions"
        run_for(daemon, hall, 60)  # A1 final, held 1 s, then A2 (20 s of pregame), final
        assert daemon.match.setup.match_id == "A2"
        assert daemon.match.state.phase is Phase.FINAL
        assert MatchFiles(hall.state_dir).played() == {"A1", "A2"}
        # F1's teams are not known: it is shown, marked, and not loaded.
        run_for(daemon, hall, 5)
        assert daemon.match.setup.match_id == "A2"
        shown = hall.frames[-1].between
        assert shown is not None and shown["next"]["match"] == "F1"
        assert shown["next"]["label"] == "F1 - TEAMS NOT KNOWN"
        assert shown["next"]["home"]["name"] == "1st A"
        # The timekeeper picks the teams: MENU 18, F1 (the only one left), Lions, Owls.
        keys(daemon, hall, "1", "8", "1", "enter", "1", "enter", "5", "enter")
        assert daemon.match.setup.match_id == "F1"
        assert (daemon.match.setup.home.name, daemon.match.setup.away.name) == (
            "Lions", "Owls")
        assert daemon.match.state.phase is Phase.PREGAME
    finally:
        hall.stop()


def test_a_match_picked_at_the_table_survives_a_restart(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start()
    assert daemon.match.setup.match_id == "A1"
    entry = daemon.console.entry() if daemon.console else None
    assert entry is None
    keys(daemon, hall, "1", "8")
    shown = daemon.document(hall.time.now)["entry"]
    assert shown["prompt"] == "NEXT MATCH: which"  # A1 is on the board: A2 and F1 listed
    assert [k for k in shown["keys"] if k[0] in ("1", "2")] == [
        ["1", "A2 Bears - Wolves 08:30"], ["2", "F1 1st A? - 1st B? 10:00 TEAMS NOT KNOWN"]]
    console = daemon.console
    assert console is not None
    console.key("1", hall.time.now)
    console.key("enter", hall.time.now)
    run_for(daemon, hall, 1)
    assert daemon.match.setup.match_id == "A2"
    assert (hall.state_dir / "current").read_text().strip() == "A2"
    hall.crash()
    daemon = hall.start()
    try:
        assert daemon.match.setup.match_id == "A2"
        assert daemon.match.setup.away.name == "Wolves"
        run_for(daemon, hall, 0.1)
        between = hall.frames[-1].between
        assert between is not None and between["next"]["time"] == "2026-12-05T08:30"
    finally:
        hall.stop()


def test_a_placeholder_match_kept_as_shown_is_loaded_with_the_names_shown(
        tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start()
    try:
        keys(daemon, hall, "1", "8", "2", "enter", "enter", "enter")
        assert daemon.match.setup.match_id == "F1"
        assert daemon.match.setup.home.name == "1st A"
    finally:
        hall.stop()


def test_a_team_cannot_be_picked_for_both_sides(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start()
    try:
        keys(daemon, hall, "1", "8", "2", "enter", "3", "enter", "3", "enter")
        assert daemon.match.setup.match_id == "A1"
        notice = daemon.feedback.current(hall.time.now)
        assert notice is not None and notice.reason == "Wolves cannot play itself"
    finally:
        hall.stop()


def test_no_match_is_picked_while_one_is_in_progress(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start(script=write_script(tmp_path / "s.jsonl", [{"t": 0, "do": "start"}]))
    try:
        run_for(daemon, hall, 1)
        keys(daemon, hall, "1", "8", "1", "enter")
        assert daemon.match.setup.match_id == "A1"
        notice = daemon.feedback.current(hall.time.now)
        assert notice is not None and notice.reason is not None
        assert "in progress" in notice.reason
    finally:
        hall.stop()


NEXT = {"match": "X9", "preset": "football-p08", "stage": "group",
        "teams": {"home": {"name": "Hawks", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Doves", "colours": ["#f2f2f2", "#10233f"]}}}


def office_config(tmp_path: Path) -> str:
    return hall_config(tmp_path, "") + (
        '[mqtt]\nbroker = "mqtt://127.0.0.1:1"\ntournament = "harbour-cup"\nhall = "hall-1"\n')


def test_the_offices_next_replaces_a_local_pick_not_yet_started(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, office_config(tmp_path))
    daemon = hall.start()  # the [mqtt] hall is the schedule's hall
    try:
        keys(daemon, hall, "1", "8", "1", "enter")
        assert daemon.match.setup.match_id == "A2"  # picked at the table, not started
        hall.link.offer_next(NEXT)
        run_for(daemon, hall, 1)
        assert daemon.match.setup.match_id == "X9"
        # From now on the office decides: a local pick is refused while it is connected.
        keys(daemon, hall, "1", "8", "1", "enter")
        assert daemon.match.setup.match_id == "X9"
        notice = daemon.feedback.current(hall.time.now)
        assert notice is not None and notice.reason == "the office sends the next match"
    finally:
        hall.stop()


# ------------------------------------------------------------------ a bad [schedule]


@pytest.mark.parametrize(("extra", "problem"), [
    ('hall = "hall-9"', "no match in hall 'hall-9' (the halls: hall-1, hall-2)"),
    ("", "2 halls (hall-1, hall-2): say which is this one with [schedule] hall"),
])
def test_a_schedule_for_another_hall_is_shown_and_the_board_plays_on(
        tmp_path: Path, extra: str, problem: str) -> None:
    hall = InProcessHall(tmp_path, hall_config(tmp_path, extra))
    daemon = hall.start()
    try:
        run_for(daemon, hall, 0.1)
        assert daemon.match.setup.match_id == "M1"  # the config's match
        status = hall.frames[-1].status
        assert status is not None and status["schedule"].endswith(problem)
    finally:
        hall.stop()


def test_a_missing_or_broken_schedule_file_is_shown_and_the_board_plays_on(
        tmp_path: Path) -> None:
    config = f'[schedule]\nfile = "{tmp_path / "nowhere.toml"}"\n'
    hall = InProcessHall(tmp_path, config)
    daemon = hall.start()
    run_for(daemon, hall, 0.1)
    status = hall.frames[-1].status
    assert status is not None and "nowhere.toml: cannot read" in status["schedule"]
    keys(daemon, hall, "1", "8", "1", "enter")  # nothing to pick: said, not crashed
    hall.stop()
    broken = tmp_path / "broken.toml"
    broken.write_text(TOURNAMENT.replace('home = "Bears"', 'home = "Beers"'), encoding="utf-8")
    hall = InProcessHall(tmp_path, f'[schedule]\nfile = "{broken}"\nhall = "hall-1"\n')
    daemon = hall.start()
    try:
        run_for(daemon, hall, 0.1)
        status = hall.frames[-1].status
        assert status is not None and "matches[2].home" in status["schedule"]
    finally:
        hall.stop()


def test_a_misspelt_schedule_key_is_a_config_mistake(tmp_path: Path) -> None:
    from firmware_py.config import parse  # noqa: PLC0415

    with pytest.raises(ConfigError, match=r"schedule.*hal"):
        parse({"schedule": {"file": "t.toml", "hal": "hall-1"}}, "scoreboard.toml")
    with pytest.raises(ConfigError, match="a hall needs a schedule"):
        parse({"schedule": {"hall": "hall-1"}}, "scoreboard.toml")
    cfg = parse({"schedule": {"file": "t.toml"}}, "x.toml", base=tmp_path)
    assert cfg.schedule.file == tmp_path / "t.toml"

    with pytest.raises(ScheduleError, match="no match in hall 'hall-9'"):
        load(ScheduleConfig(schedule_file(tmp_path), "hall-9"), None)


def test_the_board_draws_why_the_schedule_is_not_used(tmp_path: Path) -> None:
    """What the daemon puts in the status is drawn: the board's own layout, not a log."""
    from display.layout import layout  # noqa: PLC0415

    hall = InProcessHall(tmp_path, hall_config(tmp_path, 'hall = "hall-9"'))
    daemon = hall.start()
    try:
        run_for(daemon, hall, 0.1)
        frame = hall.frames[-1]
        drawn = layout(frame.doc, (1280, 720), between=frame.between, status=frame.status)
        texts = [getattr(i, "text", "") for i in drawn.items
                 if getattr(i, "role", "") == "status.schedule"]
        assert len(texts) == 1 and texts[0].startswith("SCHEDULE NOT USED: ")
    finally:
        hall.stop()


def test_a_hall_on_its_own_names_the_scorers_from_the_schedule_files_rosters(
        tmp_path: Path) -> None:
    """The rosters without an office: the local schedule's teams carry the file's rosters as
    an office's ``next`` would, a placeholder side's picked team's too (a slot's label has
    none), and a goal by a rostered number names the scorer."""
    path = tmp_path / "tournament.toml"
    path.write_text(TOURNAMENT.replace(
        'colours = ["#102040", "#ffffff"]}',
        'colours = ["#102040", "#ffffff"], roster = {4 = "C. Four", 12 = "D. Twelve"}}'),
        encoding="utf-8")
    t = load_tournament(path)
    f1 = t.match("F1")
    assert f1 is not None
    assert "roster" not in next_document(t, f1)["teams"]["home"]  # "1st A": no team yet
    picked = next_document(t, f1, "Bears", "Owls", confirmed=True)["teams"]
    assert picked["home"]["roster"] == {"4": "C. Four", "12": "D. Twelve"}
    assert "roster" not in picked["away"]
    hall = InProcessHall(tmp_path, f'[schedule]\nfile = "{path}"\nhall = "hall-1"\n')
    daemon = hall.start()
    try:
        assert daemon.match.setup.match_id == "A1"  # Lions v Bears
        assert daemon.match.setup.away.player_name(12) == "D. Twelve"
        console = daemon.console
        assert console is not None
        at = hall.time.now + NS_PER_S
        for button, when in (("start_stop", at), ("goal_away", at + NS_PER_S)):
            console.button(button, when, True)
            console.button(button, when + 50_000_000, False)
        for key in ("1", "2", "enter"):
            console.key(key, at + 2 * NS_PER_S)
        run_for(daemon, hall, 3)
        assert hall.frames[-1].doc["goal"] == {"team": "away", "player": 12,
                                               "name": "D. Twelve"}
    finally:
        hall.stop()
