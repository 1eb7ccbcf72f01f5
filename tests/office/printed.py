"""A small cup played through the real core and stored as the office stores it, for the
printout tests: a group match, then a final with goals, a penalty, a time-out, a cancelled
goal, a corrected scorer and a shootout (docs/developer.md 4.2 commands, 4.4 events)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from arena import presets
from arena.core.commands import (
    Cancel,
    Command,
    Correct,
    End,
    Goal,
    Penalty,
    Shot,
    Start,
    Stop,
    Timeout,
)
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage, Team
from arena.core.values import MatchSetup, TeamInfo
from arena.wire import event_document
from office.storage.store import Store

from .games import S, hall_event

RECEIVED = datetime(2026, 12, 5, 12, 0)
HOME, AWAY = "Kärpät", "Crvena Đorđević"

CUP = """\
name = "Pohár Čeština 2026"
id = "pohar"
preset = "ice-hockey-2x20"

[[groups]]
name = "A"
teams = [
    {name = "Kärpät", short = "KAR", roster = {7 = "Jääskeläinen", 9 = "Kärkkäinen", 30 = "Ögren"}},
    {name = "Crvena Đorđević", short = "CRV", roster = {4 = "Đorđević", 5 = "Šćekić"}},
]

[[matches]]
id = "A1"
group = "A"
stage = "group"
hall = "hall-1"
start = 2026-12-05T08:00:00
home = "Kärpät"
away = "Crvena Đorđević"

[[matches]]
id = "F"
stage = "playoff"
hall = "hall-1"
start = 2026-12-05T10:30:00
home = "A1"
away = "A2"
"""


def _payloads(match_id: str, stage: Stage, script: Any) -> list[dict[str, Any]]:
    match = Match(presets.load("ice-hockey-2x20"),
                  MatchSetup(match_id, stage, TeamInfo(HOME, ("#000000", "#ffffff")),
                             TeamInfo(AWAY, ("#ffffff", "#000000"))))
    events: list[Any] = []

    def do(cmd: Command) -> list[Any]:
        fed = feed(match, cmd)
        assert fed.refused is None, fed.refused
        events.extend(fed.events)
        return list(fed.events)

    script(match, do)
    return [event_document("hall-1", {"match": match_id, "seq": e.seq, "event": e.kind.value,
                                      "data": dict(e.data), "at": e.at}) for e in events]


def _group(match: Match, do: Any) -> None:
    do(Start(at=0))
    do(Goal(at=10 * S, team=Team.HOME, player=7))
    t = 10 * S
    while match.state.phase is not Phase.FINAL:
        t += S
        do(End(at=t))


def _final(match: Match, do: Any) -> None:
    do(Start(at=0))
    do(Goal(at=65 * S, team=Team.HOME, player=7))  # P1 01:05, 1:0
    do(Penalty(at=170 * S, team=Team.AWAY, player=4, kind="minor"))  # P1 02:50
    do(Goal(at=200 * S, team=Team.AWAY, player=5))  # P1 03:20, 1:1
    (struck,) = [e for e in do(Goal(at=230 * S, team=Team.HOME, player=9))
                 if e.kind.value == "goal"]
    do(Cancel(at=231 * S, seq=struck.seq))  # no goal after all
    (wrong,) = [e for e in do(Goal(at=250 * S, team=Team.HOME, player=30))
                if e.kind.value == "goal"]
    do(Correct(at=251 * S, seq=wrong.seq, player=9))  # P1 04:10, 2:1, scored by #9
    do(Goal(at=280 * S, team=Team.AWAY, player=None))  # P1 04:40, 2:2, scorer not entered
    do(Stop(at=300 * S))
    do(Timeout(at=301 * S, team=Team.AWAY))  # P1 05:00
    t = 340 * S
    while match.state.phase is not Phase.SHOOTOUT:
        t += S
        do(End(at=t))
    # Away shoots first (rules 000); it misses, home scores every shot: home wins 3:2.
    while _phase(match) is not Phase.FINAL:
        t += S
        last = match.state.shots[-1].team if match.state.shots else None
        shooter = Team.HOME if last is Team.AWAY else Team.AWAY
        taken = sum(1 for x in match.state.shots if x.team is shooter)
        shooters = (7, 9, 30) if shooter is Team.HOME else (5, 4)
        do(Shot(at=t, team=shooter, player=shooters[taken], scored=shooter is Team.HOME))


def _phase(match: Match) -> Phase:
    return match.state.phase


def cup(tmp_path: Path) -> tuple[Path, Path]:
    """The tournament file and a store with A1 and F played."""
    tournament = tmp_path / "cup.toml"
    tournament.write_text(CUP, encoding="utf-8")
    db = tmp_path / "office.sqlite"
    store = Store(db)
    for payload in (_payloads("A1", Stage.GROUP, _group)
                    + _payloads("F", Stage.PLAYOFF, _final)):
        store.add_event(hall_event(payload), RECEIVED)
    store.close()
    return tournament, db
