"""The timekeeper's commands (docs/developer.md 4.2), as values.

Every command carries ``at``: the monotonic instant of the physical press (the GPIO edge,
the serial line's arrival, the script's ``t``), never the time the code got round to it.

``parse_command`` turns the JSON object of a replay line, a serial line or a journal record
into a command and is the one place that says what a well-formed command is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import ClassVar

from .errors import CommandError
from .phase import Team
from .units import Nanos


@dataclass(frozen=True, slots=True)
class Command:
    name: ClassVar[str] = ""
    at: Nanos

    def to_json(self) -> dict[str, object]:
        """The command's script form (without ``t``): ``{"do": "goal", "team": "home"}``."""
        out: dict[str, object] = {"do": self.name}
        for f in fields(self):
            if f.name == "at":
                continue
            value = getattr(self, f.name)
            if value is None or (f.name == "coincidental" and value is False):
                continue
            out[f.name] = value.value if isinstance(value, Team) else value
        return out


@dataclass(frozen=True, slots=True)
class Start(Command):
    name: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class Stop(Command):
    name: ClassVar[str] = "stop"


@dataclass(frozen=True, slots=True)
class Goal(Command):
    name: ClassVar[str] = "goal"
    team: Team
    player: int | None = None


@dataclass(frozen=True, slots=True)
class Penalty(Command):
    name: ClassVar[str] = "penalty"
    team: Team
    player: int
    kind: str
    coincidental: bool = False


@dataclass(frozen=True, slots=True)
class Timeout(Command):
    name: ClassVar[str] = "timeout"
    team: Team


@dataclass(frozen=True, slots=True)
class Shot(Command):
    name: ClassVar[str] = "shot"
    team: Team
    scored: bool
    player: int | None = None


@dataclass(frozen=True, slots=True)
class Next(Command):
    name: ClassVar[str] = "next"


@dataclass(frozen=True, slots=True)
class SetClock(Command):
    name: ClassVar[str] = "set_clock"
    ms: int


@dataclass(frozen=True, slots=True)
class Horn(Command):
    name: ClassVar[str] = "horn"
    on: bool


@dataclass(frozen=True, slots=True)
class Undo(Command):
    name: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Forfeit(Command):
    """``team`` is the team that loses (a technical loss by the preset's ``[forfeit] goals``)."""

    name: ClassVar[str] = "forfeit"
    team: Team


@dataclass(frozen=True, slots=True)
class End(Command):
    """End the current period or break now, as if its clock had reached zero."""

    name: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Cancel(Command):
    """Strike one earlier goal or penalty (event ``seq``) from the record: a new event that
    names it, never an erasure (docs/developer.md 2, rule 3). Unlike undo it may reach past later
    actions; its consequences (a released penalty back, the box rescheduled) are undo's."""

    name: ClassVar[str] = "cancel"
    seq: int


@dataclass(frozen=True, slots=True)
class Correct(Command):
    """Give an earlier goal (its scorer) or penalty (event ``seq``) another player number:
    only the number changes, in any phase, the match record with it."""

    name: ClassVar[str] = "correct"
    seq: int
    player: int


COMMANDS: dict[str, type[Command]] = {
    cls.name: cls
    for cls in (Start, Stop, Goal, Penalty, Timeout, Shot, Next, SetClock, Horn, Undo, Forfeit, End,
                Cancel, Correct)
}

# Player numbers are shirt numbers: 0..99 covers every sport here. The wire's table of
# limits (arena.wire.limits) takes both from here: the core may import nothing above it, and
# a number the console refuses must be one no file or message may hold either.
MAX_PLAYER = 99
MAX_CLOCK_MS = 24 * 3600 * 1000


def _team(value: object) -> Team:
    if value in ("home", "away"):
        return Team(value)
    raise CommandError(f"'team' must be \"home\" or \"away\", got {value!r}")


def _player(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PLAYER:
        raise CommandError(f"'player' must be a shirt number 0..{MAX_PLAYER}, got {value!r}")
    return value


def _bool(key: str) -> Callable[[object], bool]:
    def parse(value: object) -> bool:
        if not isinstance(value, bool):
            raise CommandError(f"'{key}' must be true or false, got {value!r}")
        return value

    return parse


def _kind(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise CommandError(f"'kind' must be a penalty kind such as \"minor\", got {value!r}")
    return value


def _clock_ms(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CLOCK_MS:
        raise CommandError(f"'ms' must be whole milliseconds 0..{MAX_CLOCK_MS}, got {value!r}")
    return value


def _seq(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise CommandError(f"'seq' must be an event's seq (a whole number from 1), got {value!r}")
    return value


_Parser = Callable[[object], object]

# command -> field -> (required, parser)
_FIELDS: dict[str, dict[str, tuple[bool, _Parser]]] = {
    "start": {},
    "stop": {},
    "goal": {"team": (True, _team), "player": (False, _player)},
    "penalty": {
        "team": (True, _team),
        "player": (True, _player),
        "kind": (True, _kind),
        "coincidental": (False, _bool("coincidental")),
    },
    "timeout": {"team": (True, _team)},
    "shot": {"team": (True, _team), "scored": (True, _bool("scored")), "player": (False, _player)},
    "next": {},
    "set_clock": {"ms": (True, _clock_ms)},
    "horn": {"on": (True, _bool("on"))},
    "undo": {},
    "forfeit": {"team": (True, _team)},
    "end": {},
    "cancel": {"seq": (True, _seq)},
    "correct": {"seq": (True, _seq), "player": (True, _player)},
}


def parse_command(obj: Mapping[str, object], at: Nanos, *, ignore: frozenset[str] = frozenset()
                  ) -> Command:
    """Build a command from its JSON form; ``ignore`` lists keys the caller owns (``t``).

    Raises ``CommandError`` naming the field and the problem; unknown keys are errors so a
    misspelt ``"plyer"`` is not silently dropped.
    """
    name = obj.get("do")
    if not isinstance(name, str):
        raise CommandError(f"'do' must name a command ({', '.join(COMMANDS)}), got {name!r}")
    spec = _FIELDS.get(name)
    if spec is None:
        raise CommandError(f"unknown command {name!r} (one of {', '.join(COMMANDS)})")
    values: dict[str, object] = {}
    for key, value in obj.items():
        if key == "do" or key in ignore:
            continue
        if key not in spec:
            allowed = ", ".join(spec) or "no fields"
            raise CommandError(f"{name}: unknown field {key!r} (takes {allowed})")
        required, parser = spec[key]
        values[key] = None if value is None and not required else parser(value)
    for key, (required, _) in spec.items():
        if required and key not in values:
            raise CommandError(f"{name}: missing field {key!r}")
    values = {k: v for k, v in values.items() if v is not None}
    return COMMANDS[name](at=at, **values)
