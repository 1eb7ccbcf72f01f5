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

from dataclasses import dataclass
from typing import Any

from arena import words
from arena.core.commands import Command
from arena.core.errors import Field, Reason
from arena.core.units import NS_PER_S

SHOWN_NS = 4 * NS_PER_S  # real time: long enough to look up from the buttons and read it
TICK, CROSS = "\u2713", "\u2717"
REASON_CHARS = 48  # a reason longer than this is cut (the log keeps the whole sentence)

# A refusal's fields that name something the table words: the rest (numbers) as they are.
_WORDED = {"phase": "feedback.phase.", "team": "feedback.team.", "other": "feedback.team.",
           "stage": "feedback.stage.", "what": "feedback.what."}


def kind_word(kind: str, lang: str) -> str:
    return words.kind(kind, lang)


def _field(name: str, value: Field, lang: str) -> Field:
    prefix = _WORDED.get(name)
    if isinstance(value, str) and prefix is not None \
            and prefix + value in words.table(words.DEFAULT):
        return words.word(prefix + value, lang)
    if name == "kind" and isinstance(value, str):
        return kind_word(value, lang)
    return value


def short_reason(reason: Reason | str, lang: str = words.DEFAULT) -> str:
    """``reason`` in a few words for the table (docs/timekeeper.md, "The operator view"), in
    ``lang``: a core refusal by its key (``refused.<key>``); a sentence of the shell's own (a
    schedule problem) as it is, cut to ``REASON_CHARS``."""
    if isinstance(reason, Reason):
        key = f"refused.{reason.key}"
        if key in words.table(words.DEFAULT):
            return words.word(key, lang, **{name: _field(name, value, lang)
                                            for name, value in reason.fields})
        reason = reason.text  # a key with no words yet: tests/test_feedback.py names it
    reason = reason.replace("_", " ")
    if len(reason) <= REASON_CHARS:
        return reason
    return reason[:REASON_CHARS - 1].rstrip(" ,;:") + "\u2026"


def press_label(command: Command, lang: str = words.DEFAULT) -> str:
    """``GOAL HOME #12``, ``PENALTY AWAY #7 MINOR``, ``HORN OFF``: the press as its buttons
    name it, from the command's own fields (so a new command needs no entry here), in
    ``lang`` (``press.*``; a command with no word of its own shows its name)."""
    fields: dict[str, Any] = command.to_json()
    english = words.table(words.DEFAULT)

    def say(key: str, default: str) -> str:
        return words.word(key, lang) if key in english else default

    out = [say(f"press.{command.name}", command.name.replace("_", " ").upper())]
    if isinstance(fields.get("team"), str):
        out.append(say(f"feedback.team.{fields['team']}", fields["team"].upper()))
    if fields.get("player") is not None:
        out.append(f"#{fields['player']}")
    if isinstance(fields.get("kind"), str):
        out.append(kind_word(fields["kind"], lang).upper())
    if fields.get("coincidental"):
        out.append(words.word("press.coincidental", lang))
    if "scored" in fields:
        out.append(words.word("press.scored" if fields["scored"] else "press.missed", lang))
    if "on" in fields and not fields["on"]:
        out.append(words.word("press.off", lang))
    if isinstance(fields.get("ms"), int):
        seconds = -(-fields["ms"] // 1000)
        out.append(f"{seconds // 60}:{seconds % 60:02d}")
    return " ".join(out)


@dataclass(frozen=True, slots=True)
class Notice:
    """One press's outcome. ``reason`` is None when it was accepted."""

    press: str  # press_label(command)
    reason: str | None
    at: int  # match time it is shown from: the press's, or its application's if later
    until: int  # match time it stops being shown
    lang: str = words.DEFAULT  # the hall's language: the OK / REFUSED words

    @property
    def accepted(self) -> bool:
        return self.reason is None

    def text(self, *, marks: bool = True) -> str:
        """One line: ``GOAL HOME #12 ✓`` / ``TIME-OUT HOME ✗ no time-outs in group games``;
        without ``marks`` (a font with no ✓): ``GOAL HOME #12 OK`` /
        ``TIME-OUT HOME REFUSED: no time-outs in group games``."""
        if self.reason is None:
            return f"{self.press} {TICK if marks else words.word('feedback.ok', self.lang)}"
        refused = CROSS if marks else words.word("feedback.refused", self.lang)
        return f"{self.press} {refused} {self.reason}"

    def shorter(self) -> list[str]:
        """For a narrower line, shortest last: ``REFUSED: no time-outs in group games``,
        ``no time-outs in group games`` (a refusal's reason matters more than the press
        just made); ``GOAL HOME #12`` for an accepted one (its colour says OK)."""
        if self.reason is None:
            return [self.press]
        return [f"{words.word('feedback.refused', self.lang)} {self.reason}", self.reason]

    def to_json(self) -> dict[str, Any]:
        return {"press": self.press, "accepted": self.accepted, "reason": self.reason,
                "text": self.text()}


class Feedback:
    """The latest press's notice; a newer press replaces it, ``clear`` (a new key or button
    press: the timekeeper has moved on) takes it away at once."""

    def __init__(self, shown_ns: int = SHOWN_NS, lang: str = words.DEFAULT) -> None:
        self.shown_ns = shown_ns
        self.lang = lang  # the hall's: [display] language
        self._notice: Notice | None = None

    def accepted(self, command: Command, at: int) -> Notice:
        return self._set(Notice(press_label(command, self.lang), None, at,
                                at + self.shown_ns, self.lang))

    def refused(self, command: Command, reason: Reason | str, at: int) -> Notice:
        return self._set(Notice(press_label(command, self.lang),
                                short_reason(reason, self.lang), at, at + self.shown_ns,
                                self.lang))

    def note(self, press: str, reason: Reason | str | None, at: int,
             key: str = "press.next_match") -> Notice:
        """The outcome of a press that is no core command (the schedule's next match, or
        a replay the office ordered: ``key`` a word of the tables, with the match's name
        ``press``)."""
        label = words.word(key, self.lang, match=press)
        return self._set(Notice(label, None if reason is None else
                                short_reason(reason, self.lang), at, at + self.shown_ns,
                                self.lang))

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
