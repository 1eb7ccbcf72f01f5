"""The office's retained ``next`` of a hall: the match it plays next, its teams (with
their rosters), who may not play, and whether it is a replay of a voided result."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from arena.safejson import kind_of

from . import fields as f
from .fields import encode
from .limits import LIMITS
from .roster import check_public_url, check_roster, roster_document


class Nx:
    """The keys of a ``next`` document (and of its teams and suspended players)."""

    MATCH = "match"
    PRESET = "preset"
    STAGE = "stage"
    TEAMS = "teams"
    NAME = "name"
    COLOURS = "colours"
    SCHEDULED = "scheduled"
    LABEL = "label"
    CATEGORY = "category"  # optional: the match's category in an event of several
    SUSPENDED = "suspended"
    TEAM = "team"
    PLAYER = "player"
    # The match's teams are not both known yet (a group to finish, lots to draw, a feeding
    # match undecided or under review): the hall shows "waiting for the office" and never
    # loads it. Only present (true) then; a side not known has "placeholder": true and the
    # slot's label as its name ("2nd B", "Winner SF1").
    WAITING = "waiting"
    PLACEHOLDER = "placeholder"
    # Only for a match whose earlier result the office voided (``office review --replay``):
    # ``{"above_seq": N}``, the hall plays it as a fresh game numbered above N (and above
    # every seq its own journal holds of the match), so the office reads the new game as
    # the final. N is at least the highest seq the office holds of the match, so a replay
    # played in another hall, or in one whose journal was lost, never reuses a seq.
    REPLAY = "replay"
    ABOVE_SEQ = "above_seq"
    # Optional: the public results site's address as the office knows it (``office serve
    # --public-url``), shown as a QR code between games unless the hall has its own. It
    # rides on every ``next`` rather than a topic of its own because each hall already
    # reads its ``next`` (the ACL and a venue's bridge carry it): nothing new to grant.
    PUBLIC_URL = "public_url"
    # Optional, in a team: its players' names by shirt number (``{"7": "A. Player"}``, the
    # tournament file's ``roster``), so the hall names a scorer. Absent without one.
    ROSTER = "roster"


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    colours: tuple[str, str]  # "#rrggbb": primary, secondary
    placeholder: bool = False  # not a team yet: the slot's label ("2nd B")
    roster: tuple[tuple[int, str], ...] = ()  # (shirt number, name), in number order


@dataclass(frozen=True, slots=True)
class Suspended:
    team: str  # "home" or "away"
    player: int


@dataclass(frozen=True, slots=True)
class Next:
    """The match a hall plays next, as the office says. ``waiting``: its teams are not both
    known yet, so the hall must not load it (it shows "waiting for the office")."""

    match: str
    preset: str
    stage: str  # "group" or "playoff"
    home: Team
    away: Team
    scheduled: str | None = None  # ISO time, to the minute
    label: str | None = None  # "Group A", "SF1": what the display shows above it
    suspended: tuple[Suspended, ...] = ()
    category: str | None = None  # in an event of several: whose tables the hall shows
    waiting: bool = False
    replay_above: int | None = None  # a replay: number its events above this seq
    public_url: str | None = None  # the public site's address (``Nx.PUBLIC_URL``)
    # What ``check_next`` left out of an optional key, and why (the hall logs it): never
    # part of the document.
    ignored: tuple[str, ...] = ()


def next_document(n: Next) -> dict[str, Any]:
    """``n`` as its JSON document (what the hall's ``on_next`` is handed, too)."""
    doc: dict[str, Any] = {
        Nx.MATCH: n.match, Nx.PRESET: n.preset, Nx.STAGE: n.stage,
        Nx.TEAMS: {side: {Nx.NAME: t.name, Nx.COLOURS: list(t.colours)}
                   | ({Nx.PLACEHOLDER: True} if t.placeholder else {})
                   | ({Nx.ROSTER: roster_document(t.roster)} if t.roster else {})
                   for side, t in zip(f.SIDES, (n.home, n.away), strict=True)},
        Nx.SCHEDULED: n.scheduled,
        Nx.SUSPENDED: [{Nx.TEAM: s.team, Nx.PLAYER: s.player} for s in n.suspended],
    }
    if n.label is not None:
        doc[Nx.LABEL] = n.label
    if n.category is not None:
        doc[Nx.CATEGORY] = n.category
    if n.waiting:
        doc[Nx.WAITING] = True
    if n.replay_above is not None:  # absent otherwise: every other `next` stays as it was
        doc[Nx.REPLAY] = {Nx.ABOVE_SEQ: n.replay_above}
    if n.public_url is not None:
        doc[Nx.PUBLIC_URL] = n.public_url
    return doc


def build_next(n: Next) -> bytes:
    return encode(next_document(n))


def check_next(topic: str, payload: bytes, presets: Collection[str] | None = None) -> Next:
    """A retained ``next``; ``presets`` (when given) are the preset names the reader knows.

    A bad ``public_url`` or a bad team's ``roster`` does not refuse the match (a hall must
    still get its next game over a wrong address or a misspelt name list): it is left out
    and its reason kept in ``ignored``."""
    doc = f.parse_object(topic, payload)
    match = doc.get(Nx.MATCH)
    if not LIMITS.is_name(match):
        f.refuse(topic, f"'{Nx.MATCH}' must be a match id ({LIMITS.name_rule}), got "
                        f"{f.show(match)}")
    preset = f.get(topic, doc, Nx.PRESET, str, "a preset name")
    if presets is not None and preset not in presets:
        f.refuse(topic, f"'{Nx.PRESET}' {preset!r} is not a known preset")
    stage = doc.get(Nx.STAGE, f.STAGES[0])
    if stage not in f.STAGES:
        f.refuse(topic, f"'{Nx.STAGE}' must be 'group' or 'playoff', got {f.show(stage)}")
    teams = doc.get(Nx.TEAMS)
    if not isinstance(teams, dict):
        f.refuse(topic, f"'{Nx.TEAMS}' must be an object with 'home' and 'away', got "
                       f"{kind_of(teams)}")
    sides = [_team(topic, teams.get(side), side) for side in f.SIDES]
    ignored: list[str] = []
    for i, side in enumerate(f.SIDES):
        roster = teams[side].get(Nx.ROSTER)
        if roster is None:
            continue
        try:
            sides[i] = replace(sides[i], roster=check_roster(roster))
        except ValueError as err:
            ignored.append(f"'{Nx.TEAMS}.{side}.{Nx.ROSTER}' {err}: left out")
    suspended = doc.get(Nx.SUSPENDED, [])
    if not isinstance(suspended, list):
        f.refuse(topic, f"'{Nx.SUSPENDED}' must be a list, got {kind_of(suspended)}")
    banned = tuple(_suspended(topic, s, i) for i, s in enumerate(suspended))
    waiting = doc.get(Nx.WAITING, False)
    if not isinstance(waiting, bool):
        f.refuse(topic, f"'{Nx.WAITING}' must be true or false, got {f.show(waiting)}")
    unknown = [t.name for t in sides if t.placeholder]
    if unknown and not waiting:
        # A hall must never be handed placeholder teams as a match it may load.
        f.refuse(topic, f"'{Nx.WAITING}' must be true when a team is a placeholder "
                       f"({', '.join(unknown)})")
    public_url: str | None = None
    if doc.get(Nx.PUBLIC_URL) is not None:
        try:
            public_url = check_public_url(doc[Nx.PUBLIC_URL])
        except ValueError as err:
            ignored.append(f"'{Nx.PUBLIC_URL}' {err}: left out")
    return Next(match=match, preset=preset, stage=stage, home=sides[0], away=sides[1],
                scheduled=f.opt_str(topic, doc, Nx.SCHEDULED),
                label=f.opt_str(topic, doc, Nx.LABEL), suspended=banned,
                category=f.opt_category(topic, doc, Nx.CATEGORY), waiting=waiting,
                replay_above=_replay(topic, doc), public_url=public_url,
                ignored=tuple(ignored))


def _replay(topic: str, doc: Mapping[str, Any]) -> int | None:
    """The optional ``replay``: absent or null, else ``{"above_seq": 1..LIMITS.seq_max}``."""
    value = doc.get(Nx.REPLAY)
    if value is None:
        return None
    if not isinstance(value, dict):
        f.refuse(topic, f"'{Nx.REPLAY}' must be an object with '{Nx.ABOVE_SEQ}', got "
                       f"{kind_of(value)} {f.show(value)}")
    return f.integer(topic, value, Nx.ABOVE_SEQ, 1, where=f"{Nx.REPLAY}.", maximum=LIMITS.seq_max)


def _team(topic: str, value: Any, side: str) -> Team:
    where = f"{Nx.TEAMS}.{side}"
    if not isinstance(value, dict):
        f.refuse(topic, f"'{where}' must be an object with '{Nx.NAME}' and '{Nx.COLOURS}', got "
                       f"{kind_of(value)}")
    name = value.get(Nx.NAME)
    if not isinstance(name, str) or not name.strip():
        f.refuse(topic, f"'{where}.{Nx.NAME}' must be a non-empty string, got {f.show(name)}")
    problem = LIMITS.text_problem(name)  # what the final record will have to carry
    if problem is not None:
        f.refuse(topic, f"'{where}.{Nx.NAME}' {problem}")
    colours = value.get(Nx.COLOURS)
    if not isinstance(colours, list) or len(colours) != 2 or not all(
            LIMITS.is_colour(c) for c in colours):
        f.refuse(topic, f"'{where}.{Nx.COLOURS}' must be two {LIMITS.colour_rule} strings, got "
                       f"{f.show(colours)}")
    placeholder = value.get(Nx.PLACEHOLDER, False)
    if not isinstance(placeholder, bool):
        f.refuse(topic, f"'{where}.{Nx.PLACEHOLDER}' must be true or false, got "
                       f"{f.show(placeholder)}")
    return Team(name, (colours[0], colours[1]), placeholder)


def _suspended(topic: str, value: Any, i: int) -> Suspended:
    if not isinstance(value, dict) or value.get(Nx.TEAM) not in f.SIDES \
            or not isinstance(value.get(Nx.PLAYER), int) \
            or isinstance(value.get(Nx.PLAYER), bool):
        f.refuse(topic, f"'{Nx.SUSPENDED}' item {i} must be {{'{Nx.TEAM}': 'home'|'away', "
                       f"'{Nx.PLAYER}': int}}, got {f.show(value)}")
    return Suspended(value[Nx.TEAM], value[Nx.PLAYER])
