"""A name at every limit of the tournament file goes the whole way and back: the office's
``next`` carries it to the hall, the hall plays the match under it and writes it into its
final record, and the office's intake stores that final, so the page shows the match final
as the hall does (docs/developer.md, "Limits").

In process: the real office service (its store on disk, a fake broker peer and wall clock,
as tests/office/test_service.py) and a whole scoreboard on a fake clock with the fake office
link (tests/daemon/inprocess.py); the payloads between them are the bytes each end
publishes, checked by the other end's own code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from arena import wire
from arena.core.units import NS_PER_S
from arena.timesource import FakeClock
from arena.tournament.files import load_tournament
from arena.tournament.model import ResultState
from firmware_py.mqtt import parse_next
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard
from tests.daemon.conftest import write_script
from tests.daemon.inprocess import InProcessHall

LIMITS = wire.LIMITS
WIDE = "\U0001f3d2"  # printable, and four bytes of UTF-8: the longest a name can weigh
HOME = "Lions " + WIDE * (LIMITS.text_chars - len("Lions "))
AWAY = "Bears " + WIDE * (LIMITS.text_chars - len("Bears "))
SCORER = "A. " + WIDE * (LIMITS.roster_name_chars - len("A. "))
ID = "c" * LIMITS.name_chars
HALL = "h" * LIMITS.name_chars
MATCH = "M" * LIMITS.name_chars

# Rules 003, 'General': P08 plays one period (the preset football-p08).
CUP = f"""\
name = "{"N" * LIMITS.text_chars}"
id = "{ID}"
preset = "football-p08"

[[groups]]
name = "{"G" * LIMITS.name_chars}"
teams = [{{name = "{HOME}", short = "{WIDE * LIMITS.short_chars}", roster = {{9 = "{SCORER}"}}}},
         "{AWAY}"]

[[matches]]
id = "{MATCH}"
group = "{"G" * LIMITS.name_chars}"
hall = "{HALL}"
start = 2026-12-05T09:00:00
home = "{HOME}"
away = "{AWAY}"
"""


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    qos: int = 1


class Peer:
    """The office's broker: what the test hands it, and what it retains."""

    def __init__(self) -> None:
        self.inbox: list[Message] = []
        self.retained: dict[str, bytes] = {}

    def poll(self, timeout: float = 0.0) -> list[Message]:
        out, self.inbox = self.inbox, []
        return out

    def ack(self, message: Message) -> bool:
        return True

    def publish_retained(self, topic: str, payload: bytes, qos: int = 1) -> None:
        self.retained[topic] = payload


def test_names_at_every_limit_go_from_the_file_through_the_hall_to_a_stored_final(
        tmp_path: Path) -> None:
    (tmp_path / "cup.toml").write_text(CUP, encoding="utf-8")
    cup = load_tournament(tmp_path / "cup.toml")
    peer, wall = Peer(), FakeClock(wall=datetime(2026, 12, 5, 8, 0))
    office = OfficeService(cup, Store(tmp_path / "office.sqlite"), peer, SnapshotBoard(),
                           wall=wall.wall_datetime, monotonic=wall.monotonic)
    office.pump()
    # The office's next, as the hall reads it off the broker.
    nxt = parse_next(peer.retained[wire.hall_topic(ID, HALL, wire.NEXT)])
    assert nxt["match"] == MATCH
    assert (nxt["teams"]["home"]["name"], nxt["teams"]["away"]["name"]) == (HOME, AWAY)
    assert nxt["teams"]["home"]["roster"] == {"9": SCORER}

    hall = InProcessHall(tmp_path / "hall", f"""
[match]
preset = "football-p08"
[mqtt]
broker = "mqtt://127.0.0.1:1883"
tournament = "{ID}"
hall = "{HALL}"
""")
    # The timekeeper's game, played on the match once it is loaded (as a hall's
    # ``--script-dir`` does: after the between-games screen's while).
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    write_script(scripts / f"{MATCH}.jsonl", [
        {"t": 0, "do": "start"}, {"t": 1, "do": "goal", "team": "home", "player": 9},
        {"t": 2, "do": "end"}])
    daemon = hall.start(script_dir=scripts)
    hall.link.offer_next(nxt)  # loaded at once: nothing is in progress
    daemon.run_until(hall.time.now + NS_PER_S,
                     stop_when=lambda: daemon.match.setup.match_id == MATCH)
    assert daemon.match.setup.home.name == HOME
    daemon.run_until(hall.time.now + 60 * NS_PER_S,
                     stop_when=lambda: daemon.match.state.phase.value == "final")
    assert daemon.match.state.phase.value == "final"
    scored = [f.doc["goal"] for f in hall.frames if f.doc.get("goal")]
    assert scored and scored[0]["name"] == SCORER  # the roster's name on the board
    sent = [r for r in hall.link.sent if r["match"] == MATCH]
    hall.stop()
    final = sent[-1]
    assert final["event"] == "match_ended"
    assert final["data"]["record"]["teams"] == {"home": HOME, "away": AWAY}

    # Every event, as the hall's link publishes it, into the office's intake.
    topic = wire.hall_topic(ID, HALL, wire.EVENTS)
    peer.inbox = [Message(topic, wire.build_event(HALL, r)) for r in sent]
    office.pump()
    assert office.refused == 0
    assert office.ledger is not None
    view = office.ledger.matches[MATCH]
    assert view.outcome.state is ResultState.FINAL  # not "live 1:0": the final is stored
    result = view.outcome.result
    assert result is not None and (result.home_goals, result.away_goals) == (1, 0)
    acks = json.loads(peer.retained[wire.hall_topic(ID, HALL, wire.ACKS)])
    assert acks["matches"][MATCH] == final["seq"]
    # the table every hall reads between games: the winner on top, under its whole name
    standings = wire.standings_topic(ID, "G" * LIMITS.name_chars)
    table = wire.check_standings(standings, peer.retained[standings], ID)
    assert (table.rows[0].team, table.rows[0].points) == (HOME, 3)
