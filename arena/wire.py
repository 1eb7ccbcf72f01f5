"""The MQTT contract (docs/developer.md 4.4), declared once: every topic and every payload.

The hall (``mqtt``, ``outbox``), the office (``intake``, ``service``, ``ledger``) and the
display's between-games tables all build and check their messages here, so the wire format
cannot drift between the two ends. Each message has one function that builds its payload
(``build_*``) and one that checks a received one (``check_*``) and raises ``WireError``
naming the topic and what is wrong.

Compatibility: the version is in the topic (``VERSION``). A payload of a newer minor version
may carry keys this one does not know: they are ignored. A required key that is missing, or
has the wrong type, is refused.

Standard library and the pure core only (no paho): the office's pure parts and the display
import it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, NoReturn
from urllib.parse import urlsplit

from arena.core.events import EventKind
from arena.core.values import DecidedBy
from arena.safejson import MAX_BYTES, JsonError, expect_object, kind_of, loads

ROOT = "arena"
VERSION = "v1"  # a change that old readers cannot ignore gets a new version, a new tree

# The five topics under a hall, and the office's tables.
EVENTS = "events"
STATE = "state"
STATUS = "status"
NEXT = "next"
# What the office has durably stored of a hall's events (retained, from the office): the
# hall's only proof of delivery, since a broker's PUBACK survives neither a broker replaced
# by an empty one nor an office restored from an older backup.
ACKS = "acks"
STANDINGS = "standings"
HALL_KINDS = (EVENTS, STATE, STATUS, NEXT, ACKS)
FROM_HALL = (EVENTS, STATE, STATUS)  # what the office reads


@dataclass(frozen=True, slots=True)
class TopicRule:
    """One topic of the contract: where it is, who publishes it, and how."""

    kind: str  # one of HALL_KINDS, or STANDINGS
    pattern: str  # below ``arena/v1/<tournament>/``
    publisher: str
    retained: bool
    qos: int
    meaning: str


# The contract's topics, declared once: the subscriptions below take their QoS from here,
# and docs/reference.py writes this table into docs/developer.md, "MQTT topics".
TOPICS: tuple[TopicRule, ...] = (
    TopicRule(EVENTS, "<hall>/events", "hall", False, 1,
              "every journalled event in seq order; event_id = <hall>:<match>:<seq>"),
    TopicRule(STATE, "<hall>/state", "hall", True, 0,
              "the state document: at once on a change, countdowns once a second"),
    TopicRule(STATUS, "<hall>/status", "hall", True, 1,
              "online / offline; offline is also the hall's last will"),
    TopicRule(NEXT, "<hall>/next", "office", True, 1,
              "the match this hall plays next (waiting, replay, rosters, public_url)"),
    TopicRule(ACKS, "<hall>/acks", "office", True, 1,
              "per match the highest seq stored with none missing below: the proof of delivery"),
    TopicRule(STANDINGS, "standings/<group>, standings/<category>/<group>", "office", True, 1,
              "one group's table as the office ranks it"),
)
_QOS = {rule.kind: rule.qos for rule in TOPICS}

ONLINE = b"online"
OFFLINE = b"offline"

MAX_PAYLOAD = MAX_BYTES  # a match record is a few kB; anything bigger is refused unparsed
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # no '/', '+', '#' (topic syntax), no ':'
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_INT64 = 2**63  # SQLite's INTEGER range: a bigger number could not even be stored
_SIDES = ("home", "away")
_STAGES = ("group", "playoff")
_EVENT_TYPES = frozenset(k.value for k in EventKind)
_DECIDED_BY = tuple(d.value for d in DecidedBy)
# The protocol's ranges (docs/developer.md 4.4): what a real match can produce, with room to spare.
# A number beyond them is a forgery or a bug, and would rank or suspend nonsense.
MAX_GOALS = 999  # a team's goals in one match
MAX_PLAYER = 99  # a shirt number (the console refuses any other)
MAX_MINUTES = 60  # one penalty's recorded minutes (a 5+20 counts 25)
MAX_PERIOD = 20  # periods, overtimes included
MAX_CLOCK_MS = 24 * 3600 * 1000  # a period clock reading
MAX_ITEMS = 1000  # goals, penalties or shots of one match
MAX_TEXT = 200  # characters of any string in an event (a team's name, a penalty's kind)
MAX_NUMBER = 2**53  # any other number in an event's data (JSON's safe integers)
# A hall numbers a match's events gaplessly from 1 (a replay numbers on above the voided
# game's): a real match has a few hundred, so no seq is ever above this (office/storage/intake.py).
MAX_SEQ = 20_000
_PLAYER_EVENTS = frozenset({EventKind.GOAL.value, EventKind.PENALTY.value,
                            EventKind.SHOT.value, EventKind.CANCELLED.value,
                            EventKind.CORRECTED.value})


# -- the messages' keys, each spelled once: the builders and the checkers below both use these


class Ev:
    """The keys of an ``events`` message."""

    EVENT_ID = "event_id"
    MATCH = "match"
    SEQ = "seq"
    TYPE = "type"
    DATA = "data"
    AT_NS = "at_ns"  # the hall's monotonic time of the press
    WALL = "wall"
    WALL_SYNCED = "wall_synced"
    BOOT = "boot"


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


class St:
    """The keys of a ``standings`` document, of a table and of its rows (with ``FIGURES``)."""

    GROUP = "group"
    CATEGORY = "category"  # optional: in an event of several categories
    TOURNAMENT = "tournament"
    NAME = "name"
    PROVISIONAL = "provisional"
    COMPLETE = "complete"
    ROWS = "rows"
    TEAM = "team"
    RANK = "rank"
    PENALTY_MINUTES = "penalty_minutes"
    DECIDED_BY = "decided_by"
    LOTS_NEEDED = "lots_needed"


class Ak:
    """The keys of an ``acks`` document."""

    MATCHES = "matches"  # match id -> the highest seq stored with none missing below it


class WireError(ValueError):
    """A message that cannot be used; ``str()`` is ``"<topic>: <reason>"``."""

    def __init__(self, topic: str, reason: str) -> None:
        super().__init__(f"{topic}: {reason}")
        self.topic = topic
        self.reason = reason


def _refuse(topic: str, reason: str) -> NoReturn:
    raise WireError(topic, reason)


# -- Topics ------------------------------------------------------------------------------------


def check_name(kind: str, value: str) -> str:
    """A tournament, hall, group or match id: one topic level (and part of an event_id)."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ValueError(f"{kind} {value!r}: use 1-64 letters, digits, '_', '.', '-'")
    return value


def check_hall(hall: str) -> str:
    """A hall id: a name, and not a level the tournament's tree uses for itself."""
    check_name("hall", hall)
    if hall == STANDINGS:  # its topics would be read as the office's tables
        raise ValueError(f"hall {hall!r}: that level is the office's tables; name it otherwise")
    return hall


def tournament_root(tournament: str) -> str:
    """``arena/v1/<tournament>``: every topic of one tournament is below it."""
    return f"{ROOT}/{VERSION}/{check_name('tournament', tournament)}"


def hall_topic(tournament: str, hall: str, kind: str) -> str:
    """``arena/v1/<tournament>/<hall>/<kind>``."""
    if kind not in HALL_KINDS:
        raise ValueError(f"hall topic kind {kind!r}: one of {', '.join(HALL_KINDS)}")
    return f"{tournament_root(tournament)}/{check_hall(hall)}/{kind}"


def standings_topic(tournament: str, group: str, category: str | None = None) -> str:
    """``arena/v1/<tournament>/standings/<group>``; in an event of several categories
    ``.../standings/<category>/<group>`` (group names are unique only within a category)."""
    level = check_name("group", group)
    if category is not None:
        level = f"{check_name('category', category)}/{level}"
    return f"{tournament_root(tournament)}/{STANDINGS}/{level}"


def standings_filter(tournament: str) -> str:
    """The subscription to every group's table, of every category:
    ``arena/v1/<tournament>/standings/#``."""
    return f"{tournament_root(tournament)}/{STANDINGS}/#"


@dataclass(frozen=True, slots=True)
class HallTopics:
    """Every topic one hall uses."""

    events: str
    state: str
    status: str
    next: str
    standings: str  # the filter: every group's table
    acks: str


def hall_topics(tournament: str, hall: str) -> HallTopics:
    return HallTopics(events=hall_topic(tournament, hall, EVENTS),
                      state=hall_topic(tournament, hall, STATE),
                      status=hall_topic(tournament, hall, STATUS),
                      next=hall_topic(tournament, hall, NEXT),
                      standings=standings_filter(tournament),
                      acks=hall_topic(tournament, hall, ACKS))


def hall_subscriptions(topics: HallTopics) -> list[tuple[str, int]]:
    """What a hall reads, with QoS 1: all are retained documents from the office."""
    return [(topics.next, _QOS[NEXT]), (topics.standings, _QOS[STANDINGS]),
            (topics.acks, _QOS[ACKS])]


def office_subscriptions(tournament: str) -> list[tuple[str, int]]:
    """What the office reads of every hall. Events QoS 1 (stored, then acked); state QoS 0
    (replaced within seconds anyway); status QoS 1 (rare, and a lost ``offline`` would leave
    a hall shown online)."""
    root = tournament_root(tournament)
    return [(f"{root}/+/{kind}", _QOS[kind]) for kind in FROM_HALL]


def office_topic(tournament: str, topic: str) -> str:
    """A full topic from one relative to the tournament (``standings/A``, ``hall-1/next``);
    a full one is kept."""
    if topic.startswith(f"{ROOT}/"):
        return topic
    return f"{tournament_root(tournament)}/{topic}"


@dataclass(frozen=True, slots=True)
class Route:
    """What a topic of one tournament is: a hall's ``kind``, or a group's table."""

    kind: str  # one of HALL_KINDS, or STANDINGS
    hall: str | None = None
    group: str | None = None
    category: str | None = None  # STANDINGS of an event of several categories


def route(topic: str, tournament: str) -> Route | None:
    """Where ``topic`` belongs in ``tournament``'s tree; None for anything else (another
    tournament or version, an unknown kind, a level too many)."""
    parts = topic.split("/")
    if len(parts) == 6 and parts[:4] == [ROOT, VERSION, tournament, STANDINGS]:
        category, group = parts[4], parts[5]
        if not (_NAME.fullmatch(category) and _NAME.fullmatch(group)):
            return None
        return Route(STANDINGS, group=group, category=category)
    if len(parts) != 5 or parts[:3] != [ROOT, VERSION, tournament]:
        return None
    name, kind = parts[3], parts[4]
    if not _NAME.fullmatch(kind):
        return None
    if name == STANDINGS:
        return Route(STANDINGS, group=kind)
    if not _NAME.fullmatch(name) or kind not in HALL_KINDS:
        return None
    return Route(kind, hall=name)


def hall_of(topic: str, kind: str, tournament: str) -> str:
    """The hall of a topic that must be a hall's ``kind`` in ``tournament``."""
    found = route(topic, tournament)
    if found is None or found.kind != kind or found.hall is None:
        _refuse(topic, f"not a topic of the form {ROOT}/{VERSION}/{tournament}/<hall>/{kind}")
    return found.hall


# -- Payload helpers ---------------------------------------------------------------------------


def encode(doc: Mapping[str, Any]) -> bytes:
    """The one JSON encoding of every document we publish: compact, keys sorted (equal
    documents give equal bytes, so an unchanged retained document is not sent again)."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=True, allow_nan=False,
                      ensure_ascii=False).encode("utf-8")


def _object(topic: str, payload: bytes) -> dict[str, Any]:
    try:
        return expect_object(loads(payload, topic))
    except JsonError as err:
        _refuse(topic, err.problem)


def _show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _get(topic: str, doc: Mapping[str, Any], name: str, kind: type[Any], wanted: str, *,
         where: str = "") -> Any:
    if name not in doc:
        _refuse(topic, f"'{where}{name}' is missing")
    value = doc[name]
    # bool is a subclass of int in Python, but `true` is not a number here
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        _refuse(topic, f"'{where}{name}' must be {wanted}, got {kind_of(value)} {_show(value)}")
    return value


def _int(topic: str, doc: Mapping[str, Any], name: str, minimum: int, *, where: str = "",
         maximum: int = _INT64 - 1) -> int:
    value: int = _get(topic, doc, name, int, "an integer", where=where)
    if not minimum <= value <= maximum:
        if maximum >= _INT64 - 1:
            _refuse(topic, f"'{where}{name}' must be an integer from {minimum} up, got "
                           f"{_show(value)}")
        _refuse(topic, f"'{where}{name}' must be an integer from {minimum} to {maximum}, got "
                       f"{_show(value)}")
    return value


def _opt_str(topic: str, doc: Mapping[str, Any], name: str, *, where: str = "") -> str | None:
    value = doc.get(name)
    if value is not None and not isinstance(value, str):
        _refuse(topic, f"'{where}{name}' must be a string or null, got {kind_of(value)}")
    return value


def _bool(topic: str, doc: Mapping[str, Any], name: str, default: bool, *,
          where: str = "") -> bool:
    value = doc.get(name, default)
    if not isinstance(value, bool):
        _refuse(topic, f"'{where}{name}' must be true or false, got {kind_of(value)}")
    return value


def _list(topic: str, doc: Mapping[str, Any], name: str, *, where: str = "") -> list[Any]:
    value: list[Any] = _get(topic, doc, name, list, "a list", where=where)
    return value


# -- events ------------------------------------------------------------------------------------


def event_id(hall: str, match: str, seq: int) -> str:
    """``<hall>:<match>:<seq>``: what consumers de-duplicate by (names have no ':')."""
    return f"{hall}:{match}:{seq}"


@dataclass(frozen=True)
class HallEvent:
    """One checked ``events`` message."""

    event_id: str  # "<hall>:<match>:<seq>"
    hall: str
    match: str
    seq: int  # gapless per match, from 1
    type: str  # an EventKind value
    data: Mapping[str, Any]
    at_ns: int  # the hall's monotonic time of the press
    wall: str | None  # the hall's wall time, when its clock was synchronised


def event_document(hall: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """An ``events`` message as a document, from a journal event record.

    ``wall`` is present in a record only when the recorder was given a wall clock, which the
    shell does only once the system clock is synchronised (a Pi without RTC boots in 1970).
    """
    wall = record.get("wall")
    return {
        Ev.EVENT_ID: event_id(hall, str(record["match"]), int(record["seq"])),
        Ev.MATCH: record["match"],
        Ev.SEQ: record["seq"],
        Ev.TYPE: record["event"],
        Ev.DATA: record.get("data", {}),
        Ev.AT_NS: record["at"],
        Ev.WALL: wall,
        Ev.WALL_SYNCED: wall is not None,
        Ev.BOOT: record.get("boot"),
    }


def build_event(hall: str, record: Mapping[str, Any]) -> bytes:
    return json.dumps(event_document(hall, record), separators=(",", ":")).encode("utf-8")


def check_event(topic: str, payload: bytes, tournament: str) -> HallEvent:
    """An ``events`` message, checked against its topic and the schema (not the schedule:
    that is the office's)."""
    hall = hall_of(topic, EVENTS, tournament)
    doc = _object(topic, payload)
    eid = _get(topic, doc, Ev.EVENT_ID, str, "a string")
    match_id = _get(topic, doc, Ev.MATCH, str, "a string")
    seq = _int(topic, doc, Ev.SEQ, minimum=1)
    kind = _get(topic, doc, Ev.TYPE, str, "a string")
    if kind not in _EVENT_TYPES:
        _refuse(topic, f"'{Ev.TYPE}' {kind!r} is not a known event type")
    data = _get(topic, doc, Ev.DATA, dict, "an object")
    at_ns = _int(topic, doc, Ev.AT_NS, minimum=0)
    if Ev.WALL not in doc:
        _refuse(topic, f"'{Ev.WALL}' is missing")
    wall = _opt_str(topic, doc, Ev.WALL)
    if wall is not None and len(wall) > MAX_TEXT:
        _refuse(topic, f"'{Ev.WALL}' is {len(wall)} characters, more than {MAX_TEXT}")
    expected = event_id(hall, match_id, seq)
    if eid != expected:
        _refuse(topic, f"'{Ev.EVENT_ID}' {eid!r} does not match topic and fields "
                       f"(expected {expected!r})")
    if kind == EventKind.MATCH_ENDED.value:
        _check_match_ended(topic, data)
    _check_data(topic, kind, data)
    return HallEvent(event_id=eid, hall=hall, match=match_id, seq=seq, type=kind, data=data,
                     at_ns=at_ns, wall=wall)


def _check_match_ended(topic: str, data: Mapping[str, Any]) -> None:
    """The last event of a match carries its result and whole record
    (``arena.core.match.match_record``): the office ranks and suspends from it alone,
    so every field of it is checked here, type and range."""
    _result(topic, _get(topic, data, "result", dict, "an object", where="data."),
            "data.result.")
    where = "data.record."
    record = _get(topic, data, "record", dict, "an object", where="data.")
    _text(topic, record, "match", where=where)
    _text(topic, record, "preset", where=where)
    _choice(topic, record, "stage", _STAGES, where=where)
    teams = _get(topic, record, "teams", dict, "an object", where=where)
    for side in _SIDES:
        _text(topic, teams, side, where=where + "teams.", nonempty=True)
    if record.get("result") is not None:
        _result(topic, _get(topic, record, "result", dict, "an object", where=where),
                where + "result.")
    score = _get(topic, record, "score", dict, "an object", where=where)
    for side in _SIDES:
        _int(topic, score, side, 0, where=where + "score.", maximum=MAX_GOALS)
    goals = _items(topic, record, "goals", where)
    for i, goal in enumerate(goals):
        at = f"{where}goals[{i}]."
        _side(topic, goal, "team", where=at)
        if goal.get("player") is not None:  # a goal may be the team's, no scorer named
            _int(topic, goal, "player", 0, where=at, maximum=MAX_PLAYER)
        _int(topic, goal, "period", 0, where=at, maximum=MAX_PERIOD)
        _int(topic, goal, "clock_ms", 0, where=at, maximum=MAX_CLOCK_MS)
    for i, penalty in enumerate(_items(topic, record, "penalties", where)):
        at = f"{where}penalties[{i}]."
        _side(topic, penalty, "team", where=at)
        _int(topic, penalty, "player", 0, where=at, maximum=MAX_PLAYER)
        _text(topic, penalty, "kind", where=at, nonempty=True)
        _int(topic, penalty, "minutes", 0, where=at, maximum=MAX_MINUTES)
        for name in ("period", "clock_ms", "coincidental", "ejected"):
            if name in penalty:  # older halls sent only team, player, kind and minutes
                if name in ("coincidental", "ejected"):
                    _bool(topic, penalty, name, False, where=at)
                else:
                    _int(topic, penalty, name, 0, where=at,
                         maximum=MAX_PERIOD if name == "period" else MAX_CLOCK_MS)
    if "penalty_minutes" in record:
        pim = _get(topic, record, "penalty_minutes", dict, "an object", where=where)
        for side in _SIDES:
            if side in pim:
                _int(topic, pim, side, 0, where=where + "penalty_minutes.",
                     maximum=MAX_GOALS * MAX_MINUTES)
    forfeit = record.get("forfeit")
    if forfeit is not None and forfeit not in _SIDES:
        _refuse(topic, f"'{where}forfeit' must be 'home', 'away' or null, got {_show(forfeit)}")
    shootout = record.get("shootout")
    if shootout is not None:
        if not isinstance(shootout, dict):
            _refuse(topic, f"'{where}shootout' must be an object or null, got "
                           f"{kind_of(shootout)}")
        for i, shot in enumerate(_items(topic, shootout, "shots", where + "shootout.")):
            at = f"{where}shootout.shots[{i}]."
            _side(topic, shot, "team", where=at)
            _shooter(topic, shot, at)
            _bool(topic, shot, "scored", False, where=at)
        # Rules 000: the decisive goal is credited to the player who took the shot.
        decisive = shootout.get("decisive")
        if decisive is not None:
            at = f"{where}shootout.decisive."
            if not isinstance(decisive, dict):
                _refuse(topic, f"'{at[:-1]}' must be an object or null, got {kind_of(decisive)}")
            _side(topic, decisive, "team", where=at)
            _shooter(topic, decisive, at)


def _shooter(topic: str, shot: Mapping[str, Any], where: str) -> None:
    """A shot's ``player``: a number, or null when the console keyed the shot without one
    (as a goal's scorer may be); never missing."""
    if "player" not in shot:
        _refuse(topic, f"'{where}player' is missing (null when the shooter was not keyed)")
    if shot["player"] is not None:
        _int(topic, shot, "player", 0, where=where, maximum=MAX_PLAYER)


def _result(topic: str, result: Mapping[str, Any], where: str) -> None:
    _int(topic, result, "home", 0, where=where, maximum=MAX_GOALS)
    _int(topic, result, "away", 0, where=where, maximum=MAX_GOALS)
    decided_by = _get(topic, result, "decided_by", str, "a string", where=where)
    if decided_by not in _DECIDED_BY:
        _refuse(topic, f"'{where}decided_by' must be one of {', '.join(_DECIDED_BY)}, "
                       f"got {_show(decided_by)}")


def _items(topic: str, doc: Mapping[str, Any], name: str, where: str) -> list[dict[str, Any]]:
    """A list of objects (goals, penalties, shots), at most ``MAX_ITEMS`` of them."""
    items = _list(topic, doc, name, where=where)
    if len(items) > MAX_ITEMS:
        _refuse(topic, f"'{where}{name}' has {len(items)} items, more than {MAX_ITEMS}")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            _refuse(topic, f"'{where}{name}[{i}]' must be an object, got {kind_of(item)}")
    return items


def _side(topic: str, doc: Mapping[str, Any], name: str, *, where: str) -> str:
    value: str = _get(topic, doc, name, str, "'home' or 'away'", where=where)
    if value not in _SIDES:
        _refuse(topic, f"'{where}{name}' must be 'home' or 'away', got {_show(value)}")
    return value


def _text(topic: str, doc: Mapping[str, Any], name: str, *, where: str = "",
          nonempty: bool = False) -> str:
    value: str = _get(topic, doc, name, str, "a string", where=where)
    if len(value) > MAX_TEXT:
        _refuse(topic, f"'{where}{name}' is {len(value)} characters, more than {MAX_TEXT}")
    if nonempty and not value.strip():
        _refuse(topic, f"'{where}{name}' must not be empty")
    if not value.isprintable():
        _refuse(topic, f"'{where}{name}' contains a control character")
    return value


def _choice(topic: str, doc: Mapping[str, Any], name: str, allowed: tuple[str, ...], *,
            where: str) -> None:
    value = _text(topic, doc, name, where=where)
    if value not in allowed:
        _refuse(topic, f"'{where}{name}' must be one of {', '.join(allowed)}, got {_show(value)}")


def _check_data(topic: str, kind: str, data: Mapping[str, Any]) -> None:
    """Any event's data: no number beyond ``MAX_NUMBER``, no string longer than ``MAX_TEXT``
    (anywhere, however nested), and the fields the office reads of it in range: a live
    ``score``, a ``team`` side and a ``player`` number."""
    if "score" in data and kind != EventKind.MATCH_ENDED.value:
        score = _get(topic, data, "score", dict, "an object", where="data.")
        for side in _SIDES:
            _int(topic, score, side, 0, where="data.score.", maximum=MAX_GOALS)
    if kind in _PLAYER_EVENTS:
        _side(topic, data, "team", where="data.")
        if data.get("player") is not None:
            _int(topic, data, "player", 0, where="data.", maximum=MAX_PLAYER)
    if kind in (EventKind.UNDONE.value, EventKind.CANCELLED.value) and "phase" in data:
        _text(topic, data, "phase", where="data.")
    todo: list[tuple[Any, str]] = [(data, "data")]
    while todo:
        value, where = todo.pop()
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            if not -MAX_NUMBER <= value <= MAX_NUMBER:
                _refuse(topic, f"'{where}' is {_show(value)}, beyond +-{MAX_NUMBER}")
        elif isinstance(value, str):
            if len(value) > MAX_TEXT:
                _refuse(topic, f"'{where}' is {len(value)} characters, more than {MAX_TEXT}")
        elif isinstance(value, dict):
            todo.extend((v, f"{where}.{k}") for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((v, f"{where}[{i}]") for i, v in enumerate(value))


# -- state -------------------------------------------------------------------------------------


def build_state(doc: Mapping[str, Any]) -> bytes:
    """The retained ``state``: the state document (docs/developer.md 4.3, built by the core)."""
    return encode(doc)


def check_state(topic: str, payload: bytes, tournament: str) -> tuple[str, dict[str, Any]]:
    """``(hall, document)`` of a retained state, loosely checked: it is only shown.

    An empty payload (the retained state was cleared) gives an empty document: no state.
    """
    hall = hall_of(topic, STATE, tournament)
    if not payload:
        return hall, {}
    doc = _object(topic, payload)
    _opt_str(topic, doc, Ev.MATCH)  # the state document's match id, as an event's
    return hall, doc


# -- acks --------------------------------------------------------------------------------------


def build_acks(matches: Mapping[str, int]) -> bytes:
    """The retained ``acks`` of one hall: per match, the highest ``seq`` the office has
    stored with every lower one stored too. A match of the hall's that is absent has nothing
    stored: the document is the office's whole word on the hall, so a hall re-sends what it
    lacks even after the office lost it (restored from an older backup)."""
    return encode({Ak.MATCHES: {check_name("match", m): int(n) for m, n in matches.items()}})


def check_acks(topic: str, payload: bytes, tournament: str) -> tuple[str, dict[str, int]]:
    """``(hall, {match: highest gapless seq stored})``. An empty payload (the retained acks
    were cleared) is the office having stored nothing of the hall's."""
    hall = hall_of(topic, ACKS, tournament)
    if not payload:
        return hall, {}
    doc = _object(topic, payload)
    matches = _get(topic, doc, Ak.MATCHES, dict, "an object")
    out: dict[str, int] = {}
    for match in matches:
        if not _NAME.fullmatch(match):
            _refuse(topic, f"'{Ak.MATCHES}' key {_show(match)} is not a match id")
        out[match] = _int(topic, matches, match, 0, where=f"{Ak.MATCHES}.")
    return hall, out


# -- status ------------------------------------------------------------------------------------


def build_status(online: bool) -> bytes:
    """The retained ``status``; ``offline`` is also the hall's last will."""
    return ONLINE if online else OFFLINE


def check_status(topic: str, payload: bytes, tournament: str) -> tuple[str, bool]:
    """``(hall, online)``. An empty payload (the retained status was cleared) is offline."""
    hall = hall_of(topic, STATUS, tournament)
    if len(payload) > MAX_PAYLOAD:
        _refuse(topic, f"{len(payload)} bytes, over the {MAX_PAYLOAD}-byte limit")
    if payload in (OFFLINE, b""):
        return hall, False
    if payload == ONLINE:
        return hall, True
    _refuse(topic, f"status must be 'online' or 'offline', got {payload[:40]!r}")


# -- next --------------------------------------------------------------------------------------


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
                   for side, t in zip(_SIDES, (n.home, n.away), strict=True)},
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
    doc = _object(topic, payload)
    match = doc.get(Nx.MATCH)
    if not isinstance(match, str) or not _NAME.fullmatch(match):
        _refuse(topic, f"'{Nx.MATCH}' must be a match id (1-64 of A-Z a-z 0-9 _ . -), got "
                       f"{_show(match)}")
    preset = _get(topic, doc, Nx.PRESET, str, "a preset name")
    if presets is not None and preset not in presets:
        _refuse(topic, f"'{Nx.PRESET}' {preset!r} is not a known preset")
    stage = doc.get(Nx.STAGE, _STAGES[0])
    if stage not in _STAGES:
        _refuse(topic, f"'{Nx.STAGE}' must be 'group' or 'playoff', got {_show(stage)}")
    teams = doc.get(Nx.TEAMS)
    if not isinstance(teams, dict):
        _refuse(topic, f"'{Nx.TEAMS}' must be an object with 'home' and 'away', got "
                       f"{kind_of(teams)}")
    sides = [_team(topic, teams.get(side), side) for side in _SIDES]
    ignored: list[str] = []
    for i, side in enumerate(_SIDES):
        roster = teams[side].get(Nx.ROSTER)
        if roster is None:
            continue
        try:
            sides[i] = replace(sides[i], roster=check_roster(roster))
        except ValueError as err:
            ignored.append(f"'{Nx.TEAMS}.{side}.{Nx.ROSTER}' {err}: left out")
    suspended = doc.get(Nx.SUSPENDED, [])
    if not isinstance(suspended, list):
        _refuse(topic, f"'{Nx.SUSPENDED}' must be a list, got {kind_of(suspended)}")
    banned = tuple(_suspended(topic, s, i) for i, s in enumerate(suspended))
    waiting = doc.get(Nx.WAITING, False)
    if not isinstance(waiting, bool):
        _refuse(topic, f"'{Nx.WAITING}' must be true or false, got {_show(waiting)}")
    unknown = [t.name for t in sides if t.placeholder]
    if unknown and not waiting:
        # A hall must never be handed placeholder teams as a match it may load.
        _refuse(topic, f"'{Nx.WAITING}' must be true when a team is a placeholder "
                       f"({', '.join(unknown)})")
    public_url: str | None = None
    if doc.get(Nx.PUBLIC_URL) is not None:
        try:
            public_url = check_public_url(doc[Nx.PUBLIC_URL])
        except ValueError as err:
            ignored.append(f"'{Nx.PUBLIC_URL}' {err}: left out")
    return Next(match=match, preset=preset, stage=stage, home=sides[0], away=sides[1],
                scheduled=_opt_str(topic, doc, Nx.SCHEDULED),
                label=_opt_str(topic, doc, Nx.LABEL), suspended=banned,
                category=_opt_category(topic, doc, Nx.CATEGORY), waiting=waiting,
                replay_above=_replay(topic, doc), public_url=public_url,
                ignored=tuple(ignored))


def _replay(topic: str, doc: Mapping[str, Any]) -> int | None:
    """The optional ``replay``: absent or null, else ``{"above_seq": 1..MAX_SEQ}``."""
    value = doc.get(Nx.REPLAY)
    if value is None:
        return None
    if not isinstance(value, dict):
        _refuse(topic, f"'{Nx.REPLAY}' must be an object with '{Nx.ABOVE_SEQ}', got "
                       f"{kind_of(value)} {_show(value)}")
    return _int(topic, value, Nx.ABOVE_SEQ, 1, where=f"{Nx.REPLAY}.", maximum=MAX_SEQ)


# What the hall display's QR code holds (display/qr.py: byte mode, version 10, level M), and
# the characters of an address a spectator can still read under it.
PUBLIC_URL_CHARS = 200
PUBLIC_URL_BYTES = 213


def check_public_url(url: object) -> str:
    """The public site's address as a phone opens it from the hall's QR code: an
    ``http://`` or ``https://`` address with a host, no spaces, short enough for the code.
    Raises ValueError saying what is wrong (the caller names where it came from): the
    hall's ``[display] public_url``, ``office serve --public-url`` and ``next`` all use it."""
    if not isinstance(url, str) or not url:
        raise ValueError(f"must be a non-empty string, got {kind_of(url)}")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(f"must have no spaces or control characters, got {url[:60]!r}")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # a malformed port or IPv6 host
        host = None
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        raise ValueError(f"must be an http:// or https:// address, got {url[:60]!r}")
    if len(url) > PUBLIC_URL_CHARS or len(url.encode("utf-8")) > PUBLIC_URL_BYTES:
        raise ValueError(f"must be at most {PUBLIC_URL_CHARS} characters ({PUBLIC_URL_BYTES} "
                         f"bytes of UTF-8: what a QR code on the screen holds), got {len(url)}")
    return url


# A roster's limits: the numbers a console takes (0..MAX_PLAYER, so at most one name each)
# and a name that fits the scorer's line of the hall display (the longest of a real squad is
# about 30 characters: more is a paste of something else).
ROSTER_NAME_CHARS = 40
_ROSTER_NUMBER = re.compile(r"0|[1-9][0-9]?")  # as JSON object keys: "7", never "07"


def roster_document(roster: tuple[tuple[int, str], ...]) -> dict[str, str]:
    """A roster as its JSON object, keyed by the shirt number's digits."""
    return {str(number): name for number, name in roster}


def check_roster(value: object) -> tuple[tuple[int, str], ...]:
    """A team's ``roster`` in a ``next``: ``{"7": "A. Player", ...}``, numbers 0 to
    ``MAX_PLAYER``. Raises ValueError saying what is wrong (the caller names where)."""
    if not isinstance(value, dict):
        raise ValueError(f"must be an object of number: name, got {kind_of(value)}")
    if len(value) > MAX_PLAYER + 1:
        raise ValueError(f"has {len(value)} players, more than the {MAX_PLAYER + 1} "
                         f"numbers 0-{MAX_PLAYER}")
    out: list[tuple[int, str]] = []
    for key, name in value.items():
        if not isinstance(key, str) or not _ROSTER_NUMBER.fullmatch(key):
            raise ValueError(f"key {_show(key)} is not a shirt number (0-{MAX_PLAYER})")
        try:
            out.append((int(key), check_roster_name(name)))
        except ValueError as err:
            raise ValueError(f"{key}: {err}") from None
    return tuple(sorted(out))


def check_roster_name(name: object) -> str:
    """A player's name as a roster gives it: printable text, not blank, at most
    ``ROSTER_NAME_CHARS``. Raises ValueError; the tournament file's reader uses it too, so
    the office never sends a name a hall would leave out."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"must be the player's name, got {_show(name)}")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise ValueError(f"must have no control characters, got {_show(name)}")
    if len(name) > ROSTER_NAME_CHARS:
        raise ValueError(f"must be at most {ROSTER_NAME_CHARS} characters, got {len(name)}")
    return name


def _opt_category(topic: str, doc: Mapping[str, Any], key: str) -> str | None:
    """An optional category: absent or null, else a name (it is a topic level)."""
    value = doc.get(key)
    if value is not None and (not isinstance(value, str) or not _NAME.fullmatch(value)):
        _refuse(topic, f"'{key}' must be a category name (1-64 of A-Z a-z 0-9 _ . -), got "
                       f"{_show(value)}")
    return value


def _team(topic: str, value: Any, side: str) -> Team:
    where = f"{Nx.TEAMS}.{side}"
    if not isinstance(value, dict):
        _refuse(topic, f"'{where}' must be an object with '{Nx.NAME}' and '{Nx.COLOURS}', got "
                       f"{kind_of(value)}")
    name = value.get(Nx.NAME)
    if not isinstance(name, str) or not name.strip():
        _refuse(topic, f"'{where}.{Nx.NAME}' must be a non-empty string, got {_show(name)}")
    colours = value.get(Nx.COLOURS)
    if not isinstance(colours, list) or len(colours) != 2 or not all(
            isinstance(c, str) and _COLOUR.fullmatch(c) for c in colours):
        _refuse(topic, f"'{where}.{Nx.COLOURS}' must be two '#rrggbb' strings, got "
                       f"{_show(colours)}")
    placeholder = value.get(Nx.PLACEHOLDER, False)
    if not isinstance(placeholder, bool):
        _refuse(topic, f"'{where}.{Nx.PLACEHOLDER}' must be true or false, got "
                       f"{_show(placeholder)}")
    return Team(name, (colours[0], colours[1]), placeholder)


def _suspended(topic: str, value: Any, i: int) -> Suspended:
    if not isinstance(value, dict) or value.get(Nx.TEAM) not in _SIDES \
            or not isinstance(value.get(Nx.PLAYER), int) \
            or isinstance(value.get(Nx.PLAYER), bool):
        _refuse(topic, f"'{Nx.SUSPENDED}' item {i} must be {{'{Nx.TEAM}': 'home'|'away', "
                       f"'{Nx.PLAYER}': int}}, got {_show(value)}")
    return Suspended(value[Nx.TEAM], value[Nx.PLAYER])


# -- standings ---------------------------------------------------------------------------------

# The figures of a table row, in the order a table shows them: what the hall's display
# reads between games, and what every row must carry.
FIGURES = ("played", "won", "drawn", "lost", "goals_for", "goals_against", "points")


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a group table."""

    team: str
    played: int
    won: int
    drawn: int
    lost: int
    goals_for: int
    goals_against: int
    points: int
    rank: int | None = None
    penalty_minutes: int | None = None
    decided_by: str | None = None  # the criterion that placed it above the next row
    lots_needed: bool = False

    def figures(self) -> dict[str, int]:
        return {k: int(getattr(self, k)) for k in FIGURES}

    @classmethod
    def of(cls, team: str, figures: Mapping[str, int]) -> Row:
        """A row from a team and its figures (every one of ``FIGURES``)."""
        return cls(team, figures["played"], figures["won"], figures["drawn"], figures["lost"],
                   figures["goals_for"], figures["goals_against"], figures["points"])


@dataclass(frozen=True, slots=True)
class Standings:
    """The retained ``standings/<group>``: one group's table as the office ranks it."""

    group: str
    rows: tuple[Row, ...]
    tournament: str | None = None
    provisional: bool = False  # counts a result not yet confirmed
    complete: bool = False  # every group match has a result
    category: str | None = None  # in an event of several categories (its topic level)


def row_document(row: Row) -> dict[str, Any]:
    """A row as JSON (also the office page's and ``office standings --json``'s rows)."""
    return {St.RANK: row.rank, St.TEAM: row.team, **row.figures(),
            St.PENALTY_MINUTES: row.penalty_minutes, St.DECIDED_BY: row.decided_by,
            St.LOTS_NEEDED: row.lots_needed}


def table_document(group: str, rows: tuple[Row, ...], provisional: bool, complete: bool
                   ) -> dict[str, Any]:
    """A group table as JSON, without the tournament (the page and the CLI show it so)."""
    return {St.NAME: group, St.PROVISIONAL: provisional, St.COMPLETE: complete,
            St.ROWS: [row_document(r) for r in rows]}


def standings_document(s: Standings) -> dict[str, Any]:
    doc = {St.GROUP: s.group, St.TOURNAMENT: s.tournament,
           **table_document(s.group, s.rows, s.provisional, s.complete)}
    if s.category is not None:  # absent for one category: its documents stay as they were
        doc[St.CATEGORY] = s.category
    return doc


def build_standings(s: Standings) -> bytes:
    return encode(standings_document(s))


def between_table(s: Standings) -> dict[str, Any]:
    """The part of a table the hall's display shows between games (``display.document``'s
    ``tables[]`` entry): the group and each row's team and figures."""
    return {St.GROUP: s.group, St.ROWS: [{St.TEAM: r.team, **r.figures()} for r in s.rows]}


def check_standings(topic: str, payload: bytes, tournament: str | None = None) -> Standings:
    """A retained ``standings/<group>``; the group must be the topic's (when ``tournament``
    is given, the topic is checked too)."""
    if tournament is not None:
        found = route(topic, tournament)
        if found is None or found.kind != STANDINGS:
            _refuse(topic, f"not a topic of the form {ROOT}/{VERSION}/{tournament}/"
                           f"{STANDINGS}/<group> (or {STANDINGS}/<category>/<group>)")
    doc = _object(topic, payload)
    group = _get(topic, doc, St.GROUP, str, "a group name")
    category = _opt_category(topic, doc, St.CATEGORY)
    levels = topic.split(f"/{STANDINGS}/", 1)[1].split("/") if f"/{STANDINGS}/" in topic \
        else None
    if levels is not None and group != levels[-1]:
        _refuse(topic, f"'{St.GROUP}' {group!r} is not the topic's group {levels[-1]!r}")
    if levels is not None and category != (levels[0] if len(levels) == 2 else None):
        want = repr(levels[0]) if len(levels) == 2 else "none"
        _refuse(topic, f"'{St.CATEGORY}' {category!r} is not the topic's category ({want})")
    rows = tuple(_row(topic, raw, i) for i, raw in enumerate(_list(topic, doc, St.ROWS)))
    return Standings(group=group, rows=rows, tournament=_opt_str(topic, doc, St.TOURNAMENT),
                     provisional=_bool(topic, doc, St.PROVISIONAL, False),
                     complete=_bool(topic, doc, St.COMPLETE, False), category=category)


def _row(topic: str, raw: Any, i: int) -> Row:
    where = f"{St.ROWS}[{i}]."
    if not isinstance(raw, dict):
        _refuse(topic, f"'{St.ROWS}[{i}]' must be an object, got {kind_of(raw)}")
    team = _get(topic, raw, St.TEAM, str, "a team name", where=where)
    # Points may go below zero where a preset deducts them (a forfeit, say); counts may not.
    figures = {k: _int(topic, raw, k, -_INT64 if k == "points" else 0, where=where)
               for k in FIGURES}
    rank = raw.get(St.RANK)
    pim = raw.get(St.PENALTY_MINUTES)
    for name, value in ((St.RANK, rank), (St.PENALTY_MINUTES, pim)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            _refuse(topic, f"'{where}{name}' must be an integer or null, got {kind_of(value)}")
    return Row(team=team, **figures, rank=rank, penalty_minutes=pim,
               decided_by=_opt_str(topic, raw, St.DECIDED_BY, where=where),
               lots_needed=_bool(topic, raw, St.LOTS_NEEDED, False, where=where))
