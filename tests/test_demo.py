"""``scoreboard demo``: its tournaments and scripts, its generated configs, its tables, and
one whole run with a real mosquitto, real offices and real hall daemons.

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
import subprocess
import sys
import time
import tomllib
from datetime import datetime
from pathlib import Path

import pytest

from firmware_py import config as hall_config_file
from firmware_py import demo, presets
from firmware_py.cli import main
from firmware_py.core.match import Match, feed
from firmware_py.core.phase import Stage
from firmware_py.core.values import MatchSetup, TeamInfo
from firmware_py.outbox import event_payload
from firmware_py.script import parse_script
from office.files import load_tournament
from office.intake import HallEvent
from office.store import Store

SCOREBOARD = str(Path(sys.executable).parent / "scoreboard")

# What each match's script must end with: (home goals, away goals).
FINALS = {
    ("hockey", "A1"): (2, 2),
    ("hockey", "A2"): (3, 1),
    ("hockey", "A3"): (1, 3),
    ("football", "A1"): (1, 1),
    ("football", "A2"): (4, 0),
    ("football", "A3"): (1, 5),
}
# The tables the demo must print: team order and the "why" of each row.
TABLES = {
    "hockey": [("Tartu Valk", "fewer penalty minutes"), ("HK Riga", "points"),
               ("Narva PSK", "")],
    "football": [("HJK Sininen", "goals for"), ("FC Honka Musta", "points"),
                 ("KäPa Keltainen", "")],
}


def tournaments() -> dict[str, demo.DemoTournament]:
    return {t.key: t for t in demo.load_demo_tournaments()}


# ---------------------------------------------------------------------------------------
# The tournaments and their scripts


def test_the_demo_tournaments_load_with_one_hall_each() -> None:
    loaded = tournaments()
    assert list(loaded) == list(demo.DEMO_TOURNAMENTS)
    for key, rules_preset, hall in (("hockey", "ice-hockey-2x20", "hall-1"),
                                    ("football", "football-p10", "hall-2")):
        t = load_tournament(demo.DEMO_DIR / f"{key}.toml")  # the office's reader
        assert [g.name for g in t.groups] == ["A"]
        assert len(t.groups[0].teams) == 3
        assert t.halls() == (hall,)
        d = loaded[key]
        assert d.id == t.id and d.hall == hall
        assert [m.id for m in d.matches] == ["A1", "A2", "A3"]
        assert {m.preset for m in d.matches} == {rules_preset}
        assert all(m.stage == "group" for m in d.matches)
        assert all(m.home_colours and m.away_colours for m in d.matches)


@pytest.mark.parametrize(("key", "match"), sorted(FINALS))
def test_every_script_replays_cleanly_under_its_preset(key: str, match: str) -> None:
    """No refusals, and the match is over (by the clock or by `end`) with its score."""
    d = tournaments()[key]
    preset = d.matches[0].preset
    done = subprocess.run([SCOREBOARD, "replay", str(d.script(match)), "--preset", preset,
                           "--match", match, "--at", "100", "--at", "3600"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    during, end = (json.loads(line) for line in done.stdout.splitlines())
    assert during["phase"] in ("period", "intermission")
    assert end["phase"] == "final"
    home, away = FINALS[(key, match)]
    assert end["result"] == {"home": home, "away": away, "decided_by": "regulation"}


def test_the_scripts_show_what_the_demo_is_for() -> None:
    """Period 1 shortened with `end`, the 1 min break, period 2 into its last-minute stop
    time (rules 000); penalties and power-play goals; the P10 extra player (rules 003)."""
    d = tournaments()
    for m in d["hockey"].matches:
        lines = [line.command.name for line in
                 parse_script(d["hockey"].script(m.id).read_text(encoding="utf-8"), m.id)]
        assert "end" in lines and "penalty" in lines and "set_clock" in lines
        states = _replay(d["hockey"].script(m.id), "ice-hockey-2x20",
                         [i / 2 for i in range(0, 700)])
        assert any(s["phase"] == "intermission" for s in states)
        assert any(s["stop_time"] and not s["running"] for s in states)
        assert any(s["strength"]["home"] < 5 or s["strength"]["away"] < 5 for s in states)
        final = next(s for s in states if s["phase"] == "final")
        assert final["t"] < 300, "each hockey match lasts a few minutes of game time"
    for m in d["football"].matches:
        states = _replay(d["football"].script(m.id), "football-p10",
                         [float(t) for t in range(0, 200)])
        assert next(s for s in states if s["phase"] == "final")["t"] < 200
    a3 = _replay(d["football"].script("A3"), "football-p10", [120.0])
    assert a3[0]["extra_player"] == "home" and a3[0]["strength"] == {"home": 5, "away": 4}


def _replay(script: Path, preset: str, at: list[float]) -> list[dict[str, object]]:
    argv = [SCOREBOARD, "replay", str(script), "--preset", preset]
    for t in at:
        argv += ["--at", str(t)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


# ---------------------------------------------------------------------------------------
# The tables the offices compute


def _played_into_store(d: demo.DemoTournament, db: Path) -> None:
    """Every match of ``d`` played through the core and stored as the office stores what
    a hall sends (``events`` messages)."""
    store = Store(db)
    try:
        for m in d.matches:
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
                p = event_payload(d.hall, {"match": m.id, "seq": e.seq, "event": e.kind.value,
                                           "data": dict(e.data), "at": e.at})
                store.add_event(HallEvent(p["event_id"], d.hall, m.id, p["seq"], p["type"],
                                          p["data"], p["at_ns"], p["wall"]), datetime.now())
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


@pytest.mark.parametrize("key", demo.DEMO_TOURNAMENTS)
def test_the_scripts_make_the_table_and_it_is_printed(key: str, tmp_path: Path) -> None:
    d = tournaments()[key]
    db = tmp_path / "office.sqlite"
    _played_into_store(d, db)
    assert demo.tables_complete(d.file, db)
    out: list[str] = []
    assert demo.print_tables(d, db, out.append)
    printed = "\n".join(out)
    assert out[0].startswith(f"{d.name}: the office's table ({key}.toml")
    assert "Group A (complete" in printed
    assert _rows(printed) == TABLES[key]


def test_a_missing_store_is_not_complete_and_printing_it_says_why(tmp_path: Path) -> None:
    d = tournaments()["hockey"]
    assert not demo.tables_complete(d.file, tmp_path / "none.sqlite")
    out: list[str] = []
    assert not demo.print_tables(d, tmp_path / "none.sqlite", out.append)
    assert "office standings failed" in "\n".join(out)
    assert "no such store" in "\n".join(out)


# ---------------------------------------------------------------------------------------
# The pieces' configuration


def test_a_hall_on_the_broker_gets_its_tournament_hall_and_first_match(tmp_path: Path) -> None:
    first = tournaments()["football"].matches[0]
    text = demo.hall_config("hall-2", state_dir=tmp_path / "state", display="headless",
                            size=(1280, 720), broker="mqtt://127.0.0.1:18830",
                            tournament="demo-spring-cup", match=first)
    data = tomllib.loads(text)
    assert data["match"]["id"] == "A1"  # the office sends the later ones as `next`
    assert data["mqtt"] == {"broker": "mqtt://127.0.0.1:18830", "tournament": "demo-spring-cup",
                            "hall": "hall-2"}
    assert data["gpio"] == {"pin_factory": "mock"}
    assert data["display"] == {"mode": "headless", "size": "1280x720"}
    assert data["state"] == {"dir": str(tmp_path / "state")}
    parsed = hall_config_file.parse(data, "demo.toml")  # the daemon's own checks
    assert parsed.mqtt is not None and parsed.mqtt.hall == "hall-2"
    assert parsed.mqtt.broker.port == 18830
    assert parsed.pin_factory == "mock" and parsed.display_mode == "headless"
    assert parsed.match.preset == "football-p10"
    assert parsed.match.setup.home.name == "HJK Sininen"


def test_a_hall_without_the_office_gets_its_match(tmp_path: Path) -> None:
    match = tournaments()["football"].matches[1]
    text = demo.hall_config("hall-2", state_dir=tmp_path, display="windowed", size=(960, 540),
                            broker=None, tournament=None, match=match)
    data = tomllib.loads(text)
    assert "mqtt" not in data
    assert data["match"] == {"preset": "football-p10", "id": "A2", "stage": "group",
                             "home": "FC Honka Musta", "away": "KäPa Keltainen",
                             "home_colours": ["#111111", "#ffd100"],
                             "away_colours": ["#ffd400", "#000000"]}
    parsed = hall_config_file.parse(data, "demo.toml")
    assert parsed.match.setup.match_id == "A2"
    assert parsed.match.setup.away.name == "KäPa Keltainen"
    assert parsed.display_size == (960, 540)


def test_the_hall_command_follows_the_daemons_flags(tmp_path: Path) -> None:
    argv = demo.hall_command(tmp_path / "h.toml", display="headless", state_dir=tmp_path / "s",
                             script_dir=tmp_path / "scripts", time_scale=30.0,
                             snapshots=tmp_path / "hall-1")
    assert argv[:4] == [sys.executable, "-m", "firmware_py.cli", "run"]
    joined = " ".join(argv)
    for flag in ("--headless", "--mock-pins", "--exit-when-done", "--time-scale 30",
                 f"--script-dir {tmp_path / 'scripts'}", f"--snapshots {tmp_path / 'hall-1'}",
                 f"--config {tmp_path / 'h.toml'}", f"--state-dir {tmp_path / 's'}"):
        assert flag in joined
    assert "--windowed" in demo.hall_command(tmp_path, display="windowed", state_dir=tmp_path,
                                             script_dir=tmp_path, time_scale=2.5,
                                             snapshots=tmp_path)


def test_the_office_command_serves_its_page_on_loopback_only(tmp_path: Path) -> None:
    argv = demo.office_command(Path("t.toml"), tmp_path / "o.sqlite", "mqtt://127.0.0.1:1",
                               http_port=8123)
    assert argv[1:4] == ["-m", "office", "serve"]
    assert argv[argv.index("--http") + 1] == "8123"
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert "--http" not in demo.office_command(Path("t.toml"), tmp_path, "mqtt://127.0.0.1:1")


def test_the_private_broker_listens_on_loopback_and_stays_root_only_as_root(
        tmp_path: Path) -> None:
    text = demo.mosquitto_config(18831, tmp_path / "m.log", as_root=False)
    assert "listener 18831 127.0.0.1" in text and "allow_anonymous true" in text
    assert "persistence false" in text and f"log_dest file {tmp_path / 'm.log'}" in text
    assert "user root" not in text
    assert "user root" in demo.mosquitto_config(1, tmp_path, as_root=True)


def test_windows_only_where_there_is_a_screen() -> None:
    assert demo.display_mode(False, {}) == "headless"
    assert demo.display_mode(False, {"DISPLAY": ":0"}) == "windowed"
    assert demo.display_mode(False, {"WAYLAND_DISPLAY": "wayland-0"}) == "windowed"
    assert demo.display_mode(True, {"DISPLAY": ":0"}) == "headless"


def test_mosquitto_is_found_on_the_path_or_where_debian_puts_it(tmp_path: Path) -> None:
    assert demo.find_mosquitto(lambda name: "/opt/bin/mosquitto") == "/opt/bin/mosquitto"
    assert demo.find_mosquitto(lambda name: None, tmp_path / "absent") is None
    binary = tmp_path / "mosquitto"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    assert demo.find_mosquitto(lambda name: None, binary) == str(binary)


def test_out_must_be_empty_or_a_previous_demos(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(demo.DemoError, match="not empty"):
        demo.prepare_work_dir(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    work, temporary = demo.prepare_work_dir(tmp_path / "new")
    assert not temporary and (work / demo.MARKER).exists()
    (work / "hall-1").mkdir()
    (work / "hall-1" / "old.png").write_bytes(b"")
    assert demo.prepare_work_dir(work) == (work, False)
    assert not (work / "hall-1").exists()  # a new run starts clean


def test_a_bad_out_folder_is_reported_and_nothing_starts(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("")
    out = io.StringIO()
    args = demo_args(["--out", str(tmp_path), "--headless"])
    assert demo.run_demo(args, out, {}) == 1
    assert "scoreboard demo: --out" in out.getvalue() and "not empty" in out.getvalue()


def demo_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    demo.add_arguments(p)
    return p.parse_args(argv)


# ---------------------------------------------------------------------------------------
# What the demo shows of the halls' logs


STATE = ('level=info logger=daemon msg=state match=A1 phase=period period=2 clock=40.7 '
         'score=2-2 penalties_home=4:minor,22:double_minor(waiting) penalties_away=- '
         'timeout=null result=null restored=false')


def test_the_daemons_key_value_lines_are_parsed() -> None:
    fields = demo.parse_logfmt('level=info logger=daemon msg="next match loaded" match=A2 '
                               'home="KäPa \\"K\\" Keltainen" away=x')
    assert fields == {"level": "info", "logger": "daemon", "msg": "next match loaded",
                      "match": "A2", "home": 'KäPa "K" Keltainen', "away": "x"}
    assert demo.parse_logfmt("Traceback (most recent call last):") is None
    assert demo.parse_logfmt('level=info msg="unterminated') is None


def test_the_halls_lines_are_narrated() -> None:
    assert demo.narrate(STATE) == ("A1   period 2        40.7  2-2   penalties: home #4 "
                                   "minor, home #22 double_minor (waiting)")
    final = ("level=info logger=daemon msg=state match=A3 phase=final period=1 clock=0:00 "
             "score=1-5 penalties_home=- penalties_away=- timeout=null "
             "result=1-5/regulation restored=false")
    assert demo.narrate(final) == "A3   final           0:00  1-5   result 1-5 regulation"
    assert demo.narrate('level=info logger=daemon msg="command applied" match=A1 do=penalty '
                        'team=away player=19 kind=minor at=1.0 source=script line=2') == \
        "A1   > penalty away #19 minor"
    assert demo.narrate('level=info logger=daemon msg="command applied" match=A1 '
                        'do=set_clock ms=105000 at=1.0') == "A1   > set_clock 1:45"
    assert demo.narrate('level=info logger=daemon msg="command applied" match=A1 do=stop '
                        'at=1.0') is None  # the state lines show the clock stopping
    assert demo.narrate('level=info logger=daemon msg=deadline match=A1 '
                        'events=period_ended,horn,match_ended') == \
        "A1   > period_ended, horn, match_ended"
    assert demo.narrate('level=warning logger=daemon msg="command refused" match=A1 do=stop '
                        'reason="the clock is not running"') == \
        'WARNING: msg=command refused match=A1 do=stop reason=the clock is not running'
    assert demo.narrate('level=info logger=daemon msg="first frame" ms=12') is None
    assert demo.narrate("pygame-ce 2.5.2 (SDL 2.30.8)") == "pygame-ce 2.5.2 (SDL 2.30.8)"


# ---------------------------------------------------------------------------------------
# The orchestration, with stand-in halls (the real ones: the last test)


def fake_halls(monkeypatch: pytest.MonkeyPatch, code: str) -> list[list[str]]:
    """Every hall run becomes ``python -c code`` (given the real argv as sys.argv)."""
    calls: list[list[str]] = []

    def command(config: Path, **kwargs: object) -> list[str]:
        argv = demo.hall_command.__wrapped__(config, **kwargs)  # type: ignore[attr-defined]
        calls.append(argv)
        return [sys.executable, "-c", code, *argv[4:]]

    command.__wrapped__ = demo.hall_command  # type: ignore[attr-defined]
    monkeypatch.setattr(demo, "hall_command", command)
    return calls


DONE = ("import sys; print('level=info logger=daemon msg=state match=' "
        "+ sys.argv[sys.argv.index('--config') + 1].rsplit('-', 1)[-1].removesuffix('.toml') "
        "+ ' phase=final period=1 clock=0:00 score=1-0 penalties_home=- penalties_away=- "
        "timeout=null result=1-0/regulation restored=false'); "
        "print('level=info logger=daemon msg=stopped reason=done')")


def test_without_mosquitto_each_hall_plays_its_matches_one_run_each(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(demo, "find_mosquitto", lambda *a, **k: None)
    calls = fake_halls(monkeypatch, DONE)
    out = io.StringIO()
    code = demo.run_demo(demo_args(["--out", str(tmp_path / "w")]), out, {})
    text = out.getvalue()
    assert code == 0, text
    assert demo.NO_MOSQUITTO in text
    assert "No office ran, so there are no group tables (install mosquitto" in text
    assert len(calls) == 6  # three matches in each of two halls, one after the other
    for hall in ("hall-1", "hall-2"):
        for match in ("A1", "A2", "A3"):
            config = tomllib.loads((tmp_path / "w" / "config" / f"{hall}-{match}.toml")
                                   .read_text(encoding="utf-8"))
            assert config["match"]["id"] == match and "mqtt" not in config
            assert f"{hall} | {match}   final" in text
    assert all("--headless" in argv for argv in calls)  # no screen in `environ`


def test_a_failing_hall_fails_the_demo_with_the_end_of_its_log(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(demo, "find_mosquitto", lambda *a, **k: None)
    fake_halls(monkeypatch, "import sys; print('scoreboard run: hall.toml: gpio.pin_factory: "
               "bad'); sys.exit(2)")
    out = io.StringIO()
    code = demo.run_demo(demo_args(["--out", str(tmp_path)]), out, {})
    text = out.getvalue()
    assert code == 1
    assert "failed (exit code 2)" in text
    assert "    scoreboard run: hall.toml: gpio.pin_factory: bad" in text
    assert "failed after" in text


def test_a_hall_that_does_not_finish_is_stopped_at_the_timeout(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(demo, "find_mosquitto", lambda *a, **k: None)
    calls = fake_halls(monkeypatch, "import time; print('playing', flush=True); "
                       "time.sleep(60)")
    out = io.StringIO()
    began = time.monotonic()
    code = demo.run_demo(demo_args(["--out", str(tmp_path), "--timeout", "1"]), out, {})
    assert time.monotonic() - began < 20
    text = out.getvalue()
    assert code == 1
    assert "was not done after 1 s" in text and "    playing" in text
    assert len(calls) == 6  # every run planned ...
    for hall in ("hall-1", "hall-2"):  # ... but only the first of each hall started
        assert (tmp_path / "logs" / f"{hall}.log").read_text().count("playing") == 1


# ---------------------------------------------------------------------------------------
# The command line


def test_help_explains_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for words in ("mosquitto", "office serve", "scoreboard run", "--time-scale", "--headless",
                  "--out", "--examples", "PNG", "127.0.0.1", "rules 000", "rules 003"):
        assert words in text


def test_examples_keeps_the_narration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--examples"]) == 0
    out = capsys.readouterr().out
    assert out.count("final ") >= 7
    assert "final 1:2 (overtime)" in out


def test_pictures_implies_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--pictures", str(tmp_path)]) == 0
    assert any(p.name.endswith("-goal.png") for p in tmp_path.glob("*.png"))
    assert "final 1:2 (overtime)" in capsys.readouterr().out


def test_time_scale_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--time-scale", "0"])
    assert "must be a number > 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# The whole demo


MOSQUITTO = demo.find_mosquitto()


@pytest.mark.slow
@pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed "
                    "(./quickstart.sh test installs it)")
def test_the_whole_demo_runs_headless_with_the_office(tmp_path: Path) -> None:
    """About 35 s: mosquitto, two offices and two hall daemons, every match of both
    tournaments at the default time scale, then the tables and the PNGs."""
    work = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    began = time.monotonic()
    done = subprocess.run([SCOREBOARD, "demo", "--headless", "--out", str(work)],
                          capture_output=True, text=True, check=False, env=env, timeout=150)
    took = time.monotonic() - began
    out = done.stdout
    assert done.returncode == 0, out[-6000:] + done.stderr[-3000:]
    assert "mosquitto: private broker on 127.0.0.1:" in out
    assert re.search(r"its page: http://127\.0\.0\.1:\d+/", out)
    assert "hall-1 | " in out and "hall-2 | " in out
    d = tournaments()
    for key in demo.DEMO_TOURNAMENTS:
        heading = f"{d[key].name}: the office's table"
        assert heading in out
        section = out[out.index(heading):]
        assert _rows(section)[:3] == TABLES[key], section
    for hall in ("hall-1", "hall-2"):
        assert list((work / hall).rglob("*.png")), f"no PNG snapshots of {hall}"
    assert "PNG snapshots of the hall displays" in out
    for hall in ("hall-1", "hall-2"):
        assert f"{hall} | next match from the office: A2 " in out
        assert f"{hall} | A3   final" in out
    assert "command refused" not in out and "ERROR" not in out
    assert took < 60, f"the demo took {took:.0f} s"
