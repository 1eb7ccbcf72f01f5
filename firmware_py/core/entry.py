"""Keypad entry: the timekeeper completes what a button started.

PENALTY HOME, then the player's number, then the kind (a digit: 1 = the preset's first kind,
2 = the second, ...; the first, a minor, after a timeout); GOAL AWAY with an optional scorer.
Keys are plain names (``"0"``..``"9"``, ``"enter"``, ``"escape"``, ``"backspace"``): the
display package forwards a USB keypad's key events as such names, a serial keypad could too.

The command carries the instant of the *button* press (the goal was scored then), however
long the typing took. Pure: time comes in with every call, and ``next_deadline`` tells the
loop when a timeout falls due.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .commands import Command, Goal, Penalty
from .phase import Team
from .units import Nanos, seconds

MAX_DIGITS = 2  # shirt numbers 0..99
DEFAULT_TIMEOUT = seconds(5)


class EntryWhat(StrEnum):
    GOAL = "goal"
    PENALTY = "penalty"


class EntryStage(StrEnum):
    NUMBER = "number"
    KIND = "kind"


@dataclass(frozen=True, slots=True)
class Entry:
    what: EntryWhat
    team: Team
    at: Nanos  # the button press: the command's instant
    deadline: Nanos  # a timeout completes the entry with what it has
    digits: str = ""
    stage: EntryStage = EntryStage.NUMBER


class KeypadEntry:
    def __init__(self, kinds: list[str], *, timeout: Nanos = DEFAULT_TIMEOUT) -> None:
        self.kinds = kinds  # the preset's penalty kinds, in order: digit 1 is the first
        self.timeout = timeout
        self.pending: Entry | None = None

    def begin(self, what: EntryWhat, team: Team, at: Nanos) -> list[Command]:
        """A GOAL or PENALTY button: a pending entry is completed first, never lost."""
        done = self._complete(default_kind=True) if self.pending else []
        self.pending = Entry(what, team, at, at + self.timeout)
        return done

    def key(self, name: str, now: Nanos) -> list[Command]:
        entry = self.pending
        if entry is None:
            return []  # a stray key with nothing to complete
        if name == "escape":
            self.pending = None
            return []
        self.pending = entry = replace(entry, deadline=now + self.timeout)
        if name == "backspace":
            self.pending = replace(entry, digits=entry.digits[:-1])
            return []
        if entry.stage is EntryStage.KIND:
            if name.isdigit() and 1 <= int(name) <= len(self.kinds):
                return self._complete(kind=self.kinds[int(name) - 1])
            if name == "enter":
                return self._complete(default_kind=True)
            return []
        if name.isdigit() and len(name) == 1:
            if len(entry.digits) < MAX_DIGITS:
                self.pending = replace(entry, digits=entry.digits + name)
            return []
        if name == "enter":
            if entry.what is EntryWhat.PENALTY and len(self.kinds) > 1:
                self.pending = replace(entry, stage=EntryStage.KIND)
                return []
            return self._complete(default_kind=True)
        return []

    def poll(self, now: Nanos) -> list[Command]:
        """Complete an entry whose timeout has passed (a penalty gets the default kind)."""
        if self.pending is not None and now >= self.pending.deadline:
            return self._complete(default_kind=True)
        return []

    def next_deadline(self) -> Nanos | None:
        return self.pending.deadline if self.pending is not None else None

    def _complete(self, *, kind: str | None = None, default_kind: bool = False) -> list[Command]:
        entry = self.pending
        assert entry is not None
        self.pending = None
        player = int(entry.digits) if entry.digits else None
        if entry.what is EntryWhat.GOAL:
            return [Goal(entry.at, entry.team, player)]
        if not self.kinds:
            return []  # the rules have no timed penalties; the core would refuse it anyway
        chosen = kind if kind is not None else self.kinds[0]
        assert kind is not None or default_kind
        # A penalty always names a player; 0 stands for "not entered" (a bench penalty).
        return [Penalty(entry.at, entry.team, player or 0, chosen)]

    def describe(self) -> dict[str, Any] | None:
        """The pending entry for the operator line of the display (state document ``entry``)."""
        entry = self.pending
        if entry is None:
            return None
        out: dict[str, Any] = {"what": entry.what.value, "team": entry.team.value,
                               "player": entry.digits or None, "stage": entry.stage.value}
        if entry.what is EntryWhat.PENALTY:
            out["kinds"] = [f"{i} {k}" for i, k in enumerate(self.kinds, start=1)]
        return out
