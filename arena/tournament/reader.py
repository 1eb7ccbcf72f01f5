"""The tournament file: teams, groups, schedule and bracket, validated (docs/developer.md 4.5).

Pure: ``parse_tournament`` takes ``tomllib`` output and the parsed presets it names; reading
files is ``arena.tournament.files``. Every error names the file, the key path and the problem, e.g.
``cup.toml: matches[3].home: 'C9' is not a team, nor a placeholder (...)``.

The format (examples/tournaments/README.md)::

    name = "Example Cup"
    id = "example-cup"                   # 1-64 of A-Z a-z 0-9 _ . - (an MQTT topic level)
    preset = "ice-hockey-2x20"           # every match's, unless the match names its own
    points = {win = 2, draw = 1, loss = 0}   # optional: over the preset's standings points
    [standings]                          # optional: over the preset's [standings] table
    [[groups]]
    name = "A"
    teams = ["Lions", {name = "Bears", short = "BRS", colours = ["#102040", "#ffffff"],
             roster = {7 = "A. Player"}}]
    [[matches]]
    id = "A1"
    group = "A"                          # group matches only
    stage = "group"                      # group | playoff | placement (default: group)
    hall = "hall-1"
    start = 2026-12-05T09:00:00          # TOML local date-time, unquoted
    home = "Lions"                       # or "A1" (first of group A), "W:SF1" / "L:SF1"
    away = "Bears"
    preset = "..."                       # optional
    slot_minutes = 60                    # optional, top level: how long a match holds
                                         # its hall (default: the preset's periods+breaks)

The schedule is checked as a whole once read (``check_schedule``): no hall and no team in
two matches at overlapping times, each group a complete round robin (every two teams meet
once, or twice with home and away swapped); a team playing back to back, or a group whose
teams are at home unevenly, is a warning (``Tournament.warnings``), not a refusal.

A slot's text is read as a team name first: a team literally named "A1" is that team, never
"first of group A". So that "A12" can only mean one thing, group names may not end in a digit.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from types import MappingProxyType
from typing import Any

from arena import wire, words
from arena.core.errors import PresetError
from arena.core.preset import Preset, StandingsRules, parse_standings
from arena.core.tables import MISSING, Table

from .model import Group, ScheduledMatch, Slot, SlotKind, Stage, TeamEntry, Tournament

# The wire's limits hold the file too (arena.wire.limits): ids, halls and groups are MQTT
# topic levels; team names ride in every final and players' names in every `next`, so the
# file may hold no name the office's intake or a hall would refuse.
_LIMITS = wire.LIMITS
_PLAYER_NUMBER = re.compile(rf"[0-9]{{1,{len(str(_LIMITS.player_max))}}}")
_PLACEHOLDERS = "A1 = first of group A, W:SF1 / L:SF1 = winner / loser of match SF1"

_TOP_KEYS = ("name", "id", "preset", "points", "standings", "slot_minutes", "groups",
             "matches", "language")
_GROUP_KEYS = ("name", "teams")
_TEAM_KEYS = ("name", "short", "colours", "roster")
_MATCH_KEYS = ("id", "group", "stage", "hall", "start", "home", "away", "preset")


class TournamentError(ValueError):
    """A tournament file is invalid; the message names the file, the key and the problem."""


class _Table(Table):
    """A tournament file's table (``arena.core.tables``): unknown keys are refused up
    front; strings are exact (matches refer to teams by their text: a stray space would be a
    different team)."""

    def string(self, key: str, default: Any = MISSING, *, exact: bool = True) -> str:
        return super().string(key, default, exact=exact)

    def name(self, key: str) -> str:
        return self.matching(key, _LIMITS.name_pattern, f"a valid name ({_LIMITS.name_rule})")

    def hall(self, key: str) -> str:
        """A hall: a name that is also a hall's topic level (wire.check_hall)."""
        value = self.name(key)
        try:
            return wire.check_hall(value)
        except ValueError as err:
            raise self.error(key, str(err)) from err


def _read(data: Mapping[str, Any], source: str, keys: Sequence[str], where: str = ""
          ) -> _Table:
    return _Table(data, source, TournamentError, where=where, keys=keys)


def parse_tournament(data: Mapping[str, object], source: str,
                     presets: Mapping[str, Preset]) -> Tournament:
    """Validate a parsed tournament file. ``source`` (the file's name) prefixes every error;
    ``presets`` maps preset names to parsed presets and must hold every one the file names."""
    top = _read(data, source, _TOP_KEYS)
    name = title(top, "name", "the tournament's")
    tournament_id = top.name("id")
    language = top.choice("language", words.LANGUAGES, words.DEFAULT)
    preset = _preset(top, presets)
    rules = _rules(top, preset)
    slot = top.get("slot_minutes", None)
    most = _LIMITS.slot_minutes_max
    if slot is not None and (isinstance(slot, bool) or not isinstance(slot, int)
                             or not 1 <= slot <= most):
        raise top.error("slot_minutes", f"must be a whole number of minutes from 1 to {most}, "
                        f"got {slot!r}")
    teams, groups, group_of = _groups(top)
    schedule = _Schedule(top, presets=presets, default_preset=preset.name, teams=teams,
                         groups=groups, group_of=group_of,
                         slot=timedelta(minutes=slot) if slot is not None else None)
    matches = schedule.matches()
    return Tournament(name=name, id=tournament_id, preset=preset.name,
                      teams=MappingProxyType(teams), groups=groups, matches=matches,
                      rules=rules, warnings=schedule.warnings, language=language)


def title(table: Table, key: str, whose: str) -> str:
    """A name a person reads (the tournament's, the event's): held to the text rules of the
    wire (``Limits.text_problem``), so the page and the printouts show what was typed."""
    value = table.string(key)
    problem = _LIMITS.text_problem(value)
    if problem is not None:
        raise table.error(key, f"{_shown(value)}: {whose} name {problem} (the limit of a "
                          "name on the page)")
    return value


def _shown(value: str) -> str:
    """A name as a message quotes it: whole, or its first 37 characters and '...'."""
    return repr(value if len(value) <= 40 else value[:37] + "...")


def match_length(preset: Preset) -> timedelta:
    """How long a match of ``preset`` holds its hall: its periods and the breaks between
    them (regulation time; a file whose matches run longer says so with ``slot_minutes``)."""
    nanos = preset.periods * preset.period_length + sum(preset.breaks)
    return timedelta(microseconds=nanos // 1000)


def _preset(table: _Table, presets: Mapping[str, Preset]) -> Preset:
    name = table.string("preset")
    if name not in presets:
        known = ", ".join(sorted(presets)) or "none loaded"
        raise table.error("preset", f"unknown preset {name!r} (one of {known})")
    return presets[name]


def _rules(top: _Table, preset: Preset) -> StandingsRules:
    """The preset's standings rules with the file's overrides: ``points`` first, then the
    ``[standings]`` table, each replacing only what it names (preset.parse_standings)."""
    points = top.get("points", None)
    standings = top.get("standings", None)
    if standings is not None and not isinstance(standings, Mapping):
        raise top.error("standings", f"must be a table, got {standings!r}")
    if points is not None and standings is not None and "points" in standings:
        raise top.error("points", "given twice, here and as standings.points: keep one")
    rules = preset.standings
    try:
        if points is not None:
            rules = parse_standings({"points": points}, top.source, rules, where="")
        if standings is not None:
            rules = parse_standings(standings, top.source, rules)
    except PresetError as err:
        # The same message (file, key, problem); only the type is the office's.
        raise TournamentError(str(err)) from None
    if points is not None or (standings is not None and "points" in standings):
        _check_points(top, rules, "points" if points is not None else "standings.points")
    else:
        _check_points(top, rules, "preset", f"preset {preset.name!r}: points.")
    if standings is not None and "suspensions" in standings:
        kinds = preset.penalties.kinds
        for i, rule in enumerate(rules.suspensions):
            for kind in sorted(rule.kinds - set(kinds)):
                known = f"one of {', '.join(kinds)}" if kinds else "it has none"
                raise TournamentError(
                    f"{top.source}: standings.suspensions[{i}].kinds: {kind!r} is not a "
                    f"penalty kind of preset {preset.name!r} ({known})")
    return rules


def _check_points(top: _Table, rules: StandingsRules, key: str, within: str = "") -> None:
    """Each result's points within the limits: the file's (at ``key``), else the preset's
    (a preset of the user's own: named at the file's ``preset``, ``within`` it)."""
    given = rules.points
    for what, value in (("win", given.win), ("draw", given.draw), ("loss", given.loss),
                        ("overtime_win", given.overtime_win),
                        ("overtime_loss", given.overtime_loss)):
        if value is not None and value > _LIMITS.points_max:
            at, prefix = (key, f"{within}{what}: ") if within else (f"{key}.{what}", "")
            raise top.error(at, f"{prefix}{value} points, the limit is {_LIMITS.points_max} "
                            "a result (a group's table is sent to every hall)")


def _groups(top: _Table) -> tuple[dict[str, TeamEntry], tuple[Group, ...], dict[str, str]]:
    """Teams by name (file order), the groups, and each team's group."""
    teams: dict[str, TeamEntry] = {}
    group_of: dict[str, str] = {}
    groups: list[Group] = []
    for table in top.tables("groups", _GROUP_KEYS, required=True):
        name = table.name("name")
        if name[-1].isdigit():
            raise table.error("name", f"{name!r} ends in a digit: 'A1' must mean one thing "
                              "(first of group A)")
        if any(g.name == name for g in groups):
            raise table.error("name", f"group {name!r} is named twice")
        raw = table.get("teams")
        if not isinstance(raw, list):
            raise table.error("teams", f"must be a list of team names or tables, got {raw!r}")
        if len(raw) < 2:
            raise table.error("teams", f"group {name} needs at least 2 teams, got {len(raw)}")
        if len(raw) > _LIMITS.group_teams_max:
            raise table.error("teams", f"group {name} has {len(raw)} teams, the limit is "
                              f"{_LIMITS.group_teams_max} (its table is one message to "
                              "every hall)")
        members: list[str] = []
        for i, item in enumerate(raw):
            where = f"{table.where}teams[{i}]"
            team = _team(item, where, top.source)
            if team.name in group_of:
                other = group_of[team.name]
                problem = (f"{team.name!r} is named twice in group {name}" if other == name
                           else f"{team.name!r} is already in group {other}")
                raise TournamentError(f"{top.source}: {where}: {problem}")
            teams[team.name] = team
            group_of[team.name] = name
            members.append(team.name)
        groups.append(Group(name, tuple(members)))
    return teams, tuple(groups), group_of


def _team(item: object, where: str, source: str) -> TeamEntry:
    if isinstance(item, str):
        return TeamEntry(_team_name(item, where, source), _default_short(item),
                         roster=MappingProxyType({}))
    if not isinstance(item, Mapping):
        raise TournamentError(f"{source}: {where}: must be a team name or a table "
                              f"{{name = ..., short = ...}}, got {item!r}")
    table = _read(item, source, _TEAM_KEYS, where=f"{where}.")
    name = _team_name(table.string("name"), f"{where}.name", source)
    short = table.string("short", _default_short(name))
    problem = _LIMITS.text_problem(short, _LIMITS.short_chars)
    if problem is not None:
        raise table.error("short", f"team {_shown(name)}: {short!r}: a short name {problem}")
    return TeamEntry(name, short, _colours(table), MappingProxyType(_roster(table)))


def _team_name(value: str, where: str, source: str) -> str:
    """A team's name as the wire carries it in a final (``Limits.text_problem``): the
    office stores no final whose team name breaks the limits, so the file may not hold one."""
    if not value.strip():
        raise TournamentError(f"{source}: {where}: a team name must not be empty")
    if value != value.strip():
        raise TournamentError(f"{source}: {where}: {value!r} has leading or trailing spaces")
    problem = _LIMITS.text_problem(value)
    if problem is not None:
        raise TournamentError(f"{source}: {where}: team {_shown(value)}: a team name "
                              f"{problem} (the limit of a name in a match's record)")
    return value


def _default_short(name: str) -> str:
    """The first three letters or digits, upper-cased ("Lions" -> "LIO", "1. FC" -> "1FC")."""
    letters = "".join(c for c in name if c.isalnum())
    # cut after upper-casing: "ß" is "SS", so three letters could become more than the
    # limit of a short name
    return (letters or name.strip()).upper()[:3]


def _colours(table: _Table) -> tuple[str, str] | None:
    value = table.get("colours", None)
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 2
            or not all(_LIMITS.is_colour(c) for c in value)):
        raise table.error("colours", f"must be two {_LIMITS.colour_rule} colours (shirt, "
                          f"number), got {value!r}")
    return (str(value[0]).lower(), str(value[1]).lower())


def _roster(table: _Table) -> dict[int, str]:
    value = table.get("roster", None)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise table.error("roster", f"must be a table of number = \"name\", got {value!r}")
    roster: dict[int, str] = {}
    for key, player in value.items():
        where = f"roster.{key}"
        # TOML table keys are always strings: `7 = "A. Player"` arrives as "7".
        if not isinstance(key, str) or not _PLAYER_NUMBER.fullmatch(key):
            raise table.error(where, f"{key!r} is not a player number "
                              f"(0-{_LIMITS.player_max})")
        number = int(key)
        if number > _LIMITS.player_max:
            raise table.error(where, f"{key!r} is not a player number "
                              f"(0-{_LIMITS.player_max})")
        if number in roster:
            raise table.error(where, f"player number {number} is given twice")
        try:  # the limits the halls hold a `next` to (arena.wire), checked here
            roster[number] = wire.check_roster_name(player)
        except ValueError as err:
            raise table.error(where, str(err)) from None
    return roster


@dataclass(frozen=True, slots=True)
class _Raw:
    """A match as read, before its slots are resolved (they need every match's id and start)."""

    index: int
    table: _Table
    id: str
    stage: Stage
    group: str | None
    hall: str
    start: datetime
    preset: str
    home: str
    away: str


class _Schedule:
    """Reads ``[[matches]]`` in two passes: the fields, then the slots against all matches."""

    def __init__(self, top: _Table, *, presets: Mapping[str, Preset], default_preset: str,
                 teams: Mapping[str, TeamEntry], groups: tuple[Group, ...],
                 group_of: Mapping[str, str], slot: timedelta | None = None) -> None:
        self.top = top
        self.slot = slot
        self.group_list = groups
        self.warnings: tuple[str, ...] = ()
        self.presets = presets
        self.default_preset = default_preset
        self.teams = teams
        self.groups = {g.name: g for g in groups}
        self.group_of = group_of
        self.raw: dict[str, _Raw] = {}
        self.filled_by: dict[str, str] = {}  # placeholder -> the slot it already fills

    def matches(self) -> tuple[ScheduledMatch, ...]:
        if "matches" not in self.top.data:
            # Groups alone are enough to rank results (`office standings`); the service
            # needs a schedule to know halls and what is complete.
            return ()
        for i, table in enumerate(self.top.tables("matches", _MATCH_KEYS, required=True)):
            raw = self._read(i, table)
            self.raw[raw.id] = raw
        scheduled = [self._resolve(raw) for raw in self.raw.values()]
        self._check(scheduled)
        # sorted() is stable: matches starting together keep their file order.
        return tuple(sorted(scheduled, key=lambda m: m.start))

    def _read(self, index: int, table: _Table) -> _Raw:
        match_id = table.name("id")
        if match_id in self.raw:
            raise table.error("id", f"match id {match_id!r} is used twice "
                              f"(first at matches[{self.raw[match_id].index}])")
        group = table.get("group", None)
        stage_text = table.get("stage", Stage.GROUP.value if group is not None else MISSING)
        if not isinstance(stage_text, str) or stage_text not in {s.value for s in Stage}:
            raise table.error("stage", f"must be one of group, playoff, placement, "
                              f"got {stage_text!r}")
        stage = Stage(str(stage_text))
        if stage is Stage.GROUP:
            group = table.string("group")
            if group not in self.groups:
                raise table.error("group", f"no group {group!r} (groups: "
                                  f"{', '.join(self.groups)})")
        elif group is not None:
            raise table.error("group", f"a {stage} match belongs to no group: remove the key, "
                              "or set stage = \"group\"")
        preset = table.string("preset", self.default_preset)
        if preset not in self.presets:
            raise table.error("preset", f"unknown preset {preset!r} "
                              f"(one of {', '.join(sorted(self.presets))})")
        if stage.decided and not self.presets[preset].decision.required(stage):
            # The bracket needs a winner; the scoreboard plays these at its playoff stage.
            key = "preset" if "preset" in table.data else "stage"
            raise table.error(key, f"a {stage} match must be decided, but preset {preset!r} "
                              "decides no tie in a playoff (its decision.stages)")
        return _Raw(index, table, match_id, stage, group, table.hall("hall"), _start(table),
                    preset, table.string("home"), table.string("away"))

    def _resolve(self, raw: _Raw) -> ScheduledMatch:
        if raw.home == raw.away:
            raise raw.table.error("away", f"the same team twice ({raw.home!r})")
        home = self._slot(raw, "home", raw.home)
        away = self._slot(raw, "away", raw.away)
        length = self.slot if self.slot is not None else match_length(self.presets[raw.preset])
        return ScheduledMatch(id=raw.id, stage=raw.stage, group=raw.group, hall=raw.hall,
                              start=raw.start, home=home, away=away, preset=raw.preset,
                              length=length)

    def _slot(self, raw: _Raw, key: str, text: str) -> Slot:
        if raw.group is not None:
            group = self.groups[raw.group]
            if text in group.teams:
                return Slot(text, SlotKind.TEAM, team=text)
            if text in self.group_of:
                raise raw.table.error(key, f"{text!r} is in group {self.group_of[text]}, "
                                      f"not in group {raw.group}")
            hint = ("; a group match names teams, not placeholders"
                    if _looks_like_placeholder(text) else "")
            raise raw.table.error(key, f"{text!r} is not a team of group {raw.group} "
                                  f"({', '.join(group.teams)}){hint}")
        # A team's name wins over a placeholder reading of the same text (module docstring).
        if text in self.teams:
            return Slot(text, SlotKind.TEAM, team=text)
        slot = self._placeholder(raw, key, text)
        if text in self.filled_by:
            raise raw.table.error(key, f"{text!r} already fills {self.filled_by[text]}: a "
                                  "placeholder names one team, who cannot play twice at once")
        self.filled_by[text] = f"matches[{raw.index}].{key}"
        return slot

    def _placeholder(self, raw: _Raw, key: str, text: str) -> Slot:
        what = f"{text!r} is not a team, nor a placeholder"
        if text[:2] in ("W:", "L:"):
            other = text[2:]
            if other == raw.id:
                raise raw.table.error(key, f"{text!r}: a match cannot wait for its own result")
            if other not in self.raw:
                raise raw.table.error(key, f"{what}: there is no match {other!r}")
            target = self.raw[other]
            if target.stage is Stage.GROUP:
                raise raw.table.error(key, f"{text!r}: {other} is a group match, with no "
                                      "winner to send on; name a group place instead "
                                      f"({target.group}1 = first of group {target.group})")
            if target.start >= raw.start:
                raise raw.table.error(key, f"{text!r}: {other} starts at "
                                      f"{target.start.isoformat(' ', 'minutes')}, not before "
                                      f"this match ({raw.start.isoformat(' ', 'minutes')})")
            kind = SlotKind.WINNER if text[0] == "W" else SlotKind.LOSER
            return Slot(text, kind, match=other)
        found = re.fullmatch(r"(.*?)([0-9]+)", text)
        if found is None or not found.group(1):
            raise raw.table.error(key, f"{what} ({_PLACEHOLDERS})")
        group_name, place = found.group(1), int(found.group(2))
        group = self.groups.get(group_name)
        if group is None:
            raise raw.table.error(key, f"{what}: there is no group {group_name!r} (groups: "
                                  f"{', '.join(self.groups)}; {_PLACEHOLDERS})")
        if not 1 <= place <= len(group.teams):
            raise raw.table.error(key, f"{text!r}: group {group_name} has places 1 to "
                                  f"{len(group.teams)}, not {place}")
        return Slot(text, SlotKind.GROUP_PLACE, group=group_name, place=place)

    def _check(self, matches: list[ScheduledMatch]) -> None:
        """The schedule as a whole (``check_schedule``): every error at once, each at the
        key it is about; the warnings are kept for the tournament."""
        found = check_schedule(matches, self.group_list)
        if found.errors:
            group_index = {g.name: i for i, g in enumerate(self.group_list)}
            lines = []
            for p in found.errors:
                if p.match is not None:
                    where = f"matches[{self.raw[p.match].index}].{p.key}"
                else:
                    where = f"groups[{group_index[p.group or '']}]"
                lines.append(f"{self.top.source}: {where}: {p.text}")
            raise TournamentError("\n".join(lines))
        self.warnings = tuple(p.message() for p in found.warnings)


@dataclass(frozen=True, slots=True)
class ScheduleProblem:
    """One thing wrong (or worth a look) in a schedule, at a match's key or at a group."""

    text: str
    match: str | None = None  # the match it is reported at (None: the group's)
    key: str = ""  # that match's key: start, home, away
    group: str | None = None

    def message(self) -> str:
        """The problem on its own line: ``A3: ...`` or ``group A: ...``."""
        return f"{self.match}: {self.text}" if self.match else f"group {self.group}: {self.text}"


@dataclass(frozen=True, slots=True)
class ScheduleCheck:
    errors: tuple[ScheduleProblem, ...]
    warnings: tuple[ScheduleProblem, ...]


def when_of(m: ScheduledMatch) -> str:
    return m.start.isoformat(" ", "minutes")


def _when(m: ScheduledMatch) -> str:
    if not m.length:
        return m.start.isoformat(" ", "minutes")
    return f"{m.start.isoformat(' ', 'minutes')}-{m.end:%H:%M}"


def overlap(a: ScheduledMatch, b: ScheduledMatch) -> bool:
    """Both take place at some moment (a match of unknown length holds its start)."""
    return a.start == b.start or (a.start < b.end and b.start < a.end)


def _sides(m: ScheduledMatch) -> Iterable[tuple[str, str]]:
    """(key, who) for each side the schedule names: a team, or a match whose winner or
    loser plays here (placeholders for group places are not known before the group ends)."""
    for key, slot in (("home", m.home), ("away", m.away)):
        if slot.team is not None:
            yield key, slot.team
        elif slot.match is not None:
            yield key, f"match:{slot.match}"


def check_schedule(matches: Sequence[ScheduledMatch],
                   groups: Sequence[Group]) -> ScheduleCheck:
    """Pure: the schedule's clashes and round robins (module docstring). Errors: a hall or a
    team in two matches at overlapping times, a match that waits for another's result while
    it is still played, a group whose pairs do not meet equally often. Warnings: a team with
    less rest between two matches than half a match, home and away unbalanced."""
    errors: list[ScheduleProblem] = []
    warnings: list[ScheduleProblem] = []
    ordered = sorted(matches, key=lambda m: m.start)
    by_id = {m.id: m for m in ordered}
    in_hall: dict[str, list[ScheduledMatch]] = {}
    for m in ordered:
        booked = in_hall.setdefault(m.hall, [])
        for other in booked:
            if overlap(other, m):
                errors.append(ScheduleProblem(
                    f"{m.hall} already has match {other.id} at this time ({other.id} "
                    f"{_when(other)}, {m.id} {_when(m)})", m.id, "start"))
        booked.append(m)
    # Each team's matches in order; a W:/L: slot plays "the team of that match".
    playing: dict[str, list[tuple[ScheduledMatch, str]]] = {}
    for m in ordered:
        for key, who in _sides(m):
            if who.startswith("match:"):
                earlier = by_id.get(who[6:])
                if earlier is not None:
                    _follow(earlier, m, key, errors, warnings)
                continue
            playing.setdefault(who, []).append((m, key))
    for team, played in playing.items():
        for i, (m, key) in enumerate(played):
            for other, _ in played[:i]:
                if overlap(other, m):
                    errors.append(ScheduleProblem(
                        f"{team!r} already plays match {other.id} at this time ({other.id} "
                        f"{_when(other)}, {m.id} {_when(m)})", m.id, key))
            if i and not overlap(played[i - 1][0], m):
                _rest(team, played[i - 1][0], m, warnings)
    for group in groups:
        _round_robin(group, [m for m in ordered if m.group == group.name], errors, warnings)
    return ScheduleCheck(tuple(errors), tuple(warnings))


def _follow(earlier: ScheduledMatch, m: ScheduledMatch, key: str,
            errors: list[ScheduleProblem], warnings: list[ScheduleProblem]) -> None:
    """``m`` waits for ``earlier``'s result: it cannot start before that match ends."""
    slot = m.home if key == "home" else m.away
    if m.start <= earlier.start:  # the file's own order is checked as it is read
        errors.append(ScheduleProblem(
            f"{slot.text!r}: {earlier.id} starts at {when_of(earlier)}, not before this "
            f"match ({when_of(m)})", m.id, key))
    elif m.start < earlier.end:
        errors.append(ScheduleProblem(
            f"{slot.text!r}: {earlier.id} ({_when(earlier)}) is still being played when "
            f"this match starts ({_when(m)})", m.id, key))
    elif earlier.end <= m.start:
        _rest(f"the {'winner' if slot.text[0] == 'W' else 'loser'} of {earlier.id}",
              earlier, m, warnings)


def _rest(who: str, before: ScheduledMatch, after: ScheduledMatch,
          warnings: list[ScheduleProblem]) -> None:
    """A warning when ``who``'s rest between two matches is shorter than half the first
    one: a change-over, not a rest (a format that plays every round, with an hour's rest
    between 67-minute games, is not warned of; consecutive slots of 40 or 60 minutes are)."""
    rest = after.start - before.end
    if before.length and rest < before.length / 2:
        minutes = int(rest.total_seconds() // 60)
        warnings.append(ScheduleProblem(
            f"{who} plays back to back: {before.id} ({_when(before)}) then {after.id} "
            f"({_when(after)}), {minutes} min apart", after.id, "start"))


def _round_robin(group: Group, matches: Sequence[ScheduledMatch],
                 errors: list[ScheduleProblem], warnings: list[ScheduleProblem]) -> None:
    """Every two teams of the group meet equally often: once (a single round robin) or
    twice with home and away swapped (a double one), told apart by how often most pairs
    meet. The pairs that meet too often and those that meet too seldom are named."""
    met: dict[frozenset[str], list[ScheduledMatch]] = {}
    for m in matches:
        if m.home.team is not None and m.away.team is not None:
            met.setdefault(frozenset((m.home.team, m.away.team)), []).append(m)
    teams = group.teams
    pairs = [frozenset((a, b)) for i, a in enumerate(teams) for b in teams[i + 1:]]
    counts = Counter(len(met.get(p, ())) for p in pairs)
    # The commonest count (the smaller on a tie) is the format meant: once or twice.
    rounds = min(2, max(1, min(counts, key=lambda n: (-counts[n], n))))
    if not matches:
        errors.append(ScheduleProblem("no match of the group is scheduled (a round robin "
                                      f"of {', '.join(teams)})", group=group.name))
        return
    word = {1: "once", 2: "twice"}
    problems: list[str] = []
    for p in pairs:
        games = met.get(p, [])
        a, b = (t for t in teams if t in p)
        ids = ", ".join(m.id for m in games)
        if not games:
            problems.append(f"{a} v {b} never meet")
        elif len(games) != rounds:
            problems.append(f"{a} v {b} meet {word.get(len(games), f'{len(games)} times')} "
                            f"({ids})")
        elif rounds == 2 and games[0].home.team == games[1].home.team:
            problems.append(f"{a} v {b} meet twice with {games[0].home.team} at home both "
                            f"times ({ids}): a double round robin swaps home and away")
    if problems:
        errors.append(ScheduleProblem(
            f"not a complete round robin (every two teams meet {word[rounds]}): "
            + "; ".join(problems), group=group.name))
        return
    home = Counter(m.home.team for m in matches)
    away = Counter(m.away.team for m in matches)
    uneven = [f"{t} {home[t]} at home, {away[t]} away" for t in teams
              if abs(home[t] - away[t]) > 1]
    if uneven:
        warnings.append(ScheduleProblem("home and away unbalanced: " + "; ".join(uneven),
                                        group=group.name))


def _looks_like_placeholder(text: str) -> bool:
    return text[:2] in ("W:", "L:") or re.fullmatch(r".+[0-9]", text) is not None


def _start(table: _Table) -> datetime:
    value = table.get("start")
    example = "(start = 2026-12-05T09:00:00, unquoted)"
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            raise table.error("start", f"{value.isoformat()} has a UTC offset; use the "
                              f"tournament's local date-time {example}")
        return value
    if isinstance(value, date):
        problem = "a date without a time"
    elif isinstance(value, time):
        problem = "a time without a date"
    elif isinstance(value, str):
        problem = f"the string {value!r}"
    else:
        problem = repr(value)
    raise table.error("start", f"must be a TOML local date-time {example}, got {problem}")
