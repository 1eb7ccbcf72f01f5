"""Identity: a state folder left by another tournament or hall is never replayed or sent.

In-process halls on a fake clock with the fake office (tests/daemon/inprocess.py): the first
hall plays in one tournament, the second starts on the same state directory in another.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.matchfiles import MatchFiles
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall

NEXT = {"match": "A2", "preset": "floorball-2x15", "stage": "group",
        "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}}}


def linked(tournament: str, hall: str = "H1", match: str = "M1") -> str:
    return f"""
[match]
preset = "floorball-2x15"
id = "{match}"
[display]
final_hold_s = 1
[mqtt]
broker = "mqtt://127.0.0.1:1883"
tournament = "{tournament}"
hall = "{hall}"
"""


def score(daemon: Daemon) -> dict[str, int]:
    doc = daemon.document(daemon.timeline.now())
    return dict(doc["score"])


def last_year(tmp_path: Path, match: str = "M1", hall: str = "H1") -> None:
    """Last year's cup on this state folder: a game begun, two goals, then a crash (and
    the fake office down, so nothing of it was acknowledged)."""
    hall_run = InProcessHall(tmp_path, linked("cup-2025", hall, match))
    script = write_script(tmp_path / "old.jsonl", [
        {"t": 0, "do": "start"}, {"t": 1, "do": "goal", "team": "home", "player": 9},
        {"t": 2, "do": "goal", "team": "home", "player": 9}])
    daemon = hall_run.start(script=script)
    hall_run.link.online = False
    daemon.run_until(hall_run.time.now + 3 * NS_PER_S)
    assert score(daemon) == {"home": 2, "away": 0}
    assert hall_run.link.unacked > 0
    hall_run.crash()


@pytest.mark.parametrize(("tournament", "hall", "label"), [
    ("cup-2026", "H1", "cup-2025-H1"),  # next year's cup: the same match id M1
    ("cup-2025", "H2", "cup-2025-H1"),  # the same cup, the board moved to another hall
])
def test_another_tournaments_or_halls_journals_are_set_aside_never_sent(
        tmp_path: Path, tournament: str, hall: str, label: str) -> None:
    last_year(tmp_path)
    now = InProcessHall(tmp_path, linked(tournament, hall))
    daemon = now.start()
    daemon.run_until(now.time.now + NS_PER_S)
    # Not resumed: a fresh M1, nothing restored, nothing of the old game offered or sent.
    assert score(daemon) == {"home": 0, "away": 0}
    assert daemon.match.state.phase.value == "pregame"
    assert daemon.session is not None and not daemon.session.restored
    assert now.link.sent == [] and now.link.unacked == 0
    aside = now.state_dir / "set-aside" / f"001-{label}"
    assert (aside / "M1.journal").exists() and (aside / "current").exists()
    assert MatchFiles(now.state_dir).owner() == (tournament, hall)
    # The timekeeper is told (and the log says where): the status the display shows.
    assert daemon.status()["set_aside"] == f"set-aside/001-{label}"
    shown = now.frames[-1].status
    assert shown is not None and shown["set_aside"] == f"set-aside/001-{label}"
    now.stop()
    # A second start finds the folder its own: nothing more is moved.
    again = InProcessHall(tmp_path, linked(tournament, hall))
    daemon = again.start()
    assert "set_aside" not in daemon.status()
    assert sorted(p.name for p in (now.state_dir / "set-aside").iterdir()) == [f"001-{label}"]
    again.stop()


def test_the_offices_next_for_last_years_match_id_opens_a_fresh_journal(
        tmp_path: Path) -> None:
    last_year(tmp_path, match="A2")  # last year's A2, half played
    hall = InProcessHall(tmp_path, linked("cup-2026"))
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    assert daemon.match.setup.match_id == "M1"  # the config's match: the pointer went aside
    hall.link.offer_next(NEXT)
    daemon.run_until(hall.time.now + NS_PER_S,
                     stop_when=lambda: daemon.match.setup.match_id == "A2")
    assert daemon.match.setup.match_id == "A2"
    assert daemon.match.state.phase.value == "pregame"
    assert score(daemon) == {"home": 0, "away": 0}
    assert daemon.match.setup.home.name == "Lions"
    daemon.run_until(hall.time.now + NS_PER_S)
    assert hall.link.sent == []  # nothing of last year's A2 went to this year's office
    hall.stop()


def test_a_folder_from_before_owners_were_recorded_is_set_aside_as_unknown(
        tmp_path: Path) -> None:
    """The migration: an old flat folder has journals but no owner.json. Whose they are
    cannot be told, so they are kept (moved whole), never sent."""
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "M1.journal").write_bytes(b"")
    (folder / "M1.journal.acked").write_text("1\n2\n")
    (folder / "current").write_text("M1\n")
    files = MatchFiles(folder)
    aside = files.claim("cup", "H1")
    assert aside == folder / "set-aside" / "001-unknown-owner"
    assert sorted(p.name for p in aside.iterdir()) == ["M1.journal", "M1.journal.acked",
                                                      "current"]
    assert files.journals() == [] and files.current() is None
    assert files.claim("cup", "H1") is None  # its own now
    with pytest.raises(ValueError, match="tournament 'a/b'"):
        files.claim("a/b", "H1")
