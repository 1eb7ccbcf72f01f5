"""A replay's console: the script's key presses through the hall's own console.

Each key goes where the daemon sends a key of the window or the USB keypad
(firmware_py/inputs.py): a key mapped to a console action is a button's press and, ``hold``
later, its release (``Console.button``: the same debounce, hold and double-tap guard as a
pin's edges); a keypad key goes to the keypad's entry grammar (``Console.key``,
arena/core/entry.py). So a script's keys make exactly the commands the table's keys would,
with the console map's default timings (hardware/console.toml) and the keypad on.

What the operator view would show after each key (its entry, worded, and the last press's
outcome: ``GOAL HOME #12 ✓``, ``TIME-OUT HOME ✗ ...``) is kept as an answer, so a training
script can be read against what the table shows; a key the script holds (UNDO, NEXT act on
a hold) has a second answer at its release.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from arena import words
from arena.core.commands import Command
from arena.core.entry import PickMatch
from arena.core.events import Event
from arena.core.match import Match, feed
from arena.core.units import NS_PER_S, Nanos
from arena.keys import is_keypad_key
from firmware_py.feedback import Feedback, Notice
from firmware_py.operatorview import countdown, timed_out_line, worded_entry
from firmware_py.script import TAP_NS, KeyLine
from hardware.console import Console, load_config

SETTLE_NS = 60 * NS_PER_S  # past any hold and entry timeout of a script's last key


@dataclass(frozen=True, slots=True)
class Refusal:
    line: int
    message: str


class KeyPlayer:
    """The console of one replayed match; ``refusals`` of what its keys made, by the line
    of the key last pressed (a timeout completes what that key's entry began)."""

    def __init__(self, match: Match, lang: str = words.DEFAULT) -> None:
        self.match = match
        self.lang = lang
        kinds = list(match.preset.penalties.kinds)
        # No pins: every action is a button of its own that the script's keys press.
        config = replace(load_config(), buttons=(), keypad=True)
        self.console = Console(config, None, kinds)
        self.console.new_match(kinds, match.preset.forfeit_goals)
        self.feedback = Feedback(lang=lang)
        self.refusals: list[Refusal] = []
        self.events: list[Event] = []  # what its commands made, for a narrator to take
        # Each command its keys made, in the order fed, with the line of the key last
        # pressed: what a published game sends (firmware_py/replaypublisher.py).
        self.commands: list[tuple[int, Command]] = []
        self.answers: list[dict[str, Any]] = []  # after each key, in time order
        # (instant, key) of the keys down, in time order: released then.
        self._releases: list[tuple[Nanos, KeyLine]] = []
        self._line = 0
        self._now: Nanos = 0

    def until(self, now: Nanos) -> None:
        """Everything the console does by itself up to ``now``: releases of held keys,
        debounce settling, holds completing, entries timing out, each at its instant."""
        console = self.console
        stuck: Nanos | None = None  # a deadline draining did not move: not asked again
        while True:
            deadline = console.next_deadline()
            found = [at for at, _ in self._releases[:1]]
            if deadline is not None and deadline != stuck:
                found.append(deadline)
            due = min(found, default=None)
            if due is None or due > now:
                return
            released: list[KeyLine] = []
            while self._releases and self._releases[0][0] <= due:
                at, key = self._releases.pop(0)
                console.button(key.target, at, False)
                released.append(key)
            self._drain(due)
            self.answers += [self._answer(key, due, released=True) for key in released
                             if key.hold is not None]
            stuck = due if console.next_deadline() == due else None

    def press(self, key: KeyLine) -> None:
        """One key at its instant, and what the operator view then shows (``answers``)."""
        self.until(key.t)
        self._line = key.line
        console = self.console
        entry_before = console.entry()
        notice_before = self.feedback.current(key.t)
        if is_keypad_key(key.target):
            console.key(key.target, key.t)
        else:
            console.button(key.target, key.t, True)
            self._releases.append((key.t + (key.hold or TAP_NS), key))
            self._releases.sort(key=lambda r: r[0])
        self._drain(key.t)
        if console.entry() != entry_before and self.feedback.current(key.t) is notice_before:
            # As the daemon does: typing on with no new outcome, the last one is old news.
            self.feedback.clear()
        self.answers.append(self._answer(key, key.t))

    def _answer(self, key: KeyLine, at: Nanos, *, released: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"line": key.line, "t": float(Decimal(at) / NS_PER_S),
                               "key": key.name, "does": key.target}
        if released:
            out["released"] = True
        return {**out, **self.view(at)}

    def view(self, now: Nanos) -> dict[str, Any]:
        """The operator view's lines about the console at ``now``: the entry (worded in
        the hall's language, with its timeout), the last press's outcome, the last timeout."""
        console = self.console
        entry = worded_entry(console.entry(), self.lang)
        if isinstance(entry, dict):
            entry["timeout"] = countdown(console.lapse(), now, self.lang)
        notice = self.feedback.current(now)
        lapsed = console.lapsed()
        return {"feedback": None if notice is None else notice.to_json(),
                "entry": entry,
                "timed_out": None if lapsed is None or lapsed.at > now
                or now - lapsed.at >= self.feedback.shown_ns
                else timed_out_line(lapsed, self.lang)}

    def entry(self) -> dict[str, Any] | None:
        """The pending entry as the state document carries it (English)."""
        return self.console.entry()

    def notice(self, now: Nanos) -> Notice | None:
        return self.feedback.current(now)

    def _drain(self, now: Nanos) -> None:
        self._now = now
        # The match at this instant first, as the daemon's loop has it before its inputs:
        # which START/STOP means is resolved against it (a period that ended by now waits).
        self.match.advance(now)
        self.console.drain(now, self.match, self._submit)

    def _submit(self, output: Command | PickMatch) -> None:
        if isinstance(output, PickMatch):
            self.refusals.append(Refusal(self._line, "a replay has no schedule to pick "
                                         f"the next match {output.match!r} from"))
            return
        self.commands.append((self._line, output))
        fed = feed(self.match, output)
        self.events += fed.events
        # Shown from when it is applied (a goal its timeout entered carries its button's
        # instant), as firmware_py/inputs.py tells it.
        at = max(output.at, self._now)
        if fed.refused is None:
            self.feedback.accepted(output, at)
        else:
            self.refusals.append(Refusal(self._line, str(fed.refused)))
            self.feedback.refused(output, fed.refused.why, at)
