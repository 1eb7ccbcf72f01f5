"""What the timekeeper's last press did: accepted (``GOAL HOME #12``, shown with a tick) or
refused (``TIME-OUT HOME``: ``no time-outs in group games``), for a few seconds.

A refused press used to reach only the log; a timekeeper at the table never reads that.
``Feedback`` keeps the latest notice and says when it goes (``expires``), so the daemon
draws a frame at that instant and the line vanishes on time, not at the next idle frame.
Pure: every instant is passed in (match time, as the commands' own ``at``); the length is
given on the same timeline by the daemon (a time-scaled demo still shows it a few real
seconds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from firmware_py.core.commands import Command
from firmware_py.core.units import NS_PER_S

SHOWN_NS = 4 * NS_PER_S  # real time: long enough to look up from the buttons and read it
TICK, CROSS = "\u2713", "\u2717"
REASON_CHARS = 48  # a reason longer than this is cut (the log keeps the whole sentence)

# The core's refusals are sentences written for the log; the few long ones, as the table
# reads them. Checked in order; the first whose pattern is found wins.
_SHORT: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"time-outs are allowed only in the (\w+) stage, this is a (\w+) match"),
     r"no time-outs in \2 games"),
    (re.compile(r"the (\S+) rules have no time-outs"), "no time-outs in these rules"),
    (re.compile(r"the (\S+) rules have no timed penalties"), "no timed penalties here"),
    (re.compile(r"unknown kind '([^']*)' in \S+"), r"unknown penalty kind \1"),
    (re.compile(r"the goal was scored in regulation and overtime"),
     "overtime has begun: goal stands"),
    (re.compile(r"the journal is damaged"), "journal damaged: hold NEXT"),
    (re.compile(r"the clock is running: stop it first"), "stop the clock first"),
    (re.compile(r"a time-out is taken with the game clock stopped"),
     "stop the clock first"),
    (re.compile(r"nothing follows the (\w+) phase by itself; press start"), "press START"),
    (re.compile(r"the match is already over"), "match is over (undo first)"),
    (re.compile(r"(\d+) ms is more than the (\d+) ms"), "clock beyond this period"),
    # The shootout's order and bars (the log keeps the rule behind them).
    (re.compile(r"(\w+) shoots first in round (\d+)"), r"\1 shoots first in round \2"),
    (re.compile(r"(#\d+) \(\w+\) may not shoot: sent off"), r"\1 sent off: may not shoot"),
    (re.compile(r"(#\d+) \(\w+\) may not shoot: his penalty"),
     r"\1 still penalised: may not shoot"),
)


def short_reason(reason: str) -> str:
    """``reason`` in a few words for the table (README "The operator view")."""
    for pattern, short in _SHORT:
        found = pattern.search(reason)
        if found is not None:
            return found.expand(short)
    reason = reason.replace("_", " ")
    if len(reason) <= REASON_CHARS:
        return reason
    return reason[:REASON_CHARS - 1].rstrip(" ,;:") + "\u2026"


def press_label(command: Command) -> str:
    """``GOAL HOME #12``, ``PENALTY AWAY #7 MINOR``, ``HORN OFF``: the press as its buttons
    name it, from the command's own fields (so a new command needs no entry here)."""
    fields: dict[str, Any] = command.to_json()
    words = [{"timeout": "TIME-OUT", "set_clock": "SET CLOCK"}.get(
        command.name, command.name.replace("_", " ").upper())]
    if isinstance(fields.get("team"), str):
        words.append(fields["team"].upper())
    if fields.get("player") is not None:
        words.append(f"#{fields['player']}")
    if isinstance(fields.get("kind"), str):
        words.append(fields["kind"].replace("_", " ").upper())
    if fields.get("coincidental"):
        words.append("COINCIDENTAL")
    if "scored" in fields:
        words.append("SCORED" if fields["scored"] else "MISSED")
    if "on" in fields and not fields["on"]:
        words.append("OFF")
    if isinstance(fields.get("ms"), int):
        seconds = -(-fields["ms"] // 1000)
        words.append(f"{seconds // 60}:{seconds % 60:02d}")
    return " ".join(words)


@dataclass(frozen=True, slots=True)
class Notice:
    """One press's outcome. ``reason`` is None when it was accepted."""

    press: str  # press_label(command)
    reason: str | None
    at: int  # match time of the press
    until: int  # match time it stops being shown

    @property
    def accepted(self) -> bool:
        return self.reason is None

    def text(self, *, marks: bool = True) -> str:
        """One line: ``GOAL HOME #12 ✓`` / ``TIME-OUT HOME ✗ no time-outs in group games``;
        without ``marks`` (a font with no ✓): ``GOAL HOME #12 OK`` /
        ``TIME-OUT HOME REFUSED: no time-outs in group games``."""
        if self.reason is None:
            return f"{self.press} {TICK if marks else 'OK'}"
        return f"{self.press} {CROSS if marks else 'REFUSED:'} {self.reason}"

    def shorter(self) -> list[str]:
        """For a narrower line, shortest last: ``REFUSED: no time-outs in group games``,
        ``no time-outs in group games`` (a refusal's reason matters more than the press
        just made); ``GOAL HOME #12`` for an accepted one (its colour says OK)."""
        if self.reason is None:
            return [self.press]
        return [f"REFUSED: {self.reason}", self.reason]

    def to_json(self) -> dict[str, Any]:
        return {"press": self.press, "accepted": self.accepted, "reason": self.reason,
                "text": self.text()}


class Feedback:
    """The latest press's notice; a newer press replaces it, ``clear`` (a new key or button
    press: the timekeeper has moved on) takes it away at once."""

    def __init__(self, shown_ns: int = SHOWN_NS) -> None:
        self.shown_ns = shown_ns
        self._notice: Notice | None = None

    def accepted(self, command: Command, at: int) -> Notice:
        return self._set(Notice(press_label(command), None, at, at + self.shown_ns))

    def refused(self, command: Command, reason: str, at: int) -> Notice:
        return self._set(Notice(press_label(command), short_reason(reason), at,
                                at + self.shown_ns))

    def note(self, press: str, reason: str | None, at: int) -> Notice:
        """The outcome of a press that is no core command (the schedule's next match)."""
        return self._set(Notice(press, None if reason is None else short_reason(reason), at,
                                at + self.shown_ns))

    def clear(self) -> None:
        self._notice = None

    def current(self, now: int) -> Notice | None:
        """The notice to show at ``now``, or None (none, or it has expired)."""
        notice = self._notice
        return notice if notice is not None and now < notice.until else None

    def expires(self, now: int) -> int | None:
        """When the notice shown at ``now`` goes: a frame is due then."""
        notice = self.current(now)
        return None if notice is None else notice.until

    def _set(self, notice: Notice) -> Notice:
        self._notice = notice
        return notice
