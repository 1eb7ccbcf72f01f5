"""A second board as processes against the shipped broker (systemd/mosquitto/arena.conf and
arena.acl, with the ACL's ``#mirror`` block filled in for ``hall-a`` as its README says):
``scoreboard run`` for hall-a and ``scoreboard run --mirror hall-a`` logged in as
``mirror-hall-a``. The mirror shows the hall's running clock from the anchor, writes no
journal, and says BOARD LINK LOST once the hall has stopped (its retained ``offline``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.conftest import Hall, write_script
from tests.fixtures import SHIPPED_USERS, ShippedBroker, mirror_acl, stop_gently, wait_for

pytestmark = pytest.mark.slow  # processes

ROOT = Path(__file__).resolve().parents[2]


def config(port: int, user: str, password_file: Path) -> str:
    password_file.write_text(SHIPPED_USERS.get(user, "mirror-secret") + "\n")
    return f"""
[match]
preset = "floorball-2x15"
id = "M1"

[mqtt]
broker = "mqtt://127.0.0.1:{port}"
tournament = "T1"
hall = "hall-a"
username = "{user}"
password_file = "{password_file}"
"""


def read(path: Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None


def test_the_mirror_follows_the_hall_and_marks_it_gone(tmp_path: Path) -> None:
    users = {**SHIPPED_USERS, "mirror-hall-a": "mirror-secret"}
    broker = ShippedBroker(tmp_path / "broker", users, acl=mirror_acl(tmp_path, "hall-a"))
    broker.start()
    hall = Hall(tmp_path / "hall", config(broker.port, "hall-a", tmp_path / "hall-pw"))
    script = write_script(tmp_path / "s.jsonl", [{"t": 1, "do": "start"}])
    work = tmp_path / "mirror"
    work.mkdir()
    state = work / "shown.json"
    conf = work / "scoreboard.toml"
    conf.write_text(config(broker.port, "mirror-hall-a", tmp_path / "mirror-pw"))
    log = work / "mirror.log"
    mirror = None
    try:
        hall.start("--script", str(script))
        with open(log, "ab") as out:
            mirror = subprocess.Popen(
                [sys.executable, "-m", "firmware_py.cli", "run", "--mirror", "hall-a",
                 "--headless", "--config", str(conf), "--state-file", str(state),
                 "--mirror-silent", "3"], cwd=work, stdout=out, stderr=subprocess.STDOUT)

        def running() -> bool:
            doc = read(state)
            return doc is not None and doc["running"] and doc["clock_ms"] < 899_000

        wait_for(running, 30, "the mirror to show the hall's running clock")
        # Both files at about one instant: the same second (the hall's at_ns is its match
        # time, the mirror's its monotonic instant; what is compared is what is shown).
        ours, theirs = read(hall.state_file), read(state)
        assert ours is not None and theirs is not None
        assert abs(ours["clock_ms"] - theirs["clock_ms"]) < 1000
        assert (theirs["match"], theirs["phase"]) == (ours["match"], ours["phase"])
        assert "anchor" not in theirs
        assert not (work / "state").exists() and not list(work.glob("*.jsonl"))
        assert hall.signal() == 0  # the hall stops: its last state, then `offline`
        wait_for(lambda: "board link lost" in log.read_text(), 15, "BOARD LINK LOST")
        # The hall stopped with its clock running: the mirror's runs on from the anchor.
        before = read(state)
        assert before is not None and before["running"]
        wait_for(lambda: (read(state) or before)["clock_ms"] < before["clock_ms"], 5,
                 "the mirror's clock to run on")
        assert mirror.poll() is None
        stop_gently(mirror)
        assert mirror.returncode == 0
        assert sorted(p.name for p in work.iterdir()) == ["mirror.log", "scoreboard.toml",
                                                         "shown.json"]
    finally:
        if mirror is not None and mirror.poll() is None:
            mirror.kill()
            mirror.wait()
        if hall.proc is not None and hall.proc.poll() is None:
            hall.kill()
        broker.stop()
