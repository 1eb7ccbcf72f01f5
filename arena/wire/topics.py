"""The topic tree (docs/developer.md 4.4): ``arena/v1/<tournament>/<hall>/<kind>`` for a hall's five
topics, ``arena/v1/<tournament>/standings/[<category>/]<group>`` for the office's tables.

The version is in the topic (``VERSION``): a change that old readers cannot ignore gets a
new version, a new tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .fields import refuse
from .limits import LIMITS

ROOT = "arena"
VERSION = "v1"

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
MIRROR_PREFIX = "mirror-"  # a second board's broker user: mirror-<hall> (never a hall id)
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
              "per match the highest seq stored with none missing below: the proof of "
              "delivery (cannot_store_since, refused)"),
    TopicRule(STANDINGS, "standings/<group>, standings/<category>/<group>", "office", True, 1,
              "one group's table as the office ranks it"),
)
_QOS = {rule.kind: rule.qos for rule in TOPICS}


def check_name(kind: str, value: str) -> str:
    """A tournament, hall, group or match id: one topic level (and part of an event_id)."""
    if not isinstance(value, str) or not LIMITS.is_name(value):
        raise ValueError(f"{kind} {value!r}: use 1-{LIMITS.name_chars} letters, digits, "
                         "'_', '.', '-'")
    return value


def check_hall(hall: str) -> str:
    """A hall id: a name, and not a level the tournament's tree uses for itself."""
    check_name("hall", hall)
    if hall == STANDINGS:  # its topics would be read as the office's tables
        raise ValueError(f"hall {hall!r}: that level is the office's tables; name it otherwise")
    if hall.startswith(MIRROR_PREFIX):
        # The broker's user of a second board of another hall (systemd/mosquitto/arena.acl):
        # a hall of that name would share a login with it.
        raise ValueError(f"hall {hall!r}: ids beginning with {MIRROR_PREFIX!r} are the "
                         "broker users of second boards; name it otherwise")
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
        if not (LIMITS.is_name(category) and LIMITS.is_name(group)):
            return None
        return Route(STANDINGS, group=group, category=category)
    if len(parts) != 5 or parts[:3] != [ROOT, VERSION, tournament]:
        return None
    name, kind = parts[3], parts[4]
    if not LIMITS.is_name(kind):
        return None
    if name == STANDINGS:
        return Route(STANDINGS, group=kind)
    if not LIMITS.is_name(name) or kind not in HALL_KINDS:
        return None
    return Route(kind, hall=name)


def hall_of(topic: str, kind: str, tournament: str) -> str:
    """The hall of a topic that must be a hall's ``kind`` in ``tournament``."""
    found = route(topic, tournament)
    if found is None or found.kind != kind or found.hall is None:
        refuse(topic, f"not a topic of the form {ROOT}/{VERSION}/{tournament}/<hall>/{kind}")
    return found.hall
