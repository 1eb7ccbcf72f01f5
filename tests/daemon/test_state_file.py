"""``--state-file``: each frame's state document, and beside it the between-games data of the
same frame while that screen is up, so that ``scoreboard snapshot --state F --between
F.between.json`` draws what the board showed (the virtual Pi compares the two pictures)."""

from __future__ import annotations

import json
from pathlib import Path

from arena.core.units import NS_PER_S
from firmware_py.outputs import between_file
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall

CONFIG = """
[match]
preset = "floorball-2x15"
id = "M1"
"""


def test_the_between_data_lies_beside_the_state_while_its_screen_is_up(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, CONFIG)
    state = tmp_path / "state.json"
    script = write_script(tmp_path / "s.jsonl", [{"t": 2, "do": "start"}])
    daemon = hall.start(script=script, state_file=state)
    daemon.run_until(hall.time.now + NS_PER_S)
    beside = between_file(state)
    assert beside == tmp_path / "state.between.json"
    last = hall.frames[-1]
    assert last.between is not None, "the pregame board shows the between-games screen"
    assert json.loads(beside.read_text()) == json.loads(json.dumps(last.between))
    assert json.loads(state.read_text())["phase"] == last.doc["phase"]

    daemon.run_until(hall.time.now + 3 * NS_PER_S)  # the game is on: the screen is gone
    assert hall.frames[-1].between is None
    assert not beside.exists()
    hall.stop()


def test_no_state_file_no_between_file(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, CONFIG)
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    assert not list(tmp_path.glob("*.between.json"))
    hall.stop()


def test_the_between_data_is_written_when_it_changes_not_every_frame(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, CONFIG)
    state = tmp_path / "state.json"
    beside = between_file(state)
    beside.write_text('{"left": "by an earlier run"}')
    daemon = hall.start(state_file=state)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    assert json.loads(beside.read_text()) == json.loads(json.dumps(hall.frames[-1].between))
    written = beside.stat().st_ino  # each write replaces the file: a new inode
    frames = len(hall.frames)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    assert len(hall.frames) > frames
    same = all(f.between == hall.frames[frames - 1].between for f in hall.frames[frames:])
    assert same, "nothing on the between screen changed in that half second"
    assert beside.stat().st_ino == written
    hall.stop()


def test_a_stale_between_file_goes_when_the_first_frame_has_no_between_screen(
        tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, CONFIG)
    state = tmp_path / "state.json"
    script = write_script(tmp_path / "s.jsonl", [{"t": 0, "do": "start"}])
    beside = between_file(state)
    beside.write_text('{"left": "by an earlier run"}')
    daemon = hall.start(script=script, state_file=state)
    daemon.run_until(hall.time.now + NS_PER_S)
    assert hall.frames[-1].between is None
    assert not beside.exists()
    hall.stop()
