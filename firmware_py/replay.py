"""``scoreboard replay``: run a script through the core and take state snapshots.

Exactly what the live scoreboard would do with the same presses at the same instants: every
command goes through ``feed``; a command the rules refuse is reported with its line and
skipped; a command at exactly a snapshot time is applied before the snapshot.

A replay script may also hold key presses (played through the hall's own console and keypad
grammar, firmware_py/keyplay.py) and the match day (the hall's clock and the scheduled
starts, firmware_py/replayday.py). Each snapshot is the state document (docs/developer.md
4.3) with what only a replay adds: ``records``, the goals, penalties and clock corrections a
timekeeper can cancel or correct, each with the ``seq`` a script's ``cancel``/``correct``
names and the ``key`` the keypad's CANCEL list picks it by; with a match day the
timekeeper's ``schedule`` line; with keys the last press's ``feedback`` while the operator
view shows it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena import words
from arena.core.commands import Command
from arena.core.entry import records_of
from arena.core.match import Match, feed
from arena.core.state import state_document
from arena.core.units import Nanos
from firmware_py.keyplay import SETTLE_NS, KeyPlayer, Refusal
from firmware_py.matchday import Scheduled
from firmware_py.replayday import DayPlay, MatchDay, scheduled_at
from firmware_py.script import DayLine, KeyLine, Line, ScriptLine

__all__ = ["Played", "Refusal", "play", "replay", "snapshot"]


@dataclass(slots=True)
class Played:
    """The snapshots (in the order of the instants asked for), the refusals (in script
    order), for each key pressed what the operator view then showed, and every command
    fed, in order, with its script line (a key's: the key last pressed)."""

    snapshots: list[dict[str, Any]]
    refusals: list[Refusal]
    answers: list[dict[str, Any]] = field(default_factory=list)
    commands: list[tuple[int, Command]] = field(default_factory=list)


def replay(
    match: Match, script: Sequence[ScriptLine], at: list[Nanos]
) -> tuple[list[dict[str, Any]], list[Refusal]]:
    """State documents at each ``at`` instant (in the order given) and the refusals."""
    played = play(match, script, at, extras=False)
    return played.snapshots, played.refusals


def play(match: Match, script: Sequence[Line], at: list[Nanos], *,
         day: MatchDay | None = None, lang: str = words.DEFAULT,
         extras: bool = True) -> Played:
    """Every line of ``script`` (commands, keys, match-day lines) and a snapshot at each
    ``at``. ``day``: the match day from the command line or the tournament file, under the
    script's own ``match_day`` lines; alone (with a clock) it begins at 0. ``extras``: the
    replay's keys beside the state document (``records``, ``schedule``, ``feedback``)."""
    keys = KeyPlayer(match, lang) if any(isinstance(x, KeyLine) for x in script) else None
    days = DayPlay()
    refusals: list[Refusal] = []
    answers: list[dict[str, Any]] = []
    commands: list[tuple[int, Command]] = []
    has_day = (day is not None and day.clock is not None) or any(
        isinstance(x, DayLine) for x in script)
    if day is not None and day.clock is not None and not any(
            isinstance(x, DayLine) for x in script):
        days.begin(match, _scheduled(day, 0, match))
    order = sorted(range(len(at)), key=lambda i: at[i])
    snapshots: dict[int, dict[str, Any]] = {}
    pending = iter(order)
    next_index = next(pending, None)

    def take_until(limit: Nanos | None) -> Iterator[int]:
        nonlocal next_index
        while next_index is not None and (limit is None or at[next_index] < limit):
            yield next_index
            next_index = next(pending, None)

    def shot(now: Nanos) -> dict[str, Any]:
        if keys is not None:
            keys.until(now)
        doc = snapshot(match, now, None if keys is None else keys.entry())
        if extras:
            doc.update(_extras(match, now, days if has_day else None, keys))
        return doc

    for line in script:
        for index in take_until(line.t):
            snapshots[index] = shot(at[index])
        if isinstance(line, KeyLine):
            assert keys is not None
            keys.press(line)
            continue
        if keys is not None:
            keys.until(line.t)
            commands += keys.commands
            keys.commands.clear()
        if isinstance(line, DayLine):
            days.begin(match, _scheduled(line.day.over(day or MatchDay()), line.t, match,
                                         line.line))
            continue
        commands.append((line.line, line.command))
        fed = feed(match, line.command)
        if fed.refused is not None:
            refusals.append(Refusal(line.line, str(fed.refused)))
    for index in take_until(None):
        snapshots[index] = shot(at[index])
    if keys is not None:
        if script:  # what the last keys still do by themselves: a hold, a timeout
            keys.until(script[-1].t + SETTLE_NS)
        refusals = sorted(refusals + keys.refusals, key=lambda r: r.line)
        answers = keys.answers
        commands += keys.commands
    return Played([snapshots[i] for i in range(len(at))], refusals, answers, commands)


class DayError(ValueError):
    """A match day that cannot be placed on the timeline; the message says why."""


def _scheduled(day: MatchDay, t: Nanos, match: Match, line: int | None = None
               ) -> Scheduled:
    try:
        return scheduled_at(day, t, match.setup.match_id)
    except ValueError as err:
        raise DayError(f"line {line}: {err}" if line is not None else str(err)) from None


def _extras(match: Match, now: Nanos, days: DayPlay | None, keys: KeyPlayer | None
            ) -> dict[str, Any]:
    out: dict[str, Any] = {"records": records(match)}
    if days is not None:
        out["schedule"] = days.line(match, now)
    notice = None if keys is None else keys.notice(now)
    if notice is not None:  # only while the operator view shows it, as "goal"
        out["feedback"] = notice.to_json()
    return out


def records(match: Match) -> list[dict[str, Any]]:
    """What CANCEL offers (and ``correct`` may renumber), newest first: ``key`` the number
    the keypad picks it by, ``seq`` the number a script's ``cancel``/``correct`` names."""
    return [{"key": n, "seq": r.seq, "what": r.what,
             "team": None if r.team is None else r.team.value, "player": r.player,
             "kind": r.kind, "period": r.period, "clock_ms": r.clock_ms}
            for n, r in enumerate(records_of(match.state), start=1)]


def snapshot(match: Match, now: Nanos, entry: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    match.advance(now)
    return state_document(match, now, entry)
