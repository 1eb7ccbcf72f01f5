"""The match a replay plays, from the tournament file (``--tournament FILE --match ID``).

A result re-sent after a repair (``scoreboard replay --publish``) is stored as final only
when the hall played it under the schedule's names (the office's rule: a result under other
names needs review: docs/office.md, "Held matches, needs review and alerts"). The
tournament file says them, so a replay takes the match from it as a hall without an office
does (firmware_py/schedule.py): the teams' names, colours and rosters, the stage, the
preset, the hall, the tournament's id, and for the match day its scheduled start and the
hall's next match's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.core.errors import ScoreboardError
from arena.core.values import MatchSetup
from arena.tournament.files import load_tournament
from arena.tournament.reader import TournamentError
from firmware_py.nextmatch import setup_from_next
from firmware_py.replayday import MatchDay, parse_wall
from firmware_py.schedule import next_document


class ReplayMatchError(ScoreboardError):
    """The tournament file cannot be read, or has no such match; the message says which."""


@dataclass(frozen=True, slots=True)
class FromTournament:
    tournament: str  # the tournament's id: the topics' level
    hall: str
    preset: str
    setup: MatchSetup
    day: MatchDay  # the scheduled start and the hall's next match's (no clock)


def is_tournament_file(value: str) -> bool:
    """Whether a ``--tournament`` value names a file (a path has a '/' or ends in .toml)
    rather than a tournament id, as ``scoreboard presets --show`` tells a file."""
    return "/" in value or value.endswith(".toml")


def from_tournament(path: Path, match_id: str) -> FromTournament:
    try:
        tournament = load_tournament(path)
    except (TournamentError, OSError) as err:
        raise ReplayMatchError(f"--tournament {path}: {err}") from None
    m = tournament.match(match_id)
    if m is None:
        known = ", ".join(x.id for x in tournament.matches) or "none"
        raise ReplayMatchError(f"--tournament {path}: no match {match_id!r} (its matches: "
                               f"{known}); say which with --match")
    # Confirmed: a bracket match's placeholders are played under their labels, as a hall
    # that keeps the names shown does (and the office then asks for a review).
    preset, setup = setup_from_next(next_document(tournament, m, confirmed=True))
    later = [x for x in tournament.matches if x.hall == m.hall and x.start > m.start]
    following = min(later, key=lambda x: x.start, default=None)
    return FromTournament(tournament.id, m.hall, preset, setup, MatchDay(
        scheduled=parse_wall(m.start.isoformat(timespec="seconds")),
        next=None if following is None else parse_wall(following.start.isoformat(
            timespec="seconds"))))
