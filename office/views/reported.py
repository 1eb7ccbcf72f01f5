"""A result entered on a form (a referee's phone, or the office's own form) for a match played
without a scoreboard: read off the form, checked, and made the final the ledger reads.

Rules 003 youth football is played on several small pitches at once, most without a hall
Pi; the referee reports the score, the scorers and the cards from a phone. The result is
stored as a hall's final is read (``office.views.ledger``: a ``match_ended`` with its
record), so the same protest window, review and needs-review rules hold: it names the teams
it was entered for, and should the pairing move (a bracket match), it waits for the office.
A board's final of the same match wins over it (``MatchDigest.final``).

Pure: the form's fields in, a value or a ``FormError`` (the field and the word key of what
is wrong) out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournament.model import DecidedBy

SIDES = ("home", "away")
# The cards a football referee gives: yellow (caution), red (sent off), and green, rules
# 003 'Match officials': "green cards are given to one fair-play player of each team".
CARDS = ("yellow", "red", "green")
MAX_GOALS = 99  # a youth match's score; more is a typing error
MAX_PLAYER = 999
MAX_FIELD = 200  # characters of one text field
_NUMBER = re.compile(r"^\d{1,3}$")
_SPLIT = re.compile(r"[\s,;]+")


class FormError(ValueError):
    """A field of the form is wrong: ``field`` names it, ``key`` is the word (arena.words)
    saying what is wrong, ``fields`` fill it."""

    def __init__(self, field: str, key: str, **fields: object) -> None:
        super().__init__(f"{field}: {key} {fields}")
        self.field = field
        self.key = key
        self.fields = fields


@dataclass(frozen=True, slots=True)
class Goal:
    side: str  # "home" / "away"
    player: int | None  # None: the scorer was not entered


@dataclass(frozen=True, slots=True)
class Card:
    side: str
    player: int
    colour: str  # one of CARDS


@dataclass(frozen=True, slots=True)
class ReportedResult:
    """What the form says: the teams it was entered for, the score, how it was decided,
    the scorers and the cards."""

    home_team: str
    away_team: str
    home: int
    away: int
    decided_by: DecidedBy = DecidedBy.REGULATION
    goals: tuple[Goal, ...] = ()
    cards: tuple[Card, ...] = ()

    def to_data(self) -> dict[str, Any]:
        return {"teams": {"home": self.home_team, "away": self.away_team},
                "home": self.home, "away": self.away, "decided_by": self.decided_by.value,
                "goals": [{"team": g.side, "player": g.player} for g in self.goals],
                "cards": [{"team": c.side, "player": c.player, "card": c.colour}
                          for c in self.cards]}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ReportedResult:
        teams = data["teams"]
        return cls(str(teams["home"]), str(teams["away"]), int(data["home"]),
                   int(data["away"]), DecidedBy(data["decided_by"]),
                   tuple(Goal(str(g["team"]), g["player"] if isinstance(g["player"], int)
                              else None) for g in data.get("goals") or ()),
                   tuple(Card(str(c["team"]), int(c["player"]), str(c["card"]))
                         for c in data.get("cards") or ()))

    @property
    def score(self) -> str:
        return f"{self.home}-{self.away}"


@dataclass(frozen=True, slots=True)
class FormFinal:
    """The result as the ledger reads a hall's final (``ledger.HallEventLike``): a
    ``match_ended`` with its record. ``seq`` 0: it is no hall's event, and numbers nothing
    of the hall's (the acks, a replay's numbering read the hall's seqs only)."""

    match: str
    data: Mapping[str, Any]
    report: int  # the stored entry it is (office.storage.reports)
    seq: int = 0
    type: str = "match_ended"


def final_of(match: str, report: int, result: ReportedResult) -> FormFinal:
    record = {
        "teams": {"home": result.home_team, "away": result.away_team},
        "goals": [{"team": g.side, "player": g.player} for g in result.goals],
        # A card is a penalty of its colour's kind without minutes: football has no penalty
        # box; a preset's suspension rules would count them by kind.
        "penalties": [{"team": c.side, "player": c.player, "kind": f"{c.colour}_card",
                       "minutes": 0} for c in result.cards],
    }
    return FormFinal(match, {"result": {"home": result.home, "away": result.away,
                                        "decided_by": result.decided_by.value},
                             "record": record}, report)


def disagreement(hall: Mapping[str, Any], result: ReportedResult) -> str | None:
    """How a board's final (its ``match_ended`` data) and a form's result differ: the score
    or how it was decided (None: they agree)."""
    got = hall.get("result") or {}
    board = (got.get("home"), got.get("away"), got.get("decided_by"))
    if board == (result.home, result.away, result.decided_by.value):
        return None
    return (f"the board says {board[0]}-{board[1]} ({board[2]}), the form says "
            f"{result.score} ({result.decided_by.value})")


def parse(form: Mapping[str, Sequence[str]], teams: tuple[str, str], *, decided: bool,
          rosters: Mapping[str, Mapping[int, str]] | None = None) -> ReportedResult:
    """The form's fields as a result for ``teams`` (home, away): ``home_goals``,
    ``away_goals``, ``decided_by`` (only where the match must be decided: ``decided``),
    ``<side>_scorers`` (shirt numbers, one per goal, ``?`` for one not known) and
    ``<side>_<card>`` (shirt numbers). ``rosters``: by team, the numbers a player must
    have (a team without one takes any number)."""
    goals = {side: _goals(form, f"{side}_goals") for side in SIDES}
    decided_by = DecidedBy.REGULATION
    if decided:
        raw = _one(form, "decided_by") or DecidedBy.REGULATION.value
        if raw not in (DecidedBy.REGULATION.value, DecidedBy.SHOOTOUT.value):
            raise FormError("decided_by", "report.error.decided_by")
        decided_by = DecidedBy(raw)
        if goals["home"] == goals["away"]:
            # Rules 003 'Ranking': a placement match that ends level goes to a shootout; the
            # result counts the shootout's winning goal.
            raise FormError("home_goals", "report.error.level")
    rosters = rosters or {}
    scorers: list[Goal] = []
    cards: list[Card] = []
    for side, team in zip(SIDES, teams, strict=True):
        roster = rosters.get(team) or {}
        numbers = _numbers(form, f"{side}_scorers", roster, team, unknown=True)
        if len(numbers) > goals[side]:
            raise FormError(f"{side}_scorers", "report.error.scorers", team=team,
                            goals=goals[side])
        scorers += [Goal(side, n) for n in numbers]
        for colour in CARDS:
            for n in _numbers(form, f"{side}_{colour}", roster, team, unknown=False):
                assert n is not None
                cards.append(Card(side, n, colour))
    return ReportedResult(teams[0], teams[1], goals["home"], goals["away"], decided_by,
                          tuple(scorers), tuple(cards))


def _one(form: Mapping[str, Sequence[str]], field: str) -> str:
    values = form.get(field) or ()
    if len(values) > 1:
        raise FormError(field, "report.error.twice")
    value = values[0].strip() if values else ""
    if len(value) > MAX_FIELD:
        raise FormError(field, "report.error.long", most=MAX_FIELD)
    return value


def _goals(form: Mapping[str, Sequence[str]], field: str) -> int:
    raw = _one(form, field)
    if not raw:
        raise FormError(field, "report.error.goals_missing")
    if not _NUMBER.match(raw) or int(raw) > MAX_GOALS:
        raise FormError(field, "report.error.goals", most=MAX_GOALS)
    return int(raw)


def _numbers(form: Mapping[str, Sequence[str]], field: str, roster: Mapping[int, str],
             team: str, *, unknown: bool) -> list[int | None]:
    out: list[int | None] = []
    for part in _SPLIT.split(_one(form, field)):
        if not part:
            continue
        if part == "?" and unknown:
            out.append(None)
            continue
        if not _NUMBER.match(part) or int(part) > MAX_PLAYER:
            raise FormError(field, "report.error.number", text=part)
        if roster and int(part) not in roster:
            raise FormError(field, "report.error.roster", number=int(part), team=team)
        out.append(int(part))
    return out
