"""Each event kind's ``data``, declared (``DATA``): the fields the core's ``Match`` emits
with it (arena/core/match.py), typed, and the ones the office reads in range.

Only what the office reads is required: a live ``score``, a ``team`` side and a ``player``
number of the events about a player, and a match's final record (``record.FINAL``). The
rest is declared optional, so an older hall that did not send a field is still heard, but a
field that is sent with the wrong type is refused. Whatever the kind, no number of its data
is beyond ``number_max`` and no string longer than ``text_chars`` (``check_bounds``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from arena.core.events import EventKind as K

from . import fields as f
from .limits import LIMITS
from .record import FINAL, SCORE
from .schema import Field, Kind, Presence, Schema

_OPT, _NULL = Presence.OPTIONAL, Presence.NULLABLE
_N = LIMITS.number_max


def _num(name: str, presence: Presence = _OPT) -> Field:
    """A number the office does not read: typed, within JSON's safe integers."""
    return Field(name, Kind.INT, presence, minimum=-_N, maximum=_N)


def _text(name: str) -> Field:
    return Field(name, Kind.TEXT, _OPT)


def _flag(name: str) -> Field:
    return Field(name, Kind.BOOL, _OPT)


# What the office reads of a live event: its score (of every kind but the final, whose
# record has its own), and who.
_SCORE = Field("score", Kind.OBJECT, _OPT, schema=SCORE)
_TEAM = Field("team", Kind.SIDE)
_PLAYER = Field("player", Kind.INT, _NULL, maximum=LIMITS.player_max)
_PHASE = _text("phase")
_PERIOD = _num("period")
_CLOCK = _num("clock_ms")


def _live(*declared: Field) -> Schema:
    return Schema((_SCORE, *declared))


DATA: Mapping[K, Schema] = MappingProxyType({
    K.PERIOD_STARTED: _live(_PERIOD, _PHASE),
    K.CLOCK_STARTED: _live(_PERIOD, _CLOCK),
    K.CLOCK_STOPPED: _live(_PERIOD, _CLOCK),
    K.CLOCK_SET: _live(_PERIOD, _PHASE, _num("from_ms"), _num("to_ms")),
    K.PERIOD_ENDED: _live(_PERIOD, _PHASE, _flag("shortened")),
    K.BREAK_STARTED: _live(_PHASE, _num("next_period"), _num("length_ms")),
    K.BREAK_ENDED: _live(_PHASE, _num("next_period"), _flag("early")),
    K.GOAL: _live(_TEAM, _PLAYER, _PERIOD, _CLOCK),
    K.FORFEIT: _live(Field("loser", Kind.SIDE, _OPT)),
    K.HORN: _live(_text("reason"), _flag("on"), _num("length_ms", _NULL)),
    K.UNDONE: _live(_PHASE, _num("undone_seq"), _text("what"), _CLOCK),
    K.CANCELLED: _live(_TEAM, _PLAYER, _PHASE, _num("cancelled_seq"), _text("what"), _CLOCK),
    K.CORRECTED: _live(_TEAM, _PLAYER, _num("corrected_seq"), _text("what"),
                       _num("was", _NULL)),
    K.PENALTY: _live(_TEAM, _PLAYER, _text("kind"), _flag("coincidental"), _PERIOD, _CLOCK,
                     _num("minutes"), _flag("ejected")),
    K.PENALTY_STARTED: _live(Field("team", Kind.SIDE, _OPT), _num("player", _NULL),
                             _text("kind"), _num("penalty_seq")),
    K.PENALTY_ENDED: _live(Field("team", Kind.SIDE, _OPT), _num("player", _NULL),
                           _text("kind"), _num("penalty_seq"), _text("how"),
                           _num("part_ended"), _flag("finished")),
    K.TIMEOUT_STARTED: _live(Field("team", Kind.SIDE, _OPT), _num("length_ms")),
    K.TIMEOUT_ENDED: _live(Field("team", Kind.SIDE, _OPT), _flag("early")),
    K.SHIFT_ENDED: _live(_PERIOD, _num("shift")),
    K.SHOOTOUT_STARTED: _live(Field("first", Kind.SIDE, _NULL)),
    K.SHOT: _live(_TEAM, _PLAYER, _flag("scored")),
    # A final amended by a later correction carries ``amended``.
    K.MATCH_ENDED: Schema((*FINAL.fields, _flag("amended"))),
})


def check_data(topic: str, kind: K, data: Mapping[str, Any]) -> None:
    """An event's data against its kind's declaration, then its bounds."""
    DATA[kind].check(topic, data, "data.")
    check_bounds(topic, data)


def check_bounds(topic: str, data: Mapping[str, Any]) -> None:
    """No number beyond ``number_max``, no string longer than ``text_chars``, anywhere in
    ``data`` however nested (the fields no declaration names are bounded too)."""
    todo: list[tuple[Any, str]] = [(data, "data")]
    while todo:
        value, where = todo.pop()
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            if not -_N <= value <= _N:
                f.refuse(topic, f"'{where}' is {f.show(value)}, beyond +-{_N}")
        elif isinstance(value, str):
            if len(value) > LIMITS.text_chars:
                f.refuse(topic, f"'{where}' is {len(value)} characters, more than "
                                f"{LIMITS.text_chars}")
        elif isinstance(value, dict):
            todo.extend((v, f"{where}.{k}") for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((v, f"{where}[{i}]") for i, v in enumerate(value))
