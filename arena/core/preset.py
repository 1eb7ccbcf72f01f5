"""Rule presets: what a tournament format says, as data.

A preset is parsed from a TOML document (``tomllib`` output: parsing is pure; reading the
file is the shell's job). Every field is validated here and an error names the file, the key
and the problem. The core never tests a preset's name: everything it does is driven by
these fields (docs/developer.md 2, rule 5).

Citations are data: any table may hold ``cite.FIELD = "rule document and section"`` for its
fields (``Preset.cite`` finds a field's, or the nearest table's). ``extends = "NAME"``
builds a preset on another; ``resolve`` defines the merge and is given the bases' data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Self

from .errors import PresetError
from .penalties import PenaltyKind
from .phase import PLAYED_STAGES, Stage, Team
from .tables import MISSING, ErrorClass, Table
from .units import NS_PER_S, Nanos, ms, seconds

_MISSING = MISSING
CITE = "cite"
"""The key of a table's citations: ``cite.FIELD = "rules 000, 'Rules'"``."""
EXTENDS = "extends"
"""The key naming the preset a preset extends."""


@dataclass(frozen=True, slots=True)
class StopTimeWindow:
    """The last ``last`` of ``period`` is played in stop time ("net", "clear" time)."""

    period: int
    last: Nanos


@dataclass(frozen=True, slots=True)
class Decision:
    """How a tie after regulation is decided, and in which stages it must be."""

    stages: frozenset[Stage]
    overtime_break: Nanos | None = None
    overtime: Nanos | None = None
    overtime_players: int | None = None
    shootout: bool = True
    sudden_death: bool = True  # the first goal in overtime ends the match (golden goal)

    def required(self, stage: Stage) -> bool:
        return stage.played_as in self.stages


class ShootoutStarter:
    """Who shoots first in the first series: a fixed team, or chosen/drawn on the day (the
    first shot taken sets the order)."""

    CHOSEN = "chosen"


@dataclass(frozen=True, slots=True)
class ShootoutRules:
    rounds: int  # shots per team in the first series
    first: Team | None  # None: chosen or drawn on the day
    distinct_first_series: bool  # no player shoots twice in the first series
    tiebreak_second_starts: bool  # IIHF: the team that shot second starts the tie-break
    bar_penalised: bool  # players whose penalty had not ended when playing time ended
    # Players sent off for the rest of the game (ejecting kinds). True unless a preset says
    # otherwise: every rule set here bars them, and a preset text journalled before this
    # field existed replays as it played.
    bar_ejected: bool = True
    # A shot for the team not due (out of the rules' order) is refused. False unless a
    # preset says so: a preset text journalled before this field replays as it played.
    strict_order: bool = False
    winner_goals: int = 1  # what the result credits the shootout's winner: the decisive goal


@dataclass(frozen=True, slots=True)
class PenaltyRules:
    max_shorthanded: int
    kinds: dict[str, PenaltyKind]
    major_first: bool = False  # a player's major before a minor given with it (IIHF)
    # Penalties of a team given at the same game time are measured shorter first, whatever
    # order they were keyed in (IFF 603.3); else in the order keyed.
    shorter_first: bool = False
    # A penalty that sends the player off, given before the match starts or after it ended,
    # serves no bench time: it is recorded and bars the player (IFF 608).
    ejection_only_outside_match: bool = False


@dataclass(frozen=True, slots=True)
class TimeoutRules:
    per_team: int
    length: Nanos
    stages: frozenset[Stage]


@dataclass(frozen=True, slots=True)
class ShiftRules:
    length: Nanos
    in_overtime: bool


@dataclass(frozen=True, slots=True)
class ExtraPlayerRules:
    """Rules 003 P10: a team down by ``lead`` goals may add a player until the gap is
    ``until`` or less."""

    lead: int
    until: int


@dataclass(frozen=True, slots=True)
class PregameRules:
    """The match day around a scheduled start (docs/timekeeper.md, "The match day"), as the rule
    document says it: what happens on the ice before the first face-off, how long a
    match's slot in the hall is, and whether the referees may shorten a game to keep the
    schedule. Every field is optional: a preset without ``[pregame]`` has none of it."""

    resurfacing: Nanos | None = None  # the ice is resurfaced for this long before the warm-up
    warmup: Nanos | None = None  # the warm-up's length
    warmup_lead: Nanos | None = None  # the warm-up starts this long before the scheduled start
    warmup_horn: bool = False  # the horn sounds at the warm-up's end
    teams_ready: Nanos | None = None  # the teams must be ready this long before the start
    slot: Nanos | None = None  # a match's slot in the hall, its warm-up included
    shorten: bool = False  # the referees may shorten the playing time to keep the schedule
    resurfacing_after: tuple[int, ...] = ()  # periods after which the ice is resurfaced

    @property
    def lead(self) -> Nanos:
        """How long before its start a match needs the ice (resurfacing and warm-up): when
        the match before it must be over."""
        if self.warmup_lead is None:
            return 0
        return self.warmup_lead + (self.resurfacing or 0)


@dataclass(frozen=True, slots=True)
class HornLengths:
    """How long the automatic horn sounds for each reason (the console may still cap it)."""

    end: Nanos = 2 * NS_PER_S
    shift: Nanos = 1 * NS_PER_S
    manual_cap: Nanos = 10 * NS_PER_S


class Criterion(StrEnum):
    """What can place one team above another in a group table (the ``decided_by`` of a row).

    ``head_to_head_*`` are counted over the matches among the teams still level only (the
    sub-table): for two teams that is their mutual match(es). The others count all the
    team's group matches.
    """

    POINTS = "points"
    GOAL_DIFFERENCE = "goal_difference"
    GOALS_FOR = "goals_for"
    HEAD_TO_HEAD_POINTS = "head_to_head_points"
    HEAD_TO_HEAD_GOAL_DIFFERENCE = "head_to_head_goal_difference"
    HEAD_TO_HEAD_GOALS_FOR = "head_to_head_goals_for"
    # Rules 000 applies every rule, penalty minutes too, to the mutual matches alone when
    # three or more teams are level: the overall figure would be another criterion.
    HEAD_TO_HEAD_PENALTY_MINUTES = "head_to_head_penalty_minutes"  # fewer is better
    PENALTY_MINUTES = "penalty_minutes"  # fewer is better
    LOTS = "lots"  # drawn by the office, never rolled silently

    @property
    def mutual(self) -> bool:
        """Counted over the matches among the teams still level only (the sub-table)."""
        return self.value.startswith("head_to_head_")


@dataclass(frozen=True, slots=True)
class Points:
    """Table points for a result; a win after regulation (overtime or shootout) may count
    differently from one in regulation."""

    win: int = 2
    draw: int = 1
    loss: int = 0
    overtime_win: int | None = None  # None: as a win
    overtime_loss: int | None = None  # None: as a loss

    def for_win(self, after_regulation: bool) -> int:
        if after_regulation and self.overtime_win is not None:
            return self.overtime_win
        return self.win

    def for_loss(self, after_regulation: bool) -> int:
        if after_regulation and self.overtime_loss is not None:
            return self.overtime_loss
        return self.loss


@dataclass(frozen=True, slots=True)
class SuspensionRule:
    """Penalties of ``kinds`` counted per player over the tournament: the n-th one bans him
    for ``bans[n-1]`` matches (None: for the rest of the tournament; 0: no ban)."""

    name: str
    kinds: frozenset[str]
    bans: tuple[int | None, ...]

    def ban_for(self, count: int) -> int | None:
        """Matches banned for the ``count``-th offence (past the list: as the last entry)."""
        return self.bans[min(count, len(self.bans)) - 1]


@dataclass(frozen=True, slots=True)
class StandingsRules:
    """How the office ranks a group and suspends players (the rule document's 'ranking',
    'protests' and discipline sections), as data like the rest of a preset.

    ``tiebreak`` applies when two teams are level on points; ``tiebreak_many`` when three
    or more are (rules 000 treats the two cases differently). Whenever a criterion separates
    some of the teams level, those still level start the list again on their own (the list
    chosen by the size of the points tie: two teams left from a three-way tie keep
    ``tiebreak_many``). A ``tiebreak_many`` of only ``head_to_head_*`` criteria (and
    ``lots``) never looks past the mutual matches, as rules 000 says; one that adds overall
    figures after them is an organiser's choice the preset or tournament file cites.
    """

    points: Points = field(default_factory=Points)
    tiebreak: tuple[Criterion, ...] = (Criterion.HEAD_TO_HEAD_POINTS, Criterion.LOTS)
    tiebreak_many: tuple[Criterion, ...] = (Criterion.HEAD_TO_HEAD_POINTS, Criterion.LOTS)
    protest_window_s: int = 0
    suspensions: tuple[SuspensionRule, ...] = ()


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    summary: str
    rules: str
    periods: int
    period_length: Nanos
    breaks: tuple[Nanos, ...]
    tenths_below: Nanos
    stop_time: tuple[StopTimeWindow, ...]
    players: int
    minimum_players: int
    decision: Decision
    horn: HornLengths = field(default_factory=HornLengths)
    penalties: PenaltyRules = field(default_factory=lambda: PenaltyRules(2, {}))
    shootout: ShootoutRules | None = None
    timeouts: TimeoutRules | None = None
    shifts: ShiftRules | None = None
    extra_player: ExtraPlayerRules | None = None
    standings: StandingsRules = field(default_factory=StandingsRules)
    forfeit_goals: int = 5  # a forfeit is recorded 0 : forfeit_goals against the loser
    pregame: PregameRules = field(default_factory=PregameRules)
    # Field path ("clock.period_s") -> the rule document and section behind it.
    citations: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def cite(self, path: str) -> str | None:
        """The rule document behind the field at ``path`` (``"clock.period_s"``): its own
        citation, else the nearest citation of a table holding it."""
        while path:
            if path in self.citations:
                return self.citations[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None

    def break_after(self, period: int) -> Nanos:
        return self.breaks[period - 1]

    def stop_time_window(self, period: int) -> Nanos | None:
        for window in self.stop_time:
            if window.period == period:
                return window.last
        return None


class _Table(Table):
    """A preset's table: a ``Table`` raising ``PresetError`` that also reads the table's
    ``cite`` (which rule document says so) into the citations shared by the whole preset."""

    def __init__(self, data: Mapping[str, Any], source: str,
                 error: ErrorClass = PresetError, *, where: str = "",
                 keys: Sequence[str] | None = None, cites: dict[str, str] | None = None
                 ) -> None:
        super().__init__(data, source, error, where=where, keys=keys)
        self.cites: dict[str, str] = {} if cites is None else cites
        if CITE in data:
            self._read_cite()

    def child(self, data: Mapping[str, Any], where: str,
              keys: Sequence[str] | None = None) -> Self:
        return type(self)(data, self.source, PresetError, where=where, keys=keys,
                          cites=self.cites)

    def _read_cite(self) -> None:
        cite = self.get(CITE)
        if not isinstance(cite, Mapping):
            raise self.error(CITE, f"must be a table of field = \"rule document and section\", "
                             f"got {cite!r}")
        for key, text in cite.items():
            if not isinstance(text, str) or not text.strip():
                raise self.error(f"{CITE}.{key}", f"must be a non-empty string, got {text!r}")
            self.cites[f"{self.where}{key}"] = text

    def done(self, known: Sequence[str] = ()) -> None:
        super().done(known)
        cite = self.data.get(CITE)
        for key in cite if isinstance(cite, Mapping) else ():
            if key == CITE or key not in self.data:
                raise self.error(f"{CITE}.{key}", "names no field of this table")


def parse_preset(data: Mapping[str, object], source: str) -> Preset:
    """Validate a parsed TOML document; ``source`` (a file name) prefixes every error."""
    if EXTENDS in data:
        raise PresetError(f"{source}: {EXTENDS}: not resolved: a preset that extends another "
                          "is read together with its base (see extend)")
    top = _Table(data, source)
    name = top.string("name")
    summary = top.string("summary")
    rules = top.string("rules")

    clock = top.table("clock")
    periods = clock.integer("periods", minimum=1, maximum=9)
    period_s = clock.integer("period_s", minimum=1)
    # A one-period game (football 1 x 25) has no gap, so no break list is needed.
    breaks_s = clock.integers("breaks_s", default=[] if periods == 1 else _MISSING)
    if len(breaks_s) != periods - 1:
        raise clock.error(
            "breaks_s", f"needs one break length per gap between periods ({periods - 1}), "
            f"got {len(breaks_s)}"
        )
    tenths_below_s = clock.integer("tenths_below_s", default=60)
    windows = []
    for window in clock.tables("stop_time"):
        period = window.integer("period", minimum=1, maximum=periods)
        last_s = window.integer("last_s", minimum=1, maximum=period_s)
        window.done()
        windows.append(StopTimeWindow(period, seconds(last_s)))
    clock.done()

    pitch = top.table("field")
    players = pitch.integer("players", minimum=1, maximum=20)
    minimum_players = pitch.integer("minimum", minimum=0, maximum=players, default=players)
    pitch.done()

    decision = _parse_decision(top.table("decision"), players)
    penalties = _parse_penalties(top.optional_table("penalties"))
    shootout = _parse_shootout(top.optional_table("shootout"))
    if decision.shootout and decision.stages and shootout is None:
        raise PresetError(f"{source}: shootout: missing (a tie may go to a shootout: "
                          "decision.shootout is true)")
    timeouts = _parse_timeouts(top.optional_table("timeouts"))
    shifts = _parse_shifts(top.optional_table("shifts"), period_s)
    extra_player = _parse_extra_player(top.optional_table("extra_player"))
    standings_table = top.optional_table("standings")
    standings = (StandingsRules() if standings_table is None
                 else _parse_standings(standings_table, StandingsRules()))
    for rule in standings.suspensions:
        unknown = sorted(rule.kinds - set(penalties.kinds))
        if unknown:
            raise PresetError(f"{source}: standings.suspensions: {rule.name!r} names "
                              f"{unknown[0]!r}, not a penalty kind of this preset")

    forfeit_table = top.optional_table("forfeit")
    forfeit_goals = 5
    if forfeit_table is not None:
        forfeit_goals = forfeit_table.integer("goals", minimum=1, maximum=99)
        forfeit_table.done()

    horn_table = top.optional_table("horn")
    horn = HornLengths()
    if horn_table is not None:
        horn = HornLengths(
            end=ms(horn_table.integer("end_ms", minimum=100, default=2000)),
            shift=ms(horn_table.integer("shift_ms", minimum=100, default=1000)),
            manual_cap=ms(horn_table.integer("manual_cap_ms", minimum=100, default=10_000)),
        )
        horn_table.done()
    pregame_table = top.optional_table("pregame")
    pregame = PregameRules() if pregame_table is None else _parse_pregame(pregame_table,
                                                                           periods)
    top.done()

    return Preset(
        name=name,
        summary=summary,
        rules=rules,
        periods=periods,
        period_length=seconds(period_s),
        breaks=tuple(seconds(b) for b in breaks_s),
        tenths_below=seconds(tenths_below_s),
        stop_time=tuple(windows),
        players=players,
        minimum_players=minimum_players,
        decision=decision,
        horn=horn,
        penalties=penalties,
        shootout=shootout,
        timeouts=timeouts,
        shifts=shifts,
        extra_player=extra_player,
        standings=standings,
        forfeit_goals=forfeit_goals,
        pregame=pregame,
        citations=MappingProxyType(dict(top.cites)),
    )


def parse_standings(data: Mapping[str, object], source: str, base: StandingsRules,
                    where: str = "standings.") -> StandingsRules:
    """A ``[standings]`` table over ``base``: what it names replaces ``base``'s (a
    tournament file overrides its preset's this way)."""
    return _parse_standings(_Table(data, source, where=where), base)


_CRITERIA = tuple(c.value for c in Criterion if c is not Criterion.POINTS)


def _parse_standings(table: _Table, base: StandingsRules) -> StandingsRules:
    points = base.points
    points_table = table.optional_table("points")
    if points_table is not None:
        points = Points(
            win=points_table.integer("win", default=base.points.win),
            draw=points_table.integer("draw", default=base.points.draw),
            loss=points_table.integer("loss", default=base.points.loss),
            overtime_win=points_table.optional_integer("overtime_win"),
            overtime_loss=points_table.optional_integer("overtime_loss"),
        )
        points_table.done()
    tiebreak = base.tiebreak
    if table.has("tiebreak"):
        tiebreak = _criteria(table, "tiebreak")
    tiebreak_many = tiebreak if table.has("tiebreak") else base.tiebreak_many
    if table.has("tiebreak_many"):
        tiebreak_many = _criteria(table, "tiebreak_many")
    window_min = table.integer("protest_window_min", maximum=24 * 60,
                               default=base.protest_window_s // 60)
    suspensions = base.suspensions
    if table.has("suspensions"):
        suspensions = tuple(_parse_suspension(t) for t in table.tables("suspensions"))
    table.done()
    return StandingsRules(points, tiebreak, tiebreak_many, window_min * 60, suspensions)


def _criteria(table: _Table, key: str) -> tuple[Criterion, ...]:
    names = table.strings(key, _CRITERIA)
    if len(set(names)) != len(names):
        raise table.error(key, "names a criterion twice")
    if Criterion.LOTS in names and names[-1] != Criterion.LOTS:
        raise table.error(key, "'lots' can only be the last criterion")
    return tuple(Criterion(n) for n in names)


def _parse_suspension(table: _Table) -> SuspensionRule:
    name = table.string("name")
    kinds = table.strings("kinds", choices=None)
    if not kinds:
        raise table.error("kinds", "needs at least one penalty kind")
    raw = table.value("bans")
    if not isinstance(raw, list) or not raw:
        raise table.error("bans", "must be a non-empty list of match counts or \"rest\", "
                          f"got {raw!r}")
    bans: list[int | None] = []
    for item in raw:
        if item == "rest":
            bans.append(None)
        elif isinstance(item, int) and not isinstance(item, bool) and item >= 0:
            bans.append(item)
        else:
            raise table.error("bans", f"every entry must be a match count >= 0 or \"rest\", "
                              f"got {item!r}")
    table.done()
    return SuspensionRule(name, frozenset(kinds), tuple(bans))


def _parse_penalties(table: _Table | None) -> PenaltyRules:
    if table is None:
        return PenaltyRules(2, {})
    max_shorthanded = table.integer("max_shorthanded", minimum=1, maximum=9, default=2)
    major_first = table.boolean("major_first", default=False)
    shorter_first = table.boolean("shorter_first", default=False)
    ejection_only_outside_match = table.boolean("ejection_only_outside_match", default=False)
    if major_first and shorter_first:
        raise table.error("shorter_first", "cannot be true with major_first: a player's "
                          "major and minor given together are served in one order only")
    kinds_table = table.table("kinds")
    kinds: dict[str, PenaltyKind] = {}
    for name in [k for k in kinds_table.key_names() if k != CITE]:
        kind = kinds_table.table(name)
        parts_s = kind.integers("parts_s", minimum=1)
        if not parts_s:
            raise kind.error("parts_s", "needs at least one part")
        until_shift_end = kind.boolean("until_shift_end", default=False)
        kinds[name] = PenaltyKind(
            name=name,
            parts=tuple(seconds(s) for s in parts_s),
            shorthanded=kind.boolean("shorthanded", default=True),
            releasable=kind.boolean("releasable", default=False),
            ejects=kind.boolean("ejects", default=False),
            recorded_minutes=kind.integer("recorded_min", default=sum(parts_s) // 60),
            until_shift_end=until_shift_end,
        )
        kind.done()
    kinds_table.done()
    table.done()
    return PenaltyRules(max_shorthanded, kinds, major_first, shorter_first,
                        ejection_only_outside_match)


def _parse_shootout(table: _Table | None) -> ShootoutRules | None:
    if table is None:
        return None
    first = table.string("first")
    if first not in ("home", "away", ShootoutStarter.CHOSEN):
        raise table.error("first", f"must be \"home\", \"away\" or \"chosen\", got {first!r}")
    rules = ShootoutRules(
        rounds=table.integer("rounds", minimum=1, maximum=10),
        first=None if first == ShootoutStarter.CHOSEN else Team(first),
        distinct_first_series=table.boolean("distinct_first_series", default=False),
        tiebreak_second_starts=table.boolean("tiebreak_second_starts", default=False),
        bar_penalised=table.boolean("bar_penalised", default=False),
        bar_ejected=table.boolean("bar_ejected", default=True),
        strict_order=table.boolean("strict_order", default=False),
        winner_goals=table.integer("winner_goals", minimum=1, default=1),
    )
    table.done()
    return rules


def _parse_timeouts(table: _Table | None) -> TimeoutRules | None:
    """None: no time-outs, the table left out or ``per_team = 0`` (which a preset states, with
    its citation, where a reader would otherwise look for one: rules 002's running clock)."""
    if table is None:
        return None
    if table.integer("per_team", minimum=0, maximum=9) == 0:
        for key in ("length_s", "stages"):
            if table.has(key):
                raise table.error(key, "means nothing with per_team = 0 (no time-outs)")
        table.done()
        return None
    rules = TimeoutRules(
        per_team=table.integer("per_team", minimum=1, maximum=9),
        length=seconds(table.integer("length_s", minimum=1, maximum=600)),
        stages=frozenset(Stage(s) for s in table.strings("stages",
                                                         [s.value for s in PLAYED_STAGES])),
    )
    table.done()
    return rules


def _parse_shifts(table: _Table | None, period_s: int) -> ShiftRules | None:
    if table is None:
        return None
    rules = ShiftRules(
        length=seconds(table.integer("length_s", minimum=1, maximum=period_s)),
        in_overtime=table.boolean("in_overtime", default=True),
    )
    table.done()
    return rules


def _parse_extra_player(table: _Table | None) -> ExtraPlayerRules | None:
    if table is None:
        return None
    lead = table.integer("lead", minimum=1)
    until = table.integer("until", minimum=0, maximum=lead - 1)
    table.done()
    return ExtraPlayerRules(lead, until)


def _parse_pregame(table: _Table, periods: int) -> PregameRules:
    """``[pregame]``: every key optional; the checks keep the match day's order possible
    (a warm-up that ends by the start, resurfacing in a break that exists)."""
    day = 24 * 3600
    warmup_s = table.optional_integer("warmup_s", minimum=1, maximum=day)
    lead_s = table.optional_integer("warmup_lead_s", minimum=1, maximum=day)
    if (warmup_s is None) != (lead_s is None):
        raise table.error("warmup_s" if warmup_s is None else "warmup_lead_s",
                          "missing: warmup_s and warmup_lead_s go together (how long the "
                          "warm-up lasts, and how long before the start it begins)")
    if warmup_s is not None and lead_s is not None and lead_s < warmup_s:
        raise table.error("warmup_lead_s", f"the warm-up ({warmup_s} s) would not be over by "
                          f"the start: it begins {lead_s} s before it")
    for key in ("resurfacing_s", "warmup_horn"):
        if warmup_s is None and table.has(key):
            raise table.error(key, "means nothing without a warm-up (warmup_s)")
    resurfacing_s = table.optional_integer("resurfacing_s", minimum=1, maximum=day)
    ready_s = table.optional_integer("teams_ready_s", minimum=1, maximum=day)
    # A slot shorter than regulation is not refused: a preset copied and given more periods
    # keeps working, and the timekeeper's line says the game runs behind from the start.
    slot_s = table.optional_integer("slot_s", minimum=1, maximum=day)
    after = table.integers("resurfacing_after", minimum=1, default=[])
    for period in after:
        if period >= periods:
            raise table.error("resurfacing_after", f"period {period} has no break after it "
                              f"(the last of {periods} periods)")
    rules = PregameRules(
        resurfacing=None if resurfacing_s is None else seconds(resurfacing_s),
        warmup=None if warmup_s is None else seconds(warmup_s),
        warmup_lead=None if lead_s is None else seconds(lead_s),
        warmup_horn=table.boolean("warmup_horn", default=False),
        teams_ready=None if ready_s is None else seconds(ready_s),
        slot=None if slot_s is None else seconds(slot_s),
        shorten=table.boolean("shorten", default=False),
        resurfacing_after=tuple(after),
    )
    table.done()
    return rules


def _parse_decision(table: _Table, players: int) -> Decision:
    stages = table.strings("stages", [s.value for s in PLAYED_STAGES])
    overtime_s = table.optional_integer("overtime_s", minimum=1)
    overtime_break_s = table.optional_integer("overtime_break_s", minimum=0)
    overtime_players = table.optional_integer("overtime_players", minimum=1)
    shootout = table.boolean("shootout", default=True)
    sudden_death = table.boolean("sudden_death", default=True)
    if overtime_s is None and (overtime_break_s is not None or overtime_players is not None
                               or table.has("sudden_death")):
        raise table.error("overtime_s", "missing: overtime_break_s/overtime_players/"
                          "sudden_death need it")
    if overtime_players is not None and overtime_players > players:
        raise table.error("overtime_players", f"more than the field's {players} players")
    if stages and overtime_s is None and not shootout:
        raise table.error("shootout", "a tie must be decided, but there is no overtime or shootout")
    table.done()
    return Decision(
        stages=frozenset(Stage(s) for s in stages),
        overtime_break=seconds(overtime_break_s or 0) if overtime_s is not None else None,
        overtime=seconds(overtime_s) if overtime_s is not None else None,
        overtime_players=overtime_players,
        shootout=shootout,
        sudden_death=sudden_death,
    )


# ---------------------------------------------------------------- extends

BaseLoader = Callable[[str], tuple[Mapping[str, Any], str]]
"""A preset's data and source (file name) by preset name; raises ``PresetError`` if there is
no such preset (the shell reads the bundled files)."""


def resolve(data: Mapping[str, Any], source: str, load: BaseLoader
            ) -> tuple[dict[str, Any], str]:
    """A preset's data with its ``extends`` chain merged in, and the source to name in errors
    (``"floorball-2x15.toml (extends floorball-base.toml)"``).

    The merge: ``extends = "NAME"`` names the preset this one builds on, which may extend
    another (a chain; no cycles). Going from the last base to the preset itself, tables are
    merged key by key, a value given by the preset replaces its base's, and arrays (arrays of
    tables too) are replaced whole, never concatenated. A table stays a table: a base's table
    cannot be replaced by a value, nor a value by a table. ``name`` is never inherited (each
    preset names itself) and ``extends`` is not part of the result. A field the preset sets
    drops the base's citation of it (``cite.FIELD``): the preset cites its own value.

    Pure: ``load`` hands over the bases' data."""
    layers: list[tuple[Mapping[str, Any], str]] = [(data, source)]
    current, current_source = data, source
    while EXTENDS in current:
        name = current[EXTENDS]
        if not isinstance(name, str) or not name.strip():
            raise PresetError(f"{current_source}: {EXTENDS}: must be the name of a bundled "
                              f"preset, got {name!r}")
        try:
            base, base_source = load(name)
        except PresetError as err:
            raise PresetError(f"{current_source}: {EXTENDS}: {err}") from None
        seen = [s for _, s in layers]
        if base_source in seen:
            cycle = " -> ".join([*seen, base_source])
            raise PresetError(f"{current_source}: {EXTENDS}: {name!r} makes a cycle ({cycle})")
        layers.append((base, base_source))
        current, current_source = base, base_source
    if len(layers) == 1:
        return dict(data), source
    merged: dict[str, Any] = {}
    for layer, layer_source in reversed(layers):
        merged.pop("name", None)
        merged = _merge(merged, layer, layer_source, "")
    merged.pop(EXTENDS, None)
    bases = ", ".join(s for _, s in layers[1:])
    return merged, f"{source} (extends {bases})"


def _merge(base: Mapping[str, Any], over: Mapping[str, Any], source: str, where: str
           ) -> dict[str, Any]:
    out = dict(base)
    cites = dict(base[CITE]) if isinstance(base.get(CITE), Mapping) else None
    for key, value in over.items():
        if key == CITE:
            continue
        old = out.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            out[key] = _merge(old, value, source, f"{where}{key}.")
            continue
        if key in out and isinstance(old, Mapping) != isinstance(value, Mapping):
            was, now = ("a table", "a value") if isinstance(old, Mapping) else ("a value",
                                                                                 "a table")
            raise PresetError(f"{source}: {where}{key}: is {was} in the preset it extends, "
                              f"not {now} (a preset changes its base's values, not their kind)")
        out[key] = value
        if cites is not None:
            cites.pop(key, None)
    if CITE in over:
        own = over[CITE]
        if isinstance(own, Mapping) and cites is not None:
            cites.update(own)
        else:
            cites = None
            out[CITE] = own  # checked when the preset is parsed
    if cites is not None:
        if cites:
            out[CITE] = cites
        else:
            out.pop(CITE, None)
    return out


def cited_fields(preset: Preset, data: Mapping[str, Any]) -> list[tuple[str, Any, str | None]]:
    """Every field of a preset's (resolved) data, as ``(path, value, citation)`` in file
    order: tables are walked into (``penalties.kinds.minor.parts_s``), arrays of tables by
    index (``clock.stop_time[0].last_s``); ``cite`` tables are the citations, not fields."""
    fields: list[tuple[str, Any, str | None]] = []

    def walk(table: Mapping[str, Any], where: str) -> None:
        for key, value in table.items():
            if key == CITE:
                continue
            path = f"{where}{key}"
            if isinstance(value, Mapping):
                walk(value, f"{path}.")
            elif isinstance(value, list) and value and all(isinstance(v, Mapping)
                                                           for v in value):
                for i, item in enumerate(value):
                    walk(item, f"{path}[{i}].")
            else:
                fields.append((path, value, preset.cite(path)))

    walk(data, "")
    return fields
