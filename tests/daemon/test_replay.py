"""A match the office replays (docs/office.md, "Held matches, needs review and alerts"):
the hall on a fake clock gets the office's ``next`` of a match it already played, with
``replay``, and plays it as a fresh game in the same journal, numbered above the voided
events; the timekeeper is told; a crash mid-replay comes back to the replayed game and does
not start it again when the office's retained ``next`` arrives once more."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.core.phase import Phase, Team
from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.journal import scan
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall

CONFIG = """
[match]
preset = "floorball-2x15"
id = "A1"
[display]
final_hold_s = 2
[mqtt]
broker = "mqtt://127.0.0.1:1883"
tournament = "T1"
hall = "H1"
"""
LIONS = {"name": "Lions", "colours": ["#10233f", "#ffffff"]}
BEARS = {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}
WOLVES = {"name": "Wolves", "colours": ["#202020", "#ffcc00"]}
FINAL = {"match": "F", "preset": "floorball-2x15", "stage": "playoff", "label": "F",
         "teams": {"home": LIONS, "away": BEARS}}


def game(team: str, *, goal_at: float = 1) -> list[dict[str, Any]]:
    """One goal for ``team``, then both periods and the break ended: 1:0 (or 0:1)."""
    return [{"t": 0, "do": "start"}, {"t": goal_at, "do": "goal", "team": team, "player": 9},
            {"t": 5, "do": "end"}, {"t": 6, "do": "end"}, {"t": 7, "do": "end"}]


def records(hall: InProcessHall, match: str) -> list[dict[str, Any]]:
    path = hall.state_dir / f"{match}.journal"
    return scan(path.read_bytes(), str(path)).records


def run_to(daemon: Daemon, hall: InProcessHall, seconds: float, done: Any) -> None:
    daemon.run_until(hall.time.now + int(seconds * NS_PER_S), stop_when=done)
    assert done(), "not reached in time"


def final_played(hall: InProcessHall, scripts: Path, daemon: Daemon) -> int:
    """The office's `next` of F; its script played to a 1:0 final for Lions v Bears."""
    write_script(scripts / "F.jsonl", game("home"))
    hall.link.offer_next(FINAL)
    run_to(daemon, hall, 60, lambda: daemon.match.setup.match_id == "F"
           and daemon.match.state.phase is Phase.FINAL)
    assert daemon.match.state.score() == {Team.HOME: 1, Team.AWAY: 0}
    return daemon.match.state.seq


def test_a_replayed_match_is_played_as_a_fresh_game_numbered_above_the_voided_one(
        tmp_path: Path) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start(script_dir=scripts)
    voided = final_played(hall, scripts, daemon)
    link = hall.link
    # The office corrected a group result: Wolves, not Bears, and the final is replayed.
    write_script(scripts / "F.jsonl", game("away"))
    replay = dict(FINAL, teams={"home": LIONS, "away": WOLVES}, replay={"above_seq": voided})
    link.offer_next(json.loads(json.dumps(replay)))
    run_to(daemon, hall, 10, lambda: daemon.match.state.phase is Phase.PREGAME)
    # A fresh game: the new pairing, nothing on the board, the timekeeper told it is a
    # replay (the operator line, the pregame screen's word, the operator view).
    state = daemon.match.state
    assert daemon.match.setup.away.name == "Wolves" and daemon.replaying
    assert state.goals == () and state.box == () and state.seq == voided
    assert state.clock.remaining(hall.time.now) == 15 * 60 * NS_PER_S  # rules 001: 2 x 15
    notice = daemon.feedback.current(daemon.timeline.now())
    assert notice is not None and notice.press == "REPLAY F"
    between = daemon.between(daemon.timeline.now())
    assert between is not None and between["next"]["replay"] is True
    assert daemon.status()["feedback"]["text"] == "REPLAY F OK"
    run_to(daemon, hall, 60, lambda: daemon.match.state.phase is Phase.FINAL)
    assert daemon.match.state.score() == {Team.HOME: 0, Team.AWAY: 1}

    held = records(hall, "F")
    seqs = [r["seq"] for r in held if r["type"] == "event"]
    assert seqs == list(range(1, len(seqs) + 1))  # both games, gapless
    setups = [i for i, r in enumerate(held) if r["type"] == "match"]
    assert len(setups) == 2 and held[setups[1]]["replay"] == {"above_seq": voided}
    replayed = [r for r in held[setups[1]:] if r["type"] == "event"]
    assert replayed[0]["seq"] == voided + 1
    assert replayed[-1]["event"] == "match_ended"
    assert replayed[-1]["data"]["result"] == {"home": 0, "away": 1,
                                              "decided_by": "regulation"}
    daemon.run_until(hall.time.now + NS_PER_S)
    assert link.acked_upto("F") == seqs[-1]  # every event of both games sent and stored
    hall.stop()


def test_a_crash_mid_replay_comes_back_to_the_replay_and_never_starts_it_again(
        tmp_path: Path) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start(script_dir=scripts)
    voided = final_played(hall, scripts, daemon)
    write_script(scripts / "F.jsonl", game("away", goal_at=2))
    replay = dict(FINAL, teams={"home": LIONS, "away": WOLVES}, replay={"above_seq": voided})
    hall.link.offer_next(replay)
    run_to(daemon, hall, 60, lambda: daemon.replaying
           and daemon.match.state.score()[Team.AWAY] == 1)
    goal_seq = daemon.match.state.goals[-1].seq
    hall.crash()

    daemon = hall.start(script_dir=scripts)
    state = daemon.match.state
    assert daemon.match.setup.match_id == "F" and daemon.replaying
    assert daemon.match.setup.away.name == "Wolves"
    assert state.phase is Phase.PERIOD and state.score() == {Team.HOME: 0, Team.AWAY: 1}
    # The office's retained `next` again (it is re-read on every connection): the same
    # replay order, which this journal has started already.
    hall.link.offer_next(replay)
    run_to(daemon, hall, 60, lambda: daemon.match.state.phase is Phase.FINAL)
    assert daemon.match.state.score() == {Team.HOME: 0, Team.AWAY: 1}
    held = records(hall, "F")
    assert [r.get("replay") for r in held if r["type"] == "match"] == [
        None, {"above_seq": voided}]
    goals = [r for r in held if r["type"] == "event" and r["event"] == "goal"]
    assert [g["seq"] for g in goals] == [goals[0]["seq"], goal_seq]  # no script line twice
    daemon.run_until(hall.time.now + 5 * NS_PER_S)
    assert daemon.match.state.phase is Phase.FINAL and daemon.replaying  # still the replay
    hall.stop()


def test_a_hall_with_no_journal_of_the_match_numbers_the_replay_above_the_offices_seq(
        tmp_path: Path) -> None:
    """The replay moved to another hall (or this one lost its journal)."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    write_script(scripts / "F.jsonl", game("home"))
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start(script_dir=scripts)
    hall.link.stored["F"] = set(range(1, 31))  # what the office holds of the first hall's
    hall.link.offer_next(dict(FINAL, replay={"above_seq": 30}))
    run_to(daemon, hall, 60, lambda: daemon.match.setup.match_id == "F"
           and daemon.match.state.phase is Phase.FINAL)
    seqs = [r["seq"] for r in records(hall, "F") if r["type"] == "event"]
    assert seqs == list(range(31, 31 + len(seqs)))
    daemon.run_until(hall.time.now + NS_PER_S)
    assert hall.link.acked_upto("F") == seqs[-1]
    hall.stop()
