"""The MQTT contract (docs/developer.md 4.4), declared once: every topic and every payload.

The hall (``mqtt``, ``outbox``), the office (``intake``, ``service``, ``ledger``) and the
display's between-games tables all build and check their messages here, so the wire format
cannot drift between the two ends. Each message has one function that builds its payload
(``build_*``) and one that checks a received one (``check_*``) and raises ``WireError``
naming the topic, the field and what is wrong. Both derive from one declaration of the
message's fields (``schema``), and every limit of a name, number or text is in one table
(``limits.LIMITS``), which the tournament file's reader and the office's intake read too.

This package is the contract's front door: callers use ``from arena import wire`` and the
names below, never its modules, one per message family (topics, events and their data, the
final record, state, status, acks, next, standings).

Compatibility: the version is in the topic (``VERSION``). A payload of a newer minor version
may carry keys this one does not know: they are ignored. A required key that is missing, or
has the wrong type, is refused.

Standard library and the pure core only (no paho): the office's pure parts and the display
import it.
"""

from __future__ import annotations

from .acks import Ak, build_acks, cannot_store_since, check_acks, refused_matches
from .anchor import Anchor, follow, next_change, read_anchor
from .eventdata import DATA
from .events import MESSAGE, Ev, HallEvent, build_event, check_event, event_document, event_id
from .fields import WireError, encode
from .limits import LIMITS, Limits
from .nextdoc import Next, Nx, Suspended, Team, build_next, check_next, next_document
from .record import FINAL, RECORD, Final, Result, final_data
from .roster import (
    PUBLIC_URL_BYTES,
    PUBLIC_URL_CHARS,
    ROSTER_NAME_CHARS,
    check_public_url,
    check_roster,
    check_roster_name,
    roster_document,
)
from .standings import (
    FIGURES,
    Row,
    St,
    Standings,
    between_table,
    build_standings,
    check_standings,
    row_document,
    standings_document,
    table_document,
)
from .state import DOCUMENT, StateDocument, build_state, check_state
from .status import OFFLINE, ONLINE, build_status, check_status
from .topics import (
    ACKS,
    EVENTS,
    FROM_HALL,
    HALL_KINDS,
    NEXT,
    ROOT,
    STANDINGS,
    STATE,
    STATUS,
    TOPICS,
    VERSION,
    HallTopics,
    Route,
    TopicRule,
    check_hall,
    check_name,
    hall_of,
    hall_subscriptions,
    hall_topic,
    hall_topics,
    office_subscriptions,
    office_topic,
    route,
    standings_filter,
    standings_topic,
    tournament_root,
)

# The limits under the names callers have always read (``LIMITS`` is where they are set).
MAX_PAYLOAD = LIMITS.payload_bytes
MAX_GOALS = LIMITS.goals_max
MAX_PLAYER = LIMITS.player_max
MAX_MINUTES = LIMITS.minutes_max
MAX_PERIOD = LIMITS.period_max
MAX_CLOCK_MS = LIMITS.clock_ms_max
MAX_ITEMS = LIMITS.items_max
MAX_TEXT = LIMITS.text_chars
MAX_NUMBER = LIMITS.number_max
MAX_SEQ = LIMITS.seq_max

__all__ = [
    "ACKS",
    "DATA",
    "DOCUMENT",
    "EVENTS",
    "FIGURES",
    "FINAL",
    "FROM_HALL",
    "HALL_KINDS",
    "LIMITS",
    "MAX_CLOCK_MS",
    "MAX_GOALS",
    "MAX_ITEMS",
    "MAX_MINUTES",
    "MAX_NUMBER",
    "MAX_PAYLOAD",
    "MAX_PERIOD",
    "MAX_PLAYER",
    "MAX_SEQ",
    "MAX_TEXT",
    "MESSAGE",
    "NEXT",
    "OFFLINE",
    "ONLINE",
    "PUBLIC_URL_BYTES",
    "PUBLIC_URL_CHARS",
    "RECORD",
    "ROOT",
    "ROSTER_NAME_CHARS",
    "STANDINGS",
    "STATE",
    "STATUS",
    "TOPICS",
    "VERSION",
    "Ak",
    "Anchor",
    "Ev",
    "Final",
    "HallEvent",
    "HallTopics",
    "Limits",
    "Next",
    "Nx",
    "Result",
    "Route",
    "Row",
    "St",
    "Standings",
    "StateDocument",
    "Suspended",
    "Team",
    "TopicRule",
    "WireError",
    "between_table",
    "build_acks",
    "build_event",
    "build_next",
    "build_standings",
    "build_state",
    "build_status",
    "cannot_store_since",
    "check_acks",
    "check_event",
    "check_hall",
    "check_name",
    "check_next",
    "check_public_url",
    "check_roster",
    "check_roster_name",
    "check_standings",
    "check_state",
    "check_status",
    "encode",
    "event_document",
    "event_id",
    "final_data",
    "follow",
    "hall_of",
    "hall_subscriptions",
    "hall_topic",
    "hall_topics",
    "next_change",
    "next_document",
    "office_subscriptions",
    "office_topic",
    "read_anchor",
    "refused_matches",
    "roster_document",
    "route",
    "row_document",
    "standings_document",
    "standings_filter",
    "standings_topic",
    "table_document",
    "tournament_root",
]
