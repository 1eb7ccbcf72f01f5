"""A match whose team is still a placeholder is not played: START is refused
with the reason the timekeeper reads, and nothing happens."""

from __future__ import annotations

from arena import presets
from arena.core.commands import Start
from arena.core.match import Match, feed
from arena.core.phase import Phase
from arena.core.values import MatchSetup, TeamInfo

DARK, LIGHT = ("#10233f", "#ffffff"), ("#f2f2f2", "#10233f")


def match(home: TeamInfo, away: TeamInfo) -> Match:
    return Match(presets.load("ice-hockey-2x20"), MatchSetup("SF1", home=home, away=away))


def test_start_is_refused_naming_the_teams_not_known() -> None:
    m = match(TeamInfo("1st A", DARK, placeholder=True),
              TeamInfo("Winner QF2", LIGHT, placeholder=True))
    before = m.state
    fed = feed(m, Start(at=0))
    assert fed.refused is not None
    assert fed.refused.reason == "teams not known: 1st A, Winner QF2"
    assert not fed.events
    assert m.state == before and m.state.phase is Phase.PREGAME


def test_one_placeholder_is_enough_and_real_teams_start() -> None:
    fed = feed(match(TeamInfo("HK Riga", DARK), TeamInfo("2nd B", LIGHT, placeholder=True)),
               Start(at=0))
    assert fed.refused is not None and fed.refused.reason == "teams not known: 2nd B"
    # A name alone is not a placeholder: only the office's (or the journal's) mark is.
    real = match(TeamInfo("1st A", DARK), TeamInfo("Bears", LIGHT))
    assert feed(real, Start(at=0)).refused is None
    assert real.state.phase is Phase.PERIOD
