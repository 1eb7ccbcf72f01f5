"""``arena-demo``: its event and scripts, its generated configs, its tables, and
one whole run with a real mosquitto, the event's office and real hall daemons.

The scripts are checked the way a user would (``scoreboard replay``), and the table they
make is checked through the office's own store and ``office standings --db``, so a change
of the rules that breaks the demo's story fails here, not in front of a newcomer.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena import presets, wire
from arena.core.match import Match, feed
from arena.core.phase import Stage
from arena.core.values import MatchSetup, TeamInfo
from arena.tournament.files import load_event
from demo import command, configs, lots, orchestration, tables, tournaments, workdir
from demo.journals import HallJournals
from demo.narration import journal_lines, record_line
from firmware_py import config as hall_config_file
from firmware_py.journal import encode, scan
from firmware_py.loopback import find_mosquitto
from firmware_py.script import parse_script
from office.storage.store import Store
from office.views.slugs import slug
from tests.demo_fake_hall import record_match

SCOREBOARD = str(Path(sys.executable).parent / "scoreboard")
ARENA_DEMO = str(Path(sys.executable).parent / "arena-demo")

# What each match's script must end with: (home goals, away goals).
FINALS = {
    "P10-A1": (1, 1), "P10-A2": (4, 0), "P10-A3": (1, 5), "P10-F": (1, 2),
    "P08-A1": (1, 1), "P08-A2": (2, 0), "P08-A3": (0, 2), "P08-F": (2, 1),
}
# The tables the demo must print, by category: team order and the "why" of each row. In P08
# the first two are level after every criterion of rules 003 'Ranking': lots (seed 2027).
TABLES = {
    "P10": [("HJK Sininen", "goals for"), ("FC Honka Musta", "points"),
            ("KäPa Keltainen", "")],
    "P08": [("FC Kontu Valkoinen", "lots (drawn)"), ("Ponnistus Punainen", "lots (drawn)"),
            ("EBK Vihreä", "")],
}
# Who plays each hall's matches, in order (the halls are shared by the categories).
HALLS = {"hall-1": ["P10-A1", "P08-A2", "P10-A3", "P10-F", "P08-F"],
         "hall-2": ["P08-A1", "P10-A2", "P08-A3"]}


def loaded() -> tournaments.DemoEvent:
    return tournaments.load_demo_event()


# ---------------------------------------------------------------------------------------
# The event and its scripts


def test_the_demo_event_has_two_categories_sharing_two_halls() -> None:
    """rules 003 'General': P08 and P10 on one day; each its own preset, a group of three
    and a follow-up match of the first two."""
    d = loaded()
    event = load_event(tournaments.DEMO_DIR / "event.toml")  # the office's reader
    assert d.id == event.id and not event.plain
    assert [c.name for c in d.categories] == ["P10", "P08"]
    assert {c.name: c.presets for c in d.categories} == {"P10": ("football-p10",),
                                                         "P08": ("football-p08",)}
    for c in event.categories:
        assert [g.name for g in c.tournament.groups] == ["A"]
        assert len(c.tournament.groups[0].teams) == 3
        bracket = [m for m in c.tournament.matches if m.group is None]
        assert [(m.home.text, m.away.text) for m in bracket] == [("A1", "A2")]
    assert {h: [m.id for m in d.hall_matches(h)] for h in d.halls()} == HALLS
    for hall in d.halls():
        assert {m.category for m in d.hall_matches(hall)} == {"P08", "P10"}
    assert all(m.home_colours and m.away_colours for m in d.matches if m.stage == "group")
    assert {m.stage for m in d.matches if m.id.endswith("-F")} == {"playoff"}


def test_a_demo_event_whose_halls_are_not_shared_is_refused(tmp_path: Path) -> None:
    (tmp_path / "event").mkdir()
    for name, hall in (("p10", "hall-1"), ("p08", "hall-2")):
        text = (tournaments.DEMO_DIR / "event" / f"{name}.toml").read_text(encoding="utf-8")
        (tmp_path / "event" / f"{name}.toml").write_text(
            re.sub(r'hall = "hall-\d"', f'hall = "{hall}"', text), encoding="utf-8")
    (tmp_path / "event.toml").write_text(
        (tournaments.DEMO_DIR / "event.toml").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(tournaments.DemoError, match="hall-1 plays only P10"):
        tournaments.load_demo_event(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("match", sorted(FINALS))
def test_every_script_replays_cleanly_under_its_preset(match: str) -> None:
    """No refusals, and the match is over (by the clock or by `end`) with its score."""
    d = loaded()
    (m,) = [m for m in d.matches if m.id == match]
    done = subprocess.run([SCOREBOARD, "replay", str(d.script(match)), "--preset", m.preset,
                           "--match", match, "--stage", m.stage, "--at", "100", "--at", "3600"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    during, end = (json.loads(line) for line in done.stdout.splitlines())
    assert during["phase"] in ("period", "intermission")
    assert end["phase"] == "final"
    home, away = FINALS[match]
    assert end["result"] == {"home": home, "away": away, "decided_by": "regulation"}


@pytest.mark.slow
def test_the_scripts_show_what_the_demo_is_for() -> None:
    """Short games (rules 003 'Match officials': the referee may shorten the playing time),
    and the P10 extra player at 0:5 (rules 003 'Match rules')."""
    d = loaded()
    for m in d.matches:
        states = _replay(d.script(m.id), m.preset, [float(t) for t in range(0, 220)])
        assert next(s for s in states if s["phase"] == "final")["t"] < 220
    a3 = _replay(d.script("P10-A3"), "football-p10", [120.0])
    assert a3[0]["extra_player"] == "home" and a3[0]["strength"] == {"home": 5, "away": 4}


def _replay(script: Path, preset: str, at: list[float]) -> list[dict[str, Any]]:
    argv = [SCOREBOARD, "replay", str(script), "--preset", preset]
    for t in at:
        argv += ["--at", str(t)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


# ---------------------------------------------------------------------------------------
# The tables the office computes


def _played_into_store(d: tournaments.DemoEvent, db: Path) -> None:
    """Every group match of ``d`` played through the core and stored as the office stores
    what a hall sends (``events`` messages)."""
    store = Store(db)
    try:
        for m in d.matches:
            if m.stage != "group":
                continue
            match = Match(presets.load(m.preset), MatchSetup(
                m.id, Stage(m.stage), TeamInfo(m.home, m.home_colours or ("#000000", "#ffffff")),
                TeamInfo(m.away, m.away_colours or ("#ffffff", "#000000"))))
            events = []
            for line in parse_script(d.script(m.id).read_text(encoding="utf-8"), m.id):
                fed = feed(match, line.command)
                assert fed.refused is None, fed.refused
                events += fed.events
            while (deadline := match.next_deadline()) is not None:
                events += match.advance(deadline)
            for e in events:
                body = wire.build_event(m.hall, {"match": m.id, "seq": e.seq,
                                                 "event": e.kind.value, "data": dict(e.data),
                                                 "at": e.at})
                topic = wire.hall_topic(d.id, m.hall, wire.EVENTS)
                store.add_event(wire.check_event(topic, body, d.id), datetime.now())
    finally:
        store.close()


def _rows(printed: str) -> list[tuple[str, str]]:
    """(team, why) of each row of a printed table, in order."""
    rows = []
    for line in printed.splitlines():
        found = re.match(r"^\s+(\d)\s+(.+?)\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+:\d+\s+\S+\s+\d+\s+\d+"
                         r"(?:\s+(.*))?$", line)
        if found:
            rows.append((found.group(2), found.group(3) or ""))
    return rows


def _sections(printed: str) -> dict[str, str]:
    """The printed tables by category ("P10: Group A ...")."""
    found = re.split(r"^\s*(P\d\d): Group ", printed, flags=re.MULTILINE)
    return dict(zip(found[1::2], found[2::2], strict=True))


def test_the_scripts_make_the_tables_lots_are_drawn_and_they_are_printed(
        tmp_path: Path) -> None:
    """P08's first two are level after every criterion: the office's drawing of lots
    (the demo's, seed 2027) orders them, and the follow-up gets its teams."""
    d = loaded()
    db = tmp_path / "office.sqlite"
    _played_into_store(d, db)
    assert tables.tables_complete(d.file, db)
    told: list[str] = []
    drawer = lots.LotsDrawer(d.file, db, told.append, lambda: 0.0)
    drawer.step()
    assert drawer.failed is None, drawer.failed
    assert told[0] == ("office | P08 group A: FC Kontu Valkoinen and Ponnistus Punainen are "
                       "level after every criterion; the office draws lots:")
    assert "--category P08 --group A --random --seed 2027" in told[1]
    drawer.next_look = float("-inf")
    drawer.step()
    assert len(told) == 3  # drawn once
    out: list[str] = []
    assert tables.print_tables(d, db, out.append)
    printed = "\n".join(out)
    assert out[0].startswith(f"{d.name}: the office's tables (event.toml")
    sections = _sections(printed)
    assert list(sections) == ["P10", "P08"]
    for category, rows in TABLES.items():
        assert sections[category].startswith("A (complete")
        assert _rows(sections[category]) == rows
    assert "P10, P08: level on points, the rules look at:" in printed


def test_a_missing_store_is_not_complete_and_printing_it_says_why(tmp_path: Path) -> None:
    d = loaded()
    assert not tables.tables_complete(d.file, tmp_path / "none.sqlite")
    out: list[str] = []
    assert not tables.print_tables(d, tmp_path / "none.sqlite", out.append)
    assert "office standings failed" in "\n".join(out)
    assert "no such store" in "\n".join(out)


# ---------------------------------------------------------------------------------------
# The pieces' configuration


def test_a_hall_on_the_broker_gets_its_tournament_hall_and_first_match(tmp_path: Path) -> None:
    first = loaded().hall_matches("hall-2")[0]
    text = configs.hall_config("hall-2", state_dir=tmp_path / "state", display="headless",
                            size=(1280, 720), broker="mqtt://127.0.0.1:18830",
                            tournament="demo-spring-cup", match=first)
    data = tomllib.loads(text)
    assert data["match"]["id"] == "P08-A1"  # the office sends the later ones as `next`
    assert data["mqtt"] == {"broker": "mqtt://127.0.0.1:18830", "tournament": "demo-spring-cup",
                            "hall": "hall-2"}
    assert data["gpio"] == {"pin_factory": "mock"}
    assert data["display"] == {"mode": "headless", "size": "1280x720"}
    assert data["state"] == {"dir": str(tmp_path / "state")}
    parsed = hall_config_file.parse(data, "demo.toml")  # the daemon's own checks
    assert parsed.mqtt is not None and parsed.mqtt.hall == "hall-2"
    assert parsed.mqtt.broker.port == 18830
    assert parsed.pin_factory == "mock" and parsed.display_mode == "headless"
    assert parsed.match.preset == "football-p08"
    assert parsed.match.setup.home.name == "FC Kontu Valkoinen"


def test_a_hall_without_the_office_gets_its_match(tmp_path: Path) -> None:
    match = loaded().hall_matches("hall-2")[1]
    text = configs.hall_config("hall-2", state_dir=tmp_path, display="windowed", size=(960, 540),
                            broker=None, tournament=None, match=match)
    data = tomllib.loads(text)
    assert "mqtt" not in data
    assert data["match"] == {"preset": "football-p10", "id": "P10-A2", "stage": "group",
                             "home": "FC Honka Musta", "away": "KäPa Keltainen",
                             "home_colours": ["#111111", "#ffd100"],
                             "away_colours": ["#ffd400", "#000000"]}
    parsed = hall_config_file.parse(data, "demo.toml")
    assert parsed.match.setup.match_id == "P10-A2"
    assert parsed.match.setup.away.name == "KäPa Keltainen"
    assert parsed.display_size == (960, 540)


def test_the_hall_command_follows_the_daemons_flags(tmp_path: Path) -> None:
    argv = configs.hall_command(tmp_path / "h.toml", display="headless", state_dir=tmp_path / "s",
                             script_dir=tmp_path / "scripts", time_scale=30.0,
                             snapshots=tmp_path / "hall-1")
    assert argv[:4] == [sys.executable, "-m", "firmware_py.cli", "run"]
    joined = " ".join(argv)
    for flag in ("--headless", "--mock-pins", "--exit-when-done", "--time-scale 30",
                 f"--script-dir {tmp_path / 'scripts'}", f"--snapshots {tmp_path / 'hall-1'}",
                 f"--config {tmp_path / 'h.toml'}", f"--state-dir {tmp_path / 's'}"):
        assert flag in joined
    assert "--windowed" in configs.hall_command(tmp_path, display="windowed", state_dir=tmp_path,
                                             script_dir=tmp_path, time_scale=2.5,
                                             snapshots=tmp_path)


def test_the_office_command_serves_its_page_on_loopback_only(tmp_path: Path) -> None:
    argv = configs.office_command(Path("t.toml"), tmp_path / "o.sqlite", "mqtt://127.0.0.1:1",
                               http_port=8123)
    assert argv[1:4] == ["-m", "office", "serve"]
    assert argv[argv.index("--http") + 1] == "8123"
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert "--http" not in configs.office_command(Path("t.toml"), tmp_path, "mqtt://127.0.0.1:1")
    argv = configs.office_command(Path("t.toml"), tmp_path / "o.sqlite", "mqtt://127.0.0.1:1",
                                  public_port=8124, site=tmp_path / "site")
    assert argv[argv.index("--public-port") + 1] == "8124"
    assert argv[argv.index("--public-bind") + 1] == "127.0.0.1"
    # the halls are told the address the demo prints, so their QR codes lead there
    assert argv[argv.index("--public-url") + 1] == "http://127.0.0.1:8124/"
    assert argv[argv.index("--export-site") + 1] == str(tmp_path / "site")


def test_the_private_broker_listens_on_loopback_and_stays_root_only_as_root(
        tmp_path: Path) -> None:
    text = configs.mosquitto_config(18831, tmp_path / "m.log", as_root=False)
    assert "listener 18831 127.0.0.1" in text and "allow_anonymous true" in text
    assert "persistence false" in text and f"log_dest file {tmp_path / 'm.log'}" in text
    assert "user root" not in text
    assert "user root" in configs.mosquitto_config(1, tmp_path, as_root=True)


def test_windows_only_where_there_is_a_screen() -> None:
    assert configs.display_mode(False, {}) == "headless"
    assert configs.display_mode(False, {"DISPLAY": ":0"}) == "windowed"
    assert configs.display_mode(False, {"WAYLAND_DISPLAY": "wayland-0"}) == "windowed"
    assert configs.display_mode(True, {"DISPLAY": ":0"}) == "headless"


def test_out_must_be_empty_or_a_previous_demos(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(tournaments.DemoError, match="not empty"):
        workdir.prepare_work_dir(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    work, temporary = workdir.prepare_work_dir(tmp_path / "new")
    assert not temporary and (work / workdir.MARKER).exists()
    (work / "hall-1").mkdir()
    (work / "hall-1" / "old.png").write_bytes(b"")
    assert workdir.prepare_work_dir(work) == (work, False)
    assert not (work / "hall-1").exists()  # a new run starts clean


def test_a_bad_out_folder_is_reported_and_nothing_starts(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("")
    out = io.StringIO()
    args = demo_args(["--out", str(tmp_path), "--headless"])
    assert orchestration.run_demo(args, out, {}) == 1
    assert "arena-demo: --out" in out.getvalue() and "not empty" in out.getvalue()


def demo_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    command.add_arguments(p)
    return p.parse_args(argv)


# ---------------------------------------------------------------------------------------
# What the demo tells of a match: the records of its journal


LIONS_BEARS = MatchSetup("A1", Stage.GROUP, TeamInfo("Lions", ("#10233f", "#ffffff")),
                         TeamInfo("Bears", ("#f2f2f2", "#10233f")))
# Line 5 is refused (the clock is stopped already) and journals nothing.
SCRIPT = """\
{"t": 0, "do": "start"}
{"t": 10, "do": "penalty", "team": "away", "player": 19, "kind": "minor"}
{"t": 20, "do": "goal", "team": "home", "player": 9}
{"t": 30, "do": "stop"}
{"t": 31, "do": "stop"}
{"t": 40, "do": "set_clock", "ms": 105000}
{"t": 50, "do": "end"}
"""
TOLD = [
    "on the board: A1 Lions v Bears (ice-hockey-2x20, group)",
    "A1   period 1 starts",
    "A1   penalty away #19 minor in period 1",
    "A1   penalty away #19 minor starts",
    "A1   goal home #9 in period 1 at 19:40 left -> 1:0",
    "A1   penalty away #19 minor released",
    "A1   clock set from 19:30 to 1:45",
    "A1   period 1 ends (shortened) at 1:0",
    "A1   intermission of  1:00 before period 2",
    "A1   intermission ends",
]


def test_a_journal_the_recorder_wrote_is_told_event_by_event(tmp_path: Path) -> None:
    """The clock starting and stopping and the horns are left out; the rest, in order."""
    path = record_match(tmp_path, "ice-hockey-2x20", LIONS_BEARS, SCRIPT, "script.jsonl")
    records = scan(path.read_bytes(), path.name).records
    assert {"clock_stopped", "horn"} <= {r.get("event") for r in records}
    assert journal_lines(records, "A1", configured={"A1"}) == TOLD


def test_a_match_the_demo_did_not_configure_came_from_the_office(tmp_path: Path) -> None:
    path = record_match(tmp_path, "ice-hockey-2x20", LIONS_BEARS, SCRIPT, "script.jsonl")
    setup = scan(path.read_bytes(), path.name).records[0]
    assert record_line(setup, "A1", configured={"A3"}) == \
        "next match from the office: A1 Lions v Bears (ice-hockey-2x20, group)"


def test_results_refusals_and_odd_records_are_told_plainly() -> None:
    final = {"type": "event", "match": "A3", "seq": 40, "at": 5, "event": "match_ended",
             "data": {"result": {"home": 1, "away": 2, "decided_by": "shootout"},
                      "record": {"shootout": {"decisive": {"team": "away", "player": 7}}}}}
    assert record_line(final, "A3", ()) == \
        "A3   final 1:2 (shootout), decisive shot away #7"
    # A press the rules refused, but at which time passed: journalled as an advance.
    assert record_line({"type": "advance", "at": 9, "script": 12}, "A3", ()) == \
        "A3   script line 12 refused"
    assert record_line({"type": "advance", "at": 9}, "A3", ()) is None  # time passing
    for shell in ({"type": "timeline", "offset": 0}, {"type": "clock", "at": 1},
                  {"type": "command", "at": 1, "command": {"do": "goal", "team": "home"}}):
        assert record_line(shell, "A3", ()) is None  # the events tell what the input did
    # Data without what the words need (another version's journal) is still shown.
    odd = {"type": "event", "match": "A3", "seq": 1, "at": 0, "event": "goal",
           "data": {"team": "home"}}
    assert record_line(odd, "A3", ()) == "A3   goal (team home)"
    for unreadable in ({"type": "event", "match": "A3", "seq": 1, "at": 0, "event": "meteor"},
                       {"type": "event", "match": "A3", "seq": 1, "at": 0, "event": "goal",
                        "data": ["home"]}):
        line = record_line(unreadable, "A3", ())
        assert line is not None and line.startswith("A3   unreadable event record: ")


# ---------------------------------------------------------------------------------------
# Following the halls' journals while they play


def test_a_halls_journals_are_followed_record_by_record_in_the_order_opened(
        tmp_path: Path) -> None:
    state = tmp_path / "hall-1"
    journals = HallJournals([state])
    assert journals.read() == []  # the hall has not started yet: no folder
    path = record_match(state, "ice-hockey-2x20", LIONS_BEARS, SCRIPT, "script.jsonl")
    first = journals.read()
    assert [(g.match, len(g.records)) for g in first] == \
        [("A1", len(scan(path.read_bytes(), "A1").records))]
    assert journals.read() == []  # nothing new
    # A record the hall is still writing is left for the next read, then read whole.
    record = encode({"type": "clock", "at": 99})
    with path.open("ab") as f:
        f.write(record[:7])
    assert journals.read() == []
    with path.open("ab") as f:
        f.write(record[7:])
    assert [g.records for g in journals.read()] == [[{"type": "clock", "at": 99}]]
    # The office's next match: a new journal, after the old one's last records.
    a2 = MatchSetup("A2", Stage.GROUP, LIONS_BEARS.home, LIONS_BEARS.away)
    with path.open("ab") as f:
        f.write(encode({"type": "clock", "at": 100}))
    record_match(state, "ice-hockey-2x20", a2, SCRIPT, "script.jsonl")
    assert [g.match for g in journals.read()] == ["A1", "A2"]


def test_a_hall_without_the_office_is_followed_across_its_runs(tmp_path: Path) -> None:
    """One state folder a run (a match): each journal is read as its run writes it."""
    runs = [tmp_path / "hall-1-A1", tmp_path / "hall-1-A2"]
    journals = HallJournals(runs)
    record_match(runs[0], "ice-hockey-2x20", LIONS_BEARS, SCRIPT, "script.jsonl")
    assert [g.match for g in journals.read()] == ["A1"]
    a2 = MatchSetup("A2", Stage.GROUP, LIONS_BEARS.home, LIONS_BEARS.away)
    record_match(runs[1], "ice-hockey-2x20", a2, SCRIPT, "script.jsonl")
    assert [g.match for g in journals.read()] == ["A2"]


# ---------------------------------------------------------------------------------------
# The orchestration, with stand-in halls (the real ones: the last test)


FAKE_HALL = Path(__file__).with_name("demo_fake_hall.py")


def fake_halls(monkeypatch: pytest.MonkeyPatch, mode: str) -> list[list[str]]:
    """Every hall run becomes tests/demo_fake_hall.py in ``mode``, given the real run's
    flags; returns the real runs' argv, in the order planned."""
    calls: list[list[str]] = []
    real = configs.hall_command

    def command(config: Path, **kwargs: object) -> list[str]:
        argv = real(config, **kwargs)  # type: ignore[arg-type]
        calls.append(argv)
        return [sys.executable, str(FAKE_HALL), mode, *argv[4:]]

    monkeypatch.setattr(orchestration, "hall_command", command)
    monkeypatch.setattr(orchestration, "find_mosquitto", lambda *a, **k: None)
    return calls


@pytest.mark.parametrize("verbose", [False, True])
def test_without_mosquitto_each_hall_plays_its_matches_one_run_each(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, verbose: bool) -> None:
    calls = fake_halls(monkeypatch, "play")
    out = io.StringIO()
    argv = ["--out", str(tmp_path / "w")] + (["--verbose"] if verbose else [])
    code = orchestration.run_demo(demo_args(argv), out, {})
    text = out.getvalue()
    assert code == 0, text
    assert orchestration.NO_MOSQUITTO in text
    assert "No office ran, so there are no group tables (install mosquitto" in text
    assert len(calls) == 8  # every match of the event, each hall's one after the other
    d = loaded()
    for hall in d.halls():
        told = [line for line in text.splitlines() if line.startswith(f"{hall} | ")]
        for match in d.hall_matches(hall):
            config = tomllib.loads((tmp_path / "w" / "config" / f"{hall}-{match.id}.toml")
                                   .read_text(encoding="utf-8"))
            assert config["match"]["id"] == match.id and "mqtt" not in config
            home, away = FINALS[match.id]
            # Told from the journal each run wrote, in the order played.
            assert told.index(f"{hall} | on the board: {match.id} {match.home} v "
                              f"{match.away} ({match.preset}, {match.stage})") < \
                told.index(f"{hall} | {match.id:<4} final {home}:{away} (regulation)")
        assert "next match from the office" not in text
        # The fake halls' own output is in their logs, and on the screen only if asked.
        first = d.hall_matches(hall)[0].id
        assert f"{hall} log | fake hall played {first}" in text if verbose \
            else "fake hall" not in text
        last = d.hall_matches(hall)[-1].id
        assert f"fake hall played {last}" in (tmp_path / "w" / "logs" / f"{hall}.log").read_text()
    # Without the office a follow-up is played under its slots' names.
    assert "hall-1 | on the board: P10-F 1st A v 2nd A (football-p10, playoff)" in text
    assert all("--headless" in argv for argv in calls)  # no screen in `environ`


def test_a_failing_hall_fails_the_demo_with_the_end_of_its_log(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_halls(monkeypatch, "fail")
    out = io.StringIO()
    code = orchestration.run_demo(demo_args(["--out", str(tmp_path)]), out, {})
    text = out.getvalue()
    assert code == 1
    assert "failed (exit code 2)" in text
    assert "    scoreboard run: hall.toml: gpio.pin_factory: bad" in text
    assert "failed after" in text


def test_a_hall_that_does_not_finish_is_stopped_at_the_timeout(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The demo's clock passes the timeout once both halls have started (and, so that a
    demo that never looks at its clock cannot hang the suite, after many looks anyway)."""
    calls = fake_halls(monkeypatch, "hang")
    logs = [tmp_path / "logs" / f"{hall}.log" for hall in ("hall-1", "hall-2")]
    looks = 0

    def clock() -> float:
        nonlocal looks
        looks += 1
        started = all(log.exists() and "playing" in log.read_text() for log in logs)
        return 1000.0 if started or looks > 3000 else 0.0

    out = io.StringIO()
    code = orchestration.run_demo(demo_args(["--out", str(tmp_path), "--timeout", "1"]), out,
                                  {}, clock=clock)
    text = out.getvalue()
    assert code == 1
    assert "was not done after 1 s" in text and "    playing" in text
    assert len(calls) == 8  # every run planned ...
    for hall, log in zip(("hall-1", "hall-2"), logs, strict=True):
        # ... but only the first of each hall started, and it was stopped.
        assert log.read_text().count("playing") == 1
        pid = int((tmp_path / "state" / f"{hall}-{HALLS[hall][0]}" / "pid").read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# ---------------------------------------------------------------------------------------
# The command line


def test_help_explains_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        command.main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for words in ("mosquitto", "office serve", "scoreboard run", "--time-scale", "--headless",
                  "--out", "--examples", "PNG", "127.0.0.1", "rules 003", "P08", "P10",
                  "draw-lots", "categories"):
        assert words in text


def test_examples_keeps_the_narration(capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["--examples"]) == 0
    out = capsys.readouterr().out
    assert out.count("final ") >= 7
    assert "final 1:2 (overtime)" in out


def test_pictures_implies_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["--pictures", str(tmp_path)]) == 0
    assert any(p.name.endswith("-goal.png") for p in tmp_path.glob("*.png"))
    assert "final 1:2 (overtime)" in capsys.readouterr().out


def test_time_scale_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        command.main(["--time-scale", "0"])
    assert "must be a number > 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# The whole demo


MOSQUITTO = find_mosquitto()


@pytest.mark.slow
@pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed "
                    "(./quickstart.sh test installs it)")
def test_the_whole_demo_runs_headless_with_the_office(tmp_path: Path) -> None:
    """mosquitto, the event's office and two hall daemons, every match of both categories
    at the default time scale (the group games, the office's drawing of lots, the follow-ups),
    then the tables and the PNGs. (How long it takes is the benchmark's business:
    bench/demo.py.)"""
    work = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run([ARENA_DEMO, "--headless", "--out", str(work)],
                          capture_output=True, text=True, check=False, env=env, timeout=150)
    out = done.stdout
    assert done.returncode == 0, out[-6000:] + done.stderr[-3000:]
    assert "mosquitto: private broker on 127.0.0.1:" in out
    assert re.search(r"its page: http://127\.0\.0\.1:\d+/", out)
    site_url = re.search(r"public results site \(for phones\): (http://127\.0\.0\.1:\d+/)", out)
    assert site_url is not None
    d = loaded()
    # The public site's static export, beside the PNGs: every result in it.
    site = work / "site"
    assert f"The public site's static export: {site}" in out
    public = json.loads((site / "public.json").read_text(encoding="utf-8"))
    assert all(m["state"] in ("final", "confirmed") for m in public["matches"]), public
    index = (site / "index.html").read_text(encoding="utf-8")
    for category in d.categories:
        assert (site / "category" / slug(category.name) / "index.html").is_file()
    assert "FC Kontu Valkoinen" in index and "alerts" not in public
    heading = f"{d.name}: the office's tables"
    assert heading in out
    sections = _sections(out[out.index(heading):])
    for category, rows in TABLES.items():
        assert _rows(sections[category])[:3] == rows, sections
    for hall in d.halls():
        assert list((work / hall).rglob("*.png")), f"no PNG snapshots of {hall}"
    zbar = shutil.which("zbarimg")
    if zbar is not None:
        # Between games every hall shows the office's public address as a QR code (no
        # config of its own: docs/technician.md, "The hall display"): a later match's pregame
        # picture.
        for hall, played in HALLS.items():
            (picture, *_) = sorted((work / hall).rglob(f"{played[1]}-*-pregame-*.png"))
            read = subprocess.run([zbar, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable",
                                   str(picture)], capture_output=True, text=True, check=False,
                                  timeout=60)
            assert read.stdout.removesuffix("\n") == site_url.group(1), (picture, read.stderr)
    assert "PNG snapshots of the hall displays" in out
    # The office drew P08's lots, before hall-1 was sent P08's follow-up with their teams.
    drawn = out.index("office | Lots drawn for group A: FC Kontu Valkoinen, Ponnistus Punainen")
    assert drawn < out.index("hall-1 | next match from the office: P08-F FC Kontu Valkoinen v "
                             "Ponnistus Punainen (football-p08, playoff)")
    assert "hall-1 | next match from the office: P10-F HJK Sininen v FC Honka Musta " \
        "(football-p10, playoff)" in out
    for hall, played in HALLS.items():
        # The hall was configured with its first match only: the others came as `next`,
        # of either category.
        config = tomllib.loads((work / "config" / f"{hall}.toml").read_text(encoding="utf-8"))
        assert config["match"]["id"] == played[0]
        assert f"{hall} | on the board: {played[0]} " in out
        for match_id in played[1:]:
            assert f"{hall} | next match from the office: {match_id} " in out
        for match_id in played:
            home, away = FINALS[match_id]
            assert f"{hall} | {match_id:<4} final {home}:{away} (regulation)" in out
            # No press refused: every line of every script is journalled as a command.
            journal = work / "state" / hall / f"{match_id}.journal"
            records = scan(journal.read_bytes(), journal.name).records
            played_lines = sorted(r["script"] for r in records
                                  if r["type"] == "command" and "script" in r)
            lines = parse_script(d.script(match_id).read_text(encoding="utf-8"), match_id)
            assert played_lines == [line.line for line in lines], journal
    assert "refused" not in out and "arena-demo:" not in out
