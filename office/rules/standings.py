"""Group tables ranked the way each rule document says.

Pure: standard library and our own core only, no I/O.

Ties are resolved as *sets*, never with a pairwise comparator: a comparator cannot rank a
three-way cycle (A beat B, B beat C, C beat A), because "A above B" depends on which other
teams are level with them. So:

1. Teams are ordered by points. Each set of teams level on points is resolved with
   ``rules.tiebreak`` (two teams) or ``rules.tiebreak_many`` (three or more). The list chosen
   by the size of the *points* tie is kept for every restart inside it: rules 000 says that
   when three or more teams are tied in points the standings of the remaining teams are
   determined "starting from the first rule (considering only the matches between the tied
   teams)", so two teams left over from a three-way tie keep using the sub-table list.
   Rules 000's own ``tiebreak_many`` holds only sub-table criteria (points, goal difference,
   goals for and penalty minutes of the mutual matches, then lots): the overall figures
   never enter a tie of three or more unless a preset or tournament file chooses them.
2. A criterion is evaluated for every team of the set. Overall criteria (goal difference,
   goals for, penalty minutes) count all the team's group results; ``head_to_head_*``
   criteria (``Criterion.mutual``) count the sub-table of only the results among the teams
   of the *current* set. A criterion that gives everyone the same value passes to the next
   one. One that splits the set orders the subsets, and every subset of two or more teams
   starts the list again from its first criterion on its own mutual matches ("restarting
   for those still level"). The row above each split carries the criterion that made it,
   so the "why" of a placing names the step (``head_to_head_penalty_minutes``, not
   ``penalty_minutes``, when only the mutual matches were counted).
3. Teams still level after every criterion are ordered by the latest recorded ``Draw`` of the
   group that names all of them (``decided_by`` "lots"). Without one they share a rank and
   carry ``lots_needed``: dice are never rolled here.

Choices where the rule documents are silent (documented here because the tables show them):

- ``lots_needed`` is set only when every team of the still-level set has played at least
  once. Teams level without having played (the start of a tournament, or a team whose first
  match is still to come) share the rank quietly: asking the office to draw lots for them
  would be noise, and the next result will separate them anyway.
- A list that does not end with ``lots`` ends as if it did: a tie after every criterion can
  only be broken by the office, so the same ``lots_needed`` / ``Draw`` path applies.
- Rows that share a rank are shown in team-name order, so the table is a function of the
  results alone, not of the order of the group's team list or of the results.
- A result between a team of the group and an outsider (or two outsiders) is ignored, so a
  caller may pass the whole tournament's results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from arena.core.preset import Criterion, Points, StandingsRules
from arena.tournament.model import DecidedBy, Draw, GameResult, Group, GroupTable, Row

_AFTER_REGULATION = frozenset({DecidedBy.OVERTIME, DecidedBy.SHOOTOUT})


@dataclass(frozen=True, slots=True)
class _Line:
    """One team's figures over a set of results (the whole group, or a sub-table)."""

    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0
    points: int = 0
    penalty_minutes: int = 0

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against


@dataclass(frozen=True, slots=True)
class _Block:
    """Teams that share one rank: one team, or several still level after every criterion."""

    teams: tuple[str, ...]
    lots_needed: bool = False


# A resolved set: its blocks best first, and between consecutive blocks the criterion that
# placed the upper one above the lower (len(boundaries) == len(blocks) - 1).
_Resolved = tuple[list[_Block], list[Criterion]]
_Resolve = Callable[[frozenset[str]], _Resolved]


def _table_lines(results: Iterable[GameResult], teams: Iterable[str],
                points: Points) -> dict[str, _Line]:
    """Every team's figures over ``results`` (only results between two of ``teams``)."""
    # Flat lists while counting (one per team rather than an object per result). Layout:
    # played, won, drawn, lost, goals for, goals against, points, penalty minutes.
    acc = {t: [0, 0, 0, 0, 0, 0, 0, 0] for t in teams}
    for r in results:
        home, away = acc.get(r.home), acc.get(r.away)
        if home is None or away is None or r.home == r.away:
            continue
        after_regulation = r.decided_by in _AFTER_REGULATION
        win = points.for_win(after_regulation)
        loss = points.for_loss(after_regulation)
        for a, scored, conceded, pim in ((home, r.home_goals, r.away_goals, r.home_pim),
                                         (away, r.away_goals, r.home_goals, r.away_pim)):
            a[0] += 1
            if scored > conceded:
                a[1] += 1
                a[6] += win
            elif scored == conceded:
                a[2] += 1
                a[6] += points.draw
            else:
                a[3] += 1
                a[6] += loss
            a[4] += scored
            a[5] += conceded
            a[7] += pim
    return {t: _Line(*a) for t, a in acc.items()}


# A sub-table criterion is its overall twin counted over the sub-table's lines.
_MUTUAL = {
    Criterion.HEAD_TO_HEAD_POINTS: Criterion.POINTS,
    Criterion.HEAD_TO_HEAD_GOAL_DIFFERENCE: Criterion.GOAL_DIFFERENCE,
    Criterion.HEAD_TO_HEAD_GOALS_FOR: Criterion.GOALS_FOR,
    Criterion.HEAD_TO_HEAD_PENALTY_MINUTES: Criterion.PENALTY_MINUTES,
}


def _figure(criterion: Criterion, line: _Line) -> int:
    """``line``'s figure for an overall ``criterion``; higher is better."""
    if criterion is Criterion.POINTS:
        return line.points
    if criterion is Criterion.GOAL_DIFFERENCE:
        return line.goal_difference
    if criterion is Criterion.GOALS_FOR:
        return line.goals_for
    if criterion is Criterion.PENALTY_MINUTES:
        return -line.penalty_minutes  # fewer is better
    raise AssertionError(f"not a figure: {criterion}")  # LOTS is handled by the caller


class _Ranker:
    """One group's ranking: the figures it needs, computed once, and the recursion."""

    def __init__(self, group: Group, results: Sequence[GameResult], rules: StandingsRules,
                 draws: Sequence[Draw]) -> None:
        members = frozenset(group.teams)
        # Only results between two teams of the group count, here and in every sub-table.
        self.results = tuple(r for r in results
                             if r.home in members and r.away in members and r.home != r.away)
        self.rules = rules
        self.lines = _table_lines(self.results, group.teams, rules.points)
        # Latest first: "the latest such draw wins".
        self.draws = tuple(d for d in reversed(draws) if d.group == group.name)
        self._sub_tables: dict[frozenset[str], dict[str, _Line]] = {}

    def sub_table(self, teams: frozenset[str]) -> dict[str, _Line]:
        """The table of only the results among ``teams`` (cached: several head-to-head
        criteria ask for the same set)."""
        table = self._sub_tables.get(teams)
        if table is None:
            table = _table_lines(self.results, teams, self.rules.points)
            self._sub_tables[teams] = table
        return table

    def value(self, criterion: Criterion, team: str, level: frozenset[str]) -> int:
        """The team's figure for ``criterion`` among ``level``; higher is better."""
        if criterion.mutual:
            return _figure(_MUTUAL[criterion], self.sub_table(level)[team])
        return _figure(criterion, self.lines[team])

    def rank(self) -> _Resolved:
        """The whole group: points first, then each points tie with its list."""
        return self._split(frozenset(self.lines), Criterion.POINTS, self._resolve_points_tie)

    def _resolve_points_tie(self, level: frozenset[str]) -> _Resolved:
        criteria = self.rules.tiebreak if len(level) == 2 else self.rules.tiebreak_many
        return self._resolve(level, criteria)

    def _resolve(self, level: frozenset[str], criteria: tuple[Criterion, ...]) -> _Resolved:
        """Order ``level`` (2+ teams) with ``criteria`` from the first one."""
        for criterion in criteria:
            if criterion is Criterion.LOTS:
                break
            values = {self.value(criterion, t, level) for t in level}
            if len(values) > 1:
                # Those still level restart the same list on their own mutual matches.
                return self._split(level, criterion,
                                   lambda subset: self._resolve(subset, criteria))
        return self._lots(level)

    def _split(self, level: frozenset[str], criterion: Criterion,
               resolve: _Resolve) -> _Resolved:
        """Order ``level`` into subsets by ``criterion``, best first, and resolve every
        subset of two or more teams with ``resolve``."""
        by_value: dict[int, list[str]] = {}
        for team in level:
            by_value.setdefault(self.value(criterion, team, level), []).append(team)
        blocks: list[_Block] = []
        boundaries: list[Criterion] = []
        for value in sorted(by_value, reverse=True):
            subset = by_value[value]
            if blocks:
                boundaries.append(criterion)  # what placed the previous subset above this
            if len(subset) == 1:
                blocks.append(_Block((subset[0],)))
            else:
                sub_blocks, sub_boundaries = resolve(frozenset(subset))
                blocks.extend(sub_blocks)
                boundaries.extend(sub_boundaries)
        return blocks, boundaries

    def _lots(self, level: frozenset[str]) -> _Resolved:
        """Teams level after every criterion: the office's draw, or a shared rank."""
        teams = tuple(sorted(level))
        if any(self.lines[t].played == 0 for t in teams):
            return [_Block(teams)], []  # not a real tie yet: no lots asked for
        for draw in self.draws:
            if level <= set(draw.order):
                ordered = sorted(teams, key=draw.order.index)
                return ([_Block((t,)) for t in ordered],
                        [Criterion.LOTS] * (len(ordered) - 1))
        return [_Block(teams, lots_needed=True)], []


def rank_group(group: Group, results: Iterable[GameResult], rules: StandingsRules,
               draws: Sequence[Draw] = (), *, provisional: bool = False,
               complete: bool = False) -> GroupTable:
    """The group's table from its results, with the criterion behind every placing.

    ``draws`` are the office's recorded lots, oldest first (any group's: only this group's
    are used). ``provisional`` and ``complete`` are the caller's knowledge of the results'
    states and of the schedule, carried into the table as they are.
    """
    ranker = _Ranker(group, tuple(results), rules, draws)
    blocks, boundaries = ranker.rank()
    rows: list[Row] = []
    for index, block in enumerate(blocks):
        rank = len(rows) + 1  # competition ranking: 1, 2, 2, 4
        after = boundaries[index] if index < len(boundaries) else None
        for position, team in enumerate(block.teams):
            line = ranker.lines[team]
            last_of_block = position == len(block.teams) - 1
            rows.append(Row(
                rank=rank, team=team, played=line.played, won=line.won, drawn=line.drawn,
                lost=line.lost, goals_for=line.goals_for, goals_against=line.goals_against,
                points=line.points, penalty_minutes=line.penalty_minutes,
                # Rows sharing a rank have nothing that placed one above the other.
                decided_by=after if last_of_block else None,
                lots_needed=block.lots_needed,
            ))
    return GroupTable(group.name, tuple(rows), provisional=provisional, complete=complete)
