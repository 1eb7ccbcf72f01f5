"""What the keypad says to the timekeeper, as phrases: a key and its fields, never a
language (docs/developer.md, "Languages").

The core names what to say (``Phrase``); the English templates (``ENGLISH``) give the state
document's ``entry.prompt`` and ``keys`` (docs/developer.md 4.3, English as before), and are the
English table's ``entry.*`` words too (arena/words/en.py takes them from here, so English is
written once). The shell words a phrase in the hall's language with the same rule as
``english``: a field that is a phrase is worded first, a ``kind`` field is a penalty kind's
name (worded by its table where it has one, else shown as the preset names it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Phrase:
    """``key`` (of ``ENGLISH``) with its fields, sorted by name."""

    key: str
    fields: tuple[tuple[str, str | int | Phrase], ...] = ()


    def to_json(self) -> list[Any]:
        """``[key, {field: value}]``, a phrase field as its own pair (JSON for the views)."""
        return [self.key, {name: value.to_json() if isinstance(value, Phrase) else value
                           for name, value in self.fields}]


def say(key: str, **fields: str | int | Phrase) -> Phrase:
    return Phrase(key, tuple(sorted(fields.items())))


ENGLISH: Mapping[str, str] = {
    # the head of a prompt: what is being entered (and for whom)
    "head": "{what}",
    "head.team": "{what} {team}",
    "head.coincidental": "{what} {team} COINCIDENTAL",
    "what.goal": "GOAL", "what.penalty": "PENALTY", "what.shot": "SHOT",
    "what.set_clock": "SET CLOCK", "what.end": "END", "what.forfeit": "FORFEIT",
    "what.next": "NEXT", "what.undo": "UNDO", "what.horn": "HORN", "what.cancel": "CANCEL",
    "what.menu": "MENU", "what.schedule": "SCHEDULE",
    "team.home": "HOME", "team.away": "AWAY",  # in a prompt's head
    "side.home": "home", "side.away": "away",  # in a key's words
    "number": "#{n}",
    "no_number": "no number",
    # the prompts
    "prompt.scorer": "{head}: scorer",
    "prompt.shooter": "{head}: shooter",
    "prompt.player": "{head}: player",
    "prompt.kind": "{head} {number}: kind",
    "prompt.outcome": "{head} {number}: scored?",
    "prompt.clock": "SET CLOCK: m:ss.t",
    "prompt.confirm": "{head}: enter confirms",
    "prompt.records": "CANCEL/CORRECT: which record",
    "prompt.no_records": "CANCEL/CORRECT: no goal or penalty on record",
    "prompt.record": "{record}: enter cancels, a number corrects",
    "prompt.record_clock": "{record}: enter cancels",
    "prompt.preview": "{head}: {does}",
    "prompt.menu": "MENU: action",
    "prompt.matches": "NEXT MATCH: which",
    "prompt.no_matches": "NEXT MATCH: no match left in the schedule",
    "prompt.team": "{match} TEAMS NOT KNOWN: {side} team",
    "prompt.horn": "HORN: any key stops it",
    # what a key does next
    "key.scorer": "scorer's number",
    "key.shooter": "shooter's number",
    "key.player": "player's number",
    "key.coincidental_on": "coincidental on",
    "key.coincidental_off": "coincidental off",
    "key.choose_kind": "choose the kind",
    "key.penalty": "{kind} {number}",
    "key.kind": "{kind}",
    "key.scored_or_missed": "scored or missed next",
    "key.goal": "goal {number}",
    "key.goal_no_scorer": "goal, no scorer",
    "key.erase": "erase",
    "key.cancel": "cancel",
    "key.back_to_number": "back to the number",
    "key.back_to_shooter": "back to the shooter",
    "key.back_to_list": "back to the list",
    "key.back": "back",
    "key.scored": "scored",
    "key.missed": "missed",
    "key.digits": "digits fill from the right",
    "key.tenths": "tenths follow",
    "key.set_clock": "set the clock to {time}",
    "key.type_time": "type a time first",
    "key.end": "end the period or break now",
    "key.next": "next",
    "key.undo": "undo the last action",
    "key.forfeit": "forfeit: {side} loses {score}",
    "key.pick": "pick it",
    "key.load": "load it",
    "key.correct": "correct to #{n}",
    "key.cancel_record": "cancel it",
    "key.new_number": "new number",
    "key.keep_name": "keep the name shown",
    "key.horn_off": "horn off",
    "key.as_shown": "{name}",  # a team's or a match's name, as it comes
    "key.more": "more: page {page} of {pages}",  # a list's next page (dot)
    "key.confirm": "confirm: {does}",
    # what a correction does beyond itself (core/preview.py), joined by "preview.and"
    "preview.and": "{first}; {rest}",
    "preview.ends": "{side} {player} {kind} ends",
    "preview.back": "{side} {player} {kind} back in the box",
    "preview.starts": "{side} {player} {kind} starts",
    "preview.waits": "{side} {player} {kind} waits again",
    "preview.shifts": "line changes passed: {n}",
    "preview.phase.pregame": "then: before the match",
    "preview.phase.period": "then: period {period}",
    "preview.phase.intermission": "then: the break before period {period}",
    "preview.phase.overtime_break": "then: the break before overtime",
    "preview.phase.overtime": "then: overtime",
    "preview.phase.shootout": "then: the shootout",
    "preview.phase.final": "then: the match is over",
    # a record on the cancel list: "goal home #12 P2 12:34"
    "record": "{what} {side} {player} P{period} {time}",
    "record.kind": "{what} {side} {player} {kind} P{period} {time}",
    "record.clock": "{what} P{period} {time}",
    "record.what.goal": "goal", "record.what.penalty": "penalty",
    "record.what.set_clock": "clock set",
    # the menu (ids: entry.MENU), numbered from 1 in that order
    "menu.start_stop": "start/stop", "menu.horn": "horn",
    "menu.goal_home": "goal home", "menu.goal_away": "goal away",
    "menu.penalty_home": "penalty home", "menu.penalty_away": "penalty away",
    "menu.timeout_home": "time-out home", "menu.timeout_away": "time-out away",
    "menu.shot_home": "shot home", "menu.shot_away": "shot away",
    "menu.set_clock": "set clock", "menu.end": "end period/break",
    "menu.forfeit_home": "forfeit: home loses", "menu.forfeit_away": "forfeit: away loses",
    "menu.cancel": "cancel/correct", "menu.next": "next", "menu.undo": "undo",
    "menu.schedule": "next match from the schedule",
}


def worded(phrase: Phrase, template: Callable[[str], str],
           kind: Callable[[str], str]) -> str:
    """``phrase`` in the words ``template`` gives for a key, each phrase field worded first
    and a ``kind`` field by ``kind``."""
    fields: dict[str, str | int] = {}
    for name, value in phrase.fields:
        if isinstance(value, Phrase):
            fields[name] = worded(value, template, kind)
        elif name == "kind" and isinstance(value, str):
            fields[name] = kind(value)
        else:
            fields[name] = value
    return template(phrase.key).format(**fields)


def english(phrase: Phrase) -> str:
    """``phrase`` in English (a kind as the preset names it, ``_`` a space)."""
    return worded(phrase, ENGLISH.__getitem__, lambda k: k.replace("_", " "))
