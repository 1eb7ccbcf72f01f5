"""A hall on its own plays the whole day from the office's event file (docs/technician.md, "A
hall without an office"): ``[schedule] file`` names the event file, the hall plays its own
matches of every category in start order, each with its category's preset, teams and
rosters, and what it loads is what the office's ``next`` would send it from the same file.

The event is rules 001's floorball day: two categories sharing two halls, each with its own
playing time (rules 001, 'Playing time': "In U9 2 x 10 mins", the other categories 2 x 15
in the basic groups and 2 x 20 in the play-offs). Both categories have a team called Lions,
each with its own colours and roster (team names are unique only within a category).
In-process halls on a fake clock (tests/daemon/inprocess.py), no office link at all;
matches end by a forfeit from a replay script of their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.core.phase import Phase
from arena.core.units import NS_PER_S
from arena.tournament.files import load_event
from firmware_py.cli import main as scoreboard
from firmware_py.config import KEYS, ConfigError, ScheduleConfig, parse
from firmware_py.daemon import Daemon
from firmware_py.matchfiles import MatchFiles
from firmware_py.schedule import ScheduleError, load
from tests.daemon.inprocess import InProcessHall
from tests.daemon.test_local_schedule import forfeits, keys, run_for
from tests.office.test_event import next_of, send, service

EVENT = """
[event]
name = "Hall Cup"
id = "hall-cup"
include = ["categories/u11.toml", "categories/u9.toml"]   # U11 first in the file
"""

# rules 001, 'Playing time': U9 2 x 10 min.
U9 = """
name = "U9"
id = "U9"
preset = "floorball-u9-2x10"

[[groups]]
name = "A"
teams = [
    {name = "Lions", short = "LU9", colours = ["#aa0000", "#ffffff"], roster = {7 = "Ana Nine"}},
    "Bears", "Wolves"]

[[matches]]
id = "U9-A1"
group = "A"
hall = "hall-1"
start = 2026-11-14T08:00:00
home = "Lions"
away = "Bears"

[[matches]]
id = "U9-A2"
group = "A"
hall = "hall-2"
start = 2026-11-14T09:00:00
home = "Bears"
away = "Wolves"

[[matches]]
id = "U9-A3"
group = "A"
hall = "hall-1"
start = 2026-11-14T10:00:00
home = "Wolves"
away = "Lions"
"""

# rules 001, 'Playing time': 2 x 15 min in the basic groups, 2 x 20 min in the play-offs.
U11 = """
name = "U11"
id = "U11"
preset = "floorball-2x15"

[[groups]]
name = "A"
teams = [
    {name = "Lions", colours = ["#00aa00", "#000000"], roster = {7 = "Ben", 9 = "Cid"}},
    {name = "Hawks", colours = ["#112233", "#ffffff"]}, "Owls"]

[[matches]]
id = "U11-A1"
group = "A"
hall = "hall-2"
start = 2026-11-14T08:00:00
home = "Lions"
away = "Hawks"

[[matches]]
id = "U11-A2"
group = "A"
hall = "hall-1"
start = 2026-11-14T09:00:00
home = "Hawks"
away = "Owls"

[[matches]]
id = "U11-A3"
group = "A"
hall = "hall-2"
start = 2026-11-14T10:00:00
home = "Owls"
away = "Lions"

[[matches]]
id = "U11-F"
stage = "playoff"
hall = "hall-1"
start = 2026-11-14T11:00:00
home = "A1"
away = "A2"
preset = "floorball-2x20"
"""

HALL_1 = ["U9-A1", "U11-A2", "U9-A3", "U11-F"]
PRESETS = {"U9-A1": "floorball-u9-2x10", "U11-A2": "floorball-2x15",
           "U9-A3": "floorball-u9-2x10", "U11-F": "floorball-2x20"}
MINUTES = {"floorball-u9-2x10": 10, "floorball-2x15": 15, "floorball-2x20": 20}


def event_file(tmp_path: Path) -> Path:
    """The event file and its categories, in a folder of their own (not the config's): the
    included files are read relative to the event file."""
    folder = tmp_path / "event"
    (folder / "categories").mkdir(parents=True, exist_ok=True)
    (folder / "categories/u9.toml").write_text(U9, encoding="utf-8")
    (folder / "categories/u11.toml").write_text(U11, encoding="utf-8")
    path = folder / "event.toml"
    path.write_text(EVENT, encoding="utf-8")
    return path


def hall_config(tmp_path: Path) -> str:
    return (f'[display]\nfinal_hold_s = 1\n[schedule]\nfile = "{event_file(tmp_path)}"\n'
            'hall = "hall-1"\n')


def play_until(daemon: Daemon, hall: InProcessHall, match: str, phase: Phase) -> None:
    """Run the fake clock a second at a time until ``match`` is on the board in ``phase``
    (a condition, not a length of time; bounded so a hall that never gets there fails)."""
    for _ in range(600):
        if daemon.match.setup.match_id == match and daemon.match.state.phase is phase:
            return
        run_for(daemon, hall, 1)
    raise AssertionError(f"{match} never {phase.value}: the board is on "
                         f"{daemon.match.setup.match_id} {daemon.match.state.phase.value}")


def check_on_board(daemon: Daemon, match: str, home: str, away: str) -> None:
    """The board plays ``match`` by its category's preset (its period length) and teams."""
    setup, preset = daemon.match.setup, daemon.match.preset
    assert (setup.match_id, setup.home.name, setup.away.name) == (match, home, away)
    assert preset.name == PRESETS[match]
    assert preset.period_length == MINUTES[preset.name] * 60 * NS_PER_S


# ------------------------------------------------------------------ what the hall is told


def test_the_config_and_run_help_say_the_schedule_may_be_the_event_file(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The config keys table (docs/technician.md, generated from ``KEYS``), the config's
    own mistake and ``scoreboard run --help`` all name the event file."""
    meaning = next(k.meaning for k in KEYS if (k.table, k.name) == ("schedule", "file"))
    assert "event file" in meaning and "tournament file" in meaning
    with pytest.raises(ConfigError, match="the office's event file, or a tournament file"):
        parse({"schedule": {"hall": "hall-1"}}, "scoreboard.toml")
    with pytest.raises(SystemExit) as done:
        scoreboard(["run", "--help"])
    assert done.value.code == 0
    told = " ".join(capsys.readouterr().out.split())
    assert "[schedule] file): a local copy of the office's event file" in told
    assert "its own matches across the categories in start order" in told


# ------------------------------------------------------------------ the file


def test_the_hall_reads_the_event_file_and_lists_its_matches_across_categories(
        tmp_path: Path) -> None:
    """Start order, not file order (U11 is the file's first category); each match with its
    own category's preset (rules 001, 'Playing time')."""
    path = event_file(tmp_path)
    schedule = load(ScheduleConfig(path, "hall-1"), None)
    assert schedule.event == load_event(path)  # the office's reader, the same event
    assert [m.id for m in schedule.matches()] == HALL_1
    assert {m.id: m.preset for m in schedule.matches()} == PRESETS
    assert [m.id for m in schedule.remaining({"U9-A1"}, on_board="U11-A2")] == [
        "U9-A3", "U11-F"]
    assert [c.label for c in schedule.choices(set())] == [
        "U9-A1 Lions - Bears 08:00", "U11-A2 Hawks - Owls 09:00",
        "U9-A3 Wolves - Lions 10:00", "U11-F 1st A? - 2nd A? 11:00 TEAMS NOT KNOWN"]
    # The keypad's list: every team of the categories playing here, Lions once.
    assert schedule.teams() == ("Lions", "Hawks", "Owls", "Bears", "Wolves")
    u9, u11 = schedule.document("U9-A1"), schedule.document("U9-A3")
    assert u9 is not None and u11 is not None
    assert u9["category"] == "U9" and u9["preset"] == "floorball-u9-2x10"
    assert u9["teams"]["home"] == {"name": "Lions", "colours": ["#aa0000", "#ffffff"],
                                   "roster": {"7": "Ana Nine"}}
    final = schedule.document("U11-F", "Lions", "Owls", confirmed=True)
    assert final is not None and final["category"] == "U11"
    assert final["teams"]["home"] == {"name": "Lions", "colours": ["#00aa00", "#000000"],
                                      "roster": {"7": "Ben", "9": "Cid"}}
    assert load(ScheduleConfig(path, "hall-2"), None).teams() == (
        "Lions", "Hawks", "Owls", "Bears", "Wolves")
    with pytest.raises(ScheduleError, match="2 halls"):
        load(ScheduleConfig(path, None), None)


def test_a_broken_category_file_is_named_with_the_event_file(tmp_path: Path) -> None:
    path = event_file(tmp_path)
    (path.parent / "categories/u9.toml").write_text(
        U9.replace('preset = "floorball-u9-2x10"', 'preset = "floorball-u7"'),
        encoding="utf-8")
    with pytest.raises(ScheduleError) as caught:
        load(ScheduleConfig(path, "hall-1"), None)
    # The office's message, the category file and its key named.
    assert "categories/u9.toml: preset: unknown preset 'floorball-u7'" in str(caught.value)


def test_the_hall_alone_loads_what_the_office_would_send_from_the_same_file(
        tmp_path: Path) -> None:
    """The office on the same event file: its retained ``next`` for hall-1 after each of
    hall-1's matches is the document the hall makes for itself without an office (but for
    ``source``), the bracket match waiting on both sides."""
    path = event_file(tmp_path)
    event = load_event(path)
    svc, peer, _ = service(tmp_path / "office", event)
    svc.refresh_all()
    schedule = load(ScheduleConfig(path, "hall-1"), None)
    played: set[str] = set()
    for match in HALL_1:
        left = schedule.remaining(played)
        assert left[0].id == match
        local: dict[str, Any] | None = schedule.document(match)
        assert local is not None and local.pop("source") == "schedule"
        office = next_of(peer, event, "hall-1")
        if match == "U11-F":  # its group is not over: the office waits, the hall asks
            assert local.pop("teams_known") is False and office["waiting"] is True
            assert (local["match"], local["category"], local["preset"]) == (
                office["match"], office["category"], office["preset"])
            break
        assert local == office
        m = event.match(match)
        assert m is not None
        send(svc, m, 1, 0)
        played.add(match)
    else:
        raise AssertionError("U11-F was never next")


# ------------------------------------------------------------------ a whole day


def test_a_hall_alone_plays_its_matches_of_both_categories_in_start_order(
        tmp_path: Path) -> None:
    """hall-1: U9-A1 (2 x 10), U11-A2 (2 x 15), U9-A3 (2 x 10), then the U11 final
    (2 x 20, rules 001 'Playing time') once the timekeeper names its teams: each with its
    category's preset, teams and roster, no office anywhere."""
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start(script_dir=forfeits(tmp_path, "U9-A1", "U11-A2", "U9-A3"))
    try:
        assert daemon.link is None and "link" not in hall.parts.made  # no office at all
        check_on_board(daemon, "U9-A1", "Lions", "Bears")
        assert daemon.match.setup.home.player_name(7) == "Ana Nine"  # U9's Lions
        assert daemon.match.setup.home.colours == ("#aa0000", "#ffffff")
        play_until(daemon, hall, "U9-A1", Phase.FINAL)
        play_until(daemon, hall, "U11-A2", Phase.PREGAME)
        check_on_board(daemon, "U11-A2", "Hawks", "Owls")
        assert daemon.match.setup.home.colours == ("#112233", "#ffffff")
        play_until(daemon, hall, "U11-A2", Phase.FINAL)
        play_until(daemon, hall, "U9-A3", Phase.PREGAME)
        check_on_board(daemon, "U9-A3", "Wolves", "Lions")
        assert daemon.match.setup.away.player_name(7) == "Ana Nine"
        play_until(daemon, hall, "U9-A3", Phase.FINAL)
        assert MatchFiles(hall.state_dir).played() == {"U9-A1", "U11-A2", "U9-A3"}
        # The U11 final's teams are not known: shown, marked, not loaded by itself.
        run_for(daemon, hall, 5)
        assert daemon.match.setup.match_id == "U9-A3"
        shown = hall.frames[-1].between
        assert shown is not None and shown["next"]["match"] == "U11-F"
        assert shown["next"]["label"] == "U11-F - TEAMS NOT KNOWN"
        # MENU 18, the final (the only match left), then the teams by their number in the
        # list (Lions, Hawks, Owls, Bears, Wolves): Bears is U9's, refused for U11's final.
        keys(daemon, hall, "1", "8", "1", "enter", "4", "enter", "3", "enter")
        assert daemon.match.setup.match_id == "U9-A3"
        notice = daemon.feedback.current(hall.time.now)
        assert notice is not None and notice.reason == "Bears is not a team of U11"
        keys(daemon, hall, "1", "8", "1", "enter", "1", "enter", "3", "enter")
        check_on_board(daemon, "U11-F", "Lions", "Owls")
        assert daemon.match.state.phase is Phase.PREGAME
        # U11's Lions this time: their colours and roster, not U9's.
        assert daemon.match.setup.home.colours == ("#00aa00", "#000000")
        assert daemon.match.setup.home.player_name(9) == "Cid"
        assert daemon.match.setup.home.player_name(7) == "Ben"
    finally:
        hall.stop()


def test_a_restarted_hall_comes_back_to_its_match_of_the_other_category(
        tmp_path: Path) -> None:
    """After a crash on U11-A2 the hall resumes it (its journal holds the U11 preset) and
    its between-games screen still knows its scheduled time from the event file."""
    hall = InProcessHall(tmp_path, hall_config(tmp_path))
    daemon = hall.start(script_dir=forfeits(tmp_path, "U9-A1"))
    play_until(daemon, hall, "U11-A2", Phase.PREGAME)
    hall.crash()
    daemon = hall.start()
    try:
        check_on_board(daemon, "U11-A2", "Hawks", "Owls")
        run_for(daemon, hall, 0.1)
        between = hall.frames[-1].between
        assert between is not None and between["next"]["time"] == "2026-11-14T09:00"
    finally:
        hall.stop()
