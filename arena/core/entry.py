"""Keypad entry: the timekeeper completes on the keypad what a button (or the menu) started.

Keys are plain names (``"0"``..``"9"``, ``"enter"``, ``"escape"``, ``"backspace"``,
``"dot"``): the display package forwards a USB keypad's key events as such names, an evdev
or serial keypad could too. Actions are the console's names (``hardware/console.py``
ACTIONS): ``choose(action, at)`` starts what a button or a menu choice means.

The grammar (docs/timekeeper.md, "Entries in detail" has the timekeeper's version):

- GOAL: the scorer's digits (optional), Enter. A timeout enters what was typed.
- PENALTY: the player's digits, Enter, the kind's number (1 = the preset's first kind; with
  ten kinds or more a number that could go on waits for a second digit or Enter), or Enter
  for the first kind. ``dot`` toggles coincidental at any step. A timeout takes the kind
  typed or the first.
- SHOT: the shooter's digits (optional), Enter, then ``1`` or Enter scored, ``0`` missed.
- SET CLOCK: digits fill minutes:seconds from the right like a microwave (``1200`` is
  12:00, ``45`` is 0:45); after ``dot`` one digit of tenths (``1234.5``); Enter sets it.
- END, and from the menu NEXT, UNDO, FORFEIT: Enter confirms (their buttons are held
  instead): a keypad has no hold, so the choice and the Enter are two deliberate steps.
- CANCEL: the recent goals, penalties and clock corrections, newest first, numbered from 1
  (``records_of``: the operator view numbers its records the same way, so the number shown
  is the number typed); the number picks one; then Enter cancels it, or (a goal, a
  penalty) a new player number and Enter corrects it.
- A correction whose consequences reach beyond itself (a SET CLOCK that ends penalties, line
  changes or the period; an UNDO or a CANCEL that puts penalties back or changes the phase)
  is not given at its Enter: the entry shows what it will do (``preview.foresee``, asked
  through ``foresee``) and a second Enter gives it, Backspace goes back a step, Escape drops
  it. What it will do is asked again at that Enter: if it changed meanwhile (the clock ran),
  the new preview is shown instead.
- MENU: a number picks any action of ``MENU`` (the numbers are in the description's
  ``keys``), so a 17-key keypad reaches every action.
- HORN from the menu sounds until the next key (or the timeout).
- SCHEDULE (menu 18, a hall without an office: docs/technician.md, "A hall without an office"): this
  hall's remaining matches, numbered (``schedule``, refreshed by the shell); digits pick one,
  Enter confirms. A match whose teams are still bracket placeholders ("1st A") then asks for
  each side: a number from the tournament's team list (``teams``) and Enter, or Enter alone
  to keep the name shown. The match is loaded by the shell (``PickMatch``), never by the core.
- A list to pick from (CANCEL's records, MENU, SCHEDULE and its teams) shows ``PAGE`` numbers
  at a time; ``dot`` turns to the next page (and from the last back to the first). The
  numbers stay the same on every page: a page only says which of them are shown.

Escape drops the entry, Backspace takes back the last key (or goes back a step). Only a
goal and a penalty complete by themselves on a timeout (or when another button starts an
entry): their button press already said what happened. Everything else that times out is
dropped, because guessing a shot's outcome, a clock value or a confirmation is never safe.
A list to pick from never times out (``WAITS``): reading twenty records takes longer than a
timeout, and a list that vanished unseen would leave the next digit to the wrong entry;
Escape closes it, another button replaces it. ``lapse`` says when the pending entry times
out and what it then does (the views count it down), ``lapsed`` what the last timeout did.

Commands carry the instant of the *button* press for what happened then (a goal, a
penalty, a shot); a confirmed action (set clock, end, next, undo, forfeit, cancel, correct)
happens at its confirming key. Pure: time comes in with every call, ``next_deadline`` tells
the loop when a timeout falls due.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .commands import (
    Cancel,
    Command,
    Correct,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    SetClock,
    Shot,
    Timeout,
    Undo,
)
from .phase import Team
from .preview import Preview
from .prompts import ENGLISH, Phrase, english, say
from .undo import UndoKind
from .units import Nanos, ceil_ms, seconds
from .values import MatchState

MAX_DIGITS = 2  # shirt numbers 0..99
CLOCK_DIGITS = 4  # mmss before the dot
DEFAULT_TIMEOUT = seconds(5)
RECENT = 20  # records the cancel list offers, newest first
PAGE = 9  # numbers a list shows at once: the menu's 18 on two pages (1-9, 10-18)

# The menu: every console action but the menu itself, numbered from 1 in this order; its
# labels are phrases (prompts.ENGLISH "menu.<id>"), worded by the shell.
MENU_IDS: tuple[str, ...] = (
    "start_stop", "horn", "goal_home", "goal_away", "penalty_home", "penalty_away",
    "timeout_home", "timeout_away", "shot_home", "shot_away", "set_clock", "end",
    "forfeit_home", "forfeit_away", "cancel", "next", "undo",
    # Added last: the numbers above are on the timekeepers' cards.
    "schedule",
)
MENU: tuple[tuple[str, str], ...] = tuple((i, ENGLISH[f"menu.{i}"]) for i in MENU_IDS)


class EntryWhat(StrEnum):
    GOAL = "goal"
    PENALTY = "penalty"
    SHOT = "shot"
    SET_CLOCK = "set_clock"
    END = "end"
    FORFEIT = "forfeit"
    NEXT = "next"
    UNDO = "undo"
    HORN = "horn"
    CANCEL = "cancel"
    MENU = "menu"
    SCHEDULE = "schedule"


class EntryStage(StrEnum):
    NUMBER = "number"  # a player's digits
    KIND = "kind"  # a penalty's kind
    OUTCOME = "outcome"  # a shot: scored or missed
    CLOCK = "clock"  # the clock value
    CONFIRM = "confirm"  # Enter confirms
    LIST = "list"  # cancel: which record
    RECORD = "record"  # cancel: Enter cancels it, a number corrects it
    CHOICE = "choice"  # the menu
    SOUNDING = "sounding"  # the horn, until a key
    MATCH = "match"  # schedule: which match
    HOME_TEAM = "home_team"  # schedule: the home team of a placeholder match
    AWAY_TEAM = "away_team"  # schedule: the away team of a placeholder match
    PREVIEW = "preview"  # a correction's consequences: Enter gives it


# The lists to pick from: no timeout while one is shown, and ``dot`` turns their pages.
WAITS = frozenset({EntryStage.LIST, EntryStage.CHOICE, EntryStage.MATCH,
                   EntryStage.HOME_TEAM, EntryStage.AWAY_TEAM})


@dataclass(frozen=True, slots=True)
class StartStop:
    """START/STOP chosen from the menu: which it is, the console asks the match
    (``Match.start_stop``), as for the button."""

    at: Nanos


@dataclass(frozen=True, slots=True)
class ScheduledChoice:
    """One of this hall's remaining matches, as the schedule entry lists it."""

    match: str
    label: str  # "A3 Lions - Bears 10:30", placeholders marked
    open_sides: tuple[bool, bool] = (False, False)  # home, away: a placeholder, not a team


@dataclass(frozen=True, slots=True)
class PickMatch:
    """The timekeeper picked the next match from the schedule; ``home``/``away``: a team
    chosen for a placeholder side (None: as the schedule names it). The shell loads it."""

    at: Nanos
    match: str
    home: str | None = None
    away: str | None = None

    name = "next_match"

    def to_json(self) -> dict[str, Any]:
        return {"do": self.name, "match": self.match, "home": self.home, "away": self.away}


Output = Command | StartStop | PickMatch


@dataclass(frozen=True, slots=True)
class Record:
    """A goal or penalty on the record, as the cancel list shows it."""

    seq: int
    what: str  # "goal", "penalty" or "set_clock" (a clock correction: no team, no player)
    team: Team | None
    player: int | None
    kind: str | None  # a penalty's kind
    period: int
    clock_ms: int

    def label(self) -> str:
        return english(self.phrase())

    def phrase(self, *, upper: bool = False) -> Phrase:
        """``goal home #12 P2 12:34`` (``upper``: in capitals, as a prompt's head)."""
        total = (self.clock_ms + 999) // 1000
        what = say(f"{'what' if upper else 'record.what'}.{self.what}")
        if self.team is None:
            return say("record.clock", what=what, period=self.period,
                       time=f"{total // 60}:{total % 60:02d}")
        side = say(f"{'team' if upper else 'side'}.{self.team.value}")
        fields: dict[str, str | int | Phrase] = {
            "what": what, "side": side, "period": self.period,
            "player": f"#{self.player}" if self.player is not None else "#?",
            "time": f"{total // 60}:{total % 60:02d}"}
        if self.kind:
            return say("record.kind", kind=self.kind.upper() if upper else self.kind, **fields)
        return say("record", **fields)


def records_of(state: MatchState) -> tuple[Record, ...]:
    """The goals, penalties and clock corrections cancel may pick, newest first (cancelled
    ones are gone; a correction only while its phase lasts, as undo's)."""
    out = [Record(g.seq, "goal", g.team, g.player, None, g.period, g.clock_ms)
           for g in state.goals]
    out += [Record(p.seq, "penalty", p.team, p.player, p.kind.name, p.period, p.clock_ms)
            for p in state.box]
    for e in state.undo:
        if e.kind is UndoKind.SET_CLOCK and e.epoch == state.epoch and e.before is not None:
            set_to = ceil_ms(max(0, e.before.clock.remaining(e.at) + e.delta))
            out.append(Record(e.seq, "set_clock", None, None, None, e.before.period, set_to))
    return tuple(sorted(out, key=lambda r: -r.seq)[:RECENT])


@dataclass(frozen=True, slots=True)
class Entry:
    what: EntryWhat
    team: Team | None
    at: Nanos  # the button press: the instant of what happened
    deadline: Nanos  # a timeout completes or drops the entry
    digits: str = ""  # a player's number, or the clock value
    stage: EntryStage = EntryStage.NUMBER
    choice: str = ""  # digits of a numbered choice (kind, record, menu item)
    coincidental: bool = False
    record: Record | None = None  # cancel: the record picked
    picked: ScheduledChoice | None = None  # schedule: the match picked
    home_team: str | None = None  # schedule: the home team chosen (None: as shown)
    page: int = 0  # a list's page shown (``PAGE`` numbers each)
    command: Command | None = None  # preview: the correction waiting for its Enter
    preview: Preview | None = None  # preview: what it will do beyond itself
    back: EntryStage | None = None  # preview: the stage Backspace goes back to


@dataclass(frozen=True, slots=True)
class Lapse:
    """An entry's timeout: the entry (``what``, ``team``), the instant it falls due (or fell),
    and what it does then: ``entered`` (a goal, a penalty: as typed), else dropped (the
    horn from the menu: switched off)."""

    what: EntryWhat
    team: Team | None
    at: Nanos
    entered: bool


_TEAMED = {"goal": EntryWhat.GOAL, "penalty": EntryWhat.PENALTY, "shot": EntryWhat.SHOT,
           "forfeit": EntryWhat.FORFEIT}
_CONFIRMS = {"end": EntryWhat.END, "next": EntryWhat.NEXT, "undo": EntryWhat.UNDO}
_FIRST_STAGE = {EntryWhat.GOAL: EntryStage.NUMBER, EntryWhat.PENALTY: EntryStage.NUMBER,
                EntryWhat.SHOT: EntryStage.NUMBER, EntryWhat.SET_CLOCK: EntryStage.CLOCK,
                EntryWhat.END: EntryStage.CONFIRM, EntryWhat.FORFEIT: EntryStage.CONFIRM,
                EntryWhat.NEXT: EntryStage.CONFIRM, EntryWhat.UNDO: EntryStage.CONFIRM,
                EntryWhat.HORN: EntryStage.SOUNDING, EntryWhat.CANCEL: EntryStage.LIST,
                EntryWhat.MENU: EntryStage.CHOICE, EntryWhat.SCHEDULE: EntryStage.MATCH}


def _pick(typed: str, count: int) -> tuple[bool, int | None]:
    """A numbered choice 1..count typed so far: (acceptable so far, the number if no other
    number could follow). With ten or more choices "1" waits: it may become "12"."""
    if not typed or not any(str(n).startswith(typed) for n in range(1, count + 1)):
        return False, None
    n = int(typed)
    longer = any(str(m).startswith(typed) and m != n for m in range(1, count + 1))
    return True, (n if 1 <= n <= count and not longer else None)


def clock_ms(text: str) -> int | None:
    """The microwave value: ``"1200"`` 12:00, ``"45"`` 0:45, ``"1234.5"`` 12:34.5 (ms)."""
    head, _, tenths = text.partition(".")
    if not head and not tenths:
        return None
    minutes, secs = int(head[:-2] or 0), int(head[-2:] or 0)
    return (minutes * 60 + secs) * 1000 + int(tenths or 0) * 100


def _clock_text(text: str) -> str:
    value = clock_ms(text)
    if value is None:
        return "_:__._"
    total, tenth = divmod(value, 1000)
    return f"{total // 60}:{total % 60:02d}.{tenth // 100}"


class KeypadEntry:
    def __init__(self, kinds: list[str], *, timeout: Nanos = DEFAULT_TIMEOUT,
                 forfeit_goals: int = 5) -> None:
        self.kinds = kinds  # the preset's penalty kinds, in order: 1 is the first
        # The preset's [forfeit] goals: what FORFEIT's confirmation says the loser loses by.
        self.forfeit_goals = forfeit_goals
        self.timeout = timeout
        self.pending: Entry | None = None
        # The console refreshes these from the match before each key: what cancel offers.
        self.records: tuple[Record, ...] = ()
        # The shell refreshes these from the local schedule (empty without one).
        self.schedule: tuple[ScheduledChoice, ...] = ()
        self.teams: tuple[str, ...] = ()  # the tournament's teams, in file order
        self.lapsed: Lapse | None = None  # the last entry that timed out (the views say so)
        # What a correction would do beyond itself if given now (the console asks the match
        # through ``preview.foresee``); None: nothing is previewed, every Enter gives it.
        self.foresee: Foresee = None

    # ---------------------------------------------------------------- starting

    def begin(self, what: EntryWhat, team: Team | None, at: Nanos) -> list[Output]:
        """Start an entry; a pending one is completed first (a goal, a penalty) or dropped.
        The horn from the menu sounds at once."""
        done = self._interrupt(at)
        stage = _FIRST_STAGE[what]
        self.pending = Entry(what, team, at, at + self.timeout, stage=stage)
        if what is EntryWhat.HORN:
            done.append(Horn(at, on=True))
        return done

    def choose(self, action: str, at: Nanos) -> list[Output]:
        """What a console action means on the keypad: START/STOP and a time-out act at once,
        everything else starts its entry (``menu`` the menu)."""
        kind, _, side = action.partition("_")
        team = Team(side) if side in ("home", "away") else None
        if action == "start_stop":
            return [*self._interrupt(at), StartStop(at)]
        if kind == "timeout" and team is not None:
            return [*self._interrupt(at), Timeout(at, team)]
        if kind in _TEAMED and team is not None:
            return self.begin(_TEAMED[kind], team, at)
        if action in _CONFIRMS:
            return self.begin(_CONFIRMS[action], None, at)
        if action in ("set_clock", "horn", "cancel", "menu", "schedule"):
            return self.begin(EntryWhat(action), None, at)
        raise ValueError(f"unknown console action {action!r}")

    # ---------------------------------------------------------------- keys

    def key(self, name: str, now: Nanos) -> list[Output]:
        entry = self.pending
        if entry is None:
            return []  # a stray key with nothing to complete
        if entry.stage is EntryStage.SOUNDING:
            self.pending = None
            return [Horn(now, on=False)]  # any key stops the horn
        if name == "escape":
            self.pending = None
            return []
        self.pending = entry = replace(entry, deadline=now + self.timeout)
        if name == "dot" and entry.what is EntryWhat.PENALTY:
            self.pending = replace(entry, coincidental=not entry.coincidental)
            return []
        if name == "dot" and entry.stage in WAITS:
            count = {EntryStage.LIST: len(self.records), EntryStage.CHOICE: len(MENU),
                     EntryStage.MATCH: len(self.schedule)}.get(entry.stage, len(self.teams))
            self.pending = replace(entry, page=(entry.page + 1) % _pages(entry.choice, count))
            return []
        handler = {
            EntryStage.NUMBER: self._number, EntryStage.KIND: self._kind,
            EntryStage.OUTCOME: self._outcome, EntryStage.CLOCK: self._clock,
            EntryStage.CONFIRM: self._confirm, EntryStage.LIST: self._list,
            EntryStage.RECORD: self._record, EntryStage.CHOICE: self._choice,
            EntryStage.MATCH: self._match, EntryStage.HOME_TEAM: self._team,
            EntryStage.AWAY_TEAM: self._team, EntryStage.PREVIEW: self._preview,
        }[entry.stage]
        return handler(entry, name, now)

    def _digit(self, entry: Entry, name: str) -> bool:
        """A digit typed into a player's number (at most two)."""
        if name.isdigit() and len(name) == 1:
            if len(entry.digits) < MAX_DIGITS:
                self.pending = replace(entry, digits=entry.digits + name)
            return True
        if name == "backspace":
            self.pending = replace(entry, digits=entry.digits[:-1])
            return True
        return False

    def _number(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        if self._digit(entry, name) or name != "enter":
            return []
        if entry.what is EntryWhat.PENALTY and len(self.kinds) > 1:
            self.pending = replace(entry, stage=EntryStage.KIND)
            return []
        if entry.what is EntryWhat.SHOT:
            self.pending = replace(entry, stage=EntryStage.OUTCOME)
            return []
        return self._complete()

    def _choose_digit(self, entry: Entry, name: str, count: int) -> int | None:
        """A digit (or backspace) typed into a numbered choice: the number once complete."""
        if name == "backspace":
            self.pending = replace(entry, choice=entry.choice[:-1], page=0)
            return None
        if not (name.isdigit() and len(name) == 1):
            return None
        fits, chosen = _pick(entry.choice + name, count)
        if fits:
            self.pending = replace(entry, choice=entry.choice + name, page=0)
        return chosen

    def _typed_choice(self, entry: Entry, count: int) -> int | None:
        n = int(entry.choice) if entry.choice else None
        return n if n is not None and 1 <= n <= count else None

    def _kind(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        if name == "backspace" and not entry.choice:
            self.pending = replace(entry, stage=EntryStage.NUMBER)  # back to the number
            return []
        if name == "enter":
            return self._complete()
        chosen = self._choose_digit(entry, name, len(self.kinds))
        return self._complete(kind=self.kinds[chosen - 1]) if chosen is not None else []

    def _outcome(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        if name == "backspace":
            self.pending = replace(entry, stage=EntryStage.NUMBER)
            return []
        if name in ("1", "enter", "0"):
            assert entry.team is not None
            self.pending = None
            player = int(entry.digits) if entry.digits else None
            return [Shot(entry.at, entry.team, scored=name != "0", player=player)]
        return []

    def _clock(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        text = entry.digits
        head, dot, tenths = text.partition(".")
        if name.isdigit() and len(name) == 1:
            if (dot and not tenths) or (not dot and len(head) < CLOCK_DIGITS):
                self.pending = replace(entry, digits=text + name)
        elif name == "dot" and not dot:
            self.pending = replace(entry, digits=text + ".")
        elif name == "backspace":
            self.pending = replace(entry, digits=text[:-1])
        elif name == "enter":
            value = clock_ms(text)
            if value is not None:
                return self._offer(entry, SetClock(now, value))
        return []

    def _confirm(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        if name != "enter":
            return []  # only Enter confirms (Escape drops); a stray digit does nothing
        if entry.what is EntryWhat.UNDO:
            return self._offer(entry, Undo(now))
        self.pending = None
        if entry.what is EntryWhat.FORFEIT:
            assert entry.team is not None
            return [Forfeit(now, entry.team)]
        return [{EntryWhat.END: End, EntryWhat.NEXT: Next, EntryWhat.UNDO: Undo}[entry.what](now)]

    def _list(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        records = self.records
        chosen = self._typed_choice(entry, len(records)) if name == "enter" else \
            self._choose_digit(entry, name, len(records))
        if chosen is not None:
            self.pending = replace(entry, stage=EntryStage.RECORD, record=records[chosen - 1],
                                   choice=str(chosen))
        return []

    def _record(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        assert entry.record is not None
        if name == "backspace" and not entry.digits:
            self.pending = replace(entry, stage=EntryStage.LIST, record=None, choice="")
            return []
        if entry.record.team is None and name != "enter":
            return []  # a clock correction has no number to correct: Enter cancels it
        if self._digit(entry, name) or name != "enter":
            return []
        if entry.digits:
            self.pending = None
            return [Correct(now, entry.record.seq, int(entry.digits))]
        return self._offer(entry, Cancel(now, entry.record.seq))

    def _offer(self, entry: Entry, command: Command) -> list[Output]:
        self.pending, out = _offered(self.foresee, entry, command)
        return out

    def _preview(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        self.pending, out = _previewed(self.foresee, entry, name, now)
        return out

    def _choice(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        chosen = self._typed_choice(entry, len(MENU)) if name == "enter" else \
            self._choose_digit(entry, name, len(MENU))
        if chosen is None:
            return []
        self.pending = None
        return self.choose(MENU[chosen - 1][0], now)

    def _match(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        choices = self.schedule
        if name != "enter":
            self._choose_digit(entry, name, len(choices))
            return []  # only Enter loads a match: a digit may be the first of two
        chosen = self._typed_choice(entry, len(choices))
        if chosen is None:
            return []
        picked = choices[chosen - 1]
        if any(picked.open_sides):
            first = EntryStage.HOME_TEAM if picked.open_sides[0] else EntryStage.AWAY_TEAM
            self.pending = replace(entry, stage=first, picked=picked, choice="")
            return []
        self.pending = None
        return [PickMatch(now, picked.match)]

    def _team(self, entry: Entry, name: str, now: Nanos) -> list[Output]:
        picked = entry.picked
        assert picked is not None
        home = entry.stage is EntryStage.HOME_TEAM
        if name == "backspace" and not entry.choice:
            back = EntryStage.HOME_TEAM if not home and picked.open_sides[0] else \
                EntryStage.MATCH
            self.pending = replace(entry, stage=back, home_team=None, picked=None
                                   if back is EntryStage.MATCH else picked)
            return []
        if name != "enter":
            self._choose_digit(entry, name, len(self.teams))
            return []
        if entry.choice and self._typed_choice(entry, len(self.teams)) is None:
            return []
        typed = self._typed_choice(entry, len(self.teams))
        team = self.teams[typed - 1] if typed is not None else None
        if home and picked.open_sides[1]:
            self.pending = replace(entry, stage=EntryStage.AWAY_TEAM, home_team=team,
                                   choice="")
            return []
        self.pending = None
        if home:
            return [PickMatch(now, picked.match, home=team)]
        return [PickMatch(now, picked.match, home=entry.home_team, away=team)]

    # ---------------------------------------------------------------- time

    def poll(self, now: Nanos) -> list[Output]:
        """Complete (a goal, a penalty), stop (the horn) or drop an entry whose timeout
        has passed (``lapsed`` then says which); a list waits for its key."""
        lapse = self.lapse()
        if lapse is not None and now >= lapse.at:
            self.lapsed = lapse
            return self._interrupt(lapse.at)
        return []

    def next_deadline(self) -> Nanos | None:
        lapse = self.lapse()
        return lapse.at if lapse is not None else None

    def lapse(self) -> Lapse | None:
        """When the pending entry times out and what it then does; None with no entry, or
        while a list waits for its key (``WAITS``)."""
        entry = self.pending
        if entry is None or entry.stage in WAITS:
            return None
        return Lapse(entry.what, entry.team, entry.deadline,
                     entry.what in (EntryWhat.GOAL, EntryWhat.PENALTY))

    def _interrupt(self, at: Nanos) -> list[Output]:
        """The pending entry ends unfinished at ``at``: what it can complete, it does."""
        entry = self.pending
        if entry is None:
            return []
        if entry.what in (EntryWhat.GOAL, EntryWhat.PENALTY):
            return self._complete()
        self.pending = None
        return [Horn(at, on=False)] if entry.what is EntryWhat.HORN else []

    def _complete(self, *, kind: str | None = None) -> list[Output]:
        entry = self.pending
        assert entry is not None and entry.team is not None
        self.pending = None
        player = int(entry.digits) if entry.digits else None
        if entry.what is EntryWhat.GOAL:
            return [Goal(entry.at, entry.team, player)]
        if not self.kinds:
            return []  # the rules have no timed penalties; the core would refuse it anyway
        if kind is None:
            typed = self._typed_choice(entry, len(self.kinds))
            kind = self.kinds[typed - 1] if typed is not None else self.kinds[0]
        # A penalty always names a player; 0 stands for "not entered" (a bench penalty).
        return [Penalty(entry.at, entry.team, player or 0, kind,
                        coincidental=entry.coincidental)]

    # ---------------------------------------------------------------- what the views show

    def describe(self) -> dict[str, Any] | None:
        """The pending entry for the operator line and view (state document ``entry``,
        docs/developer.md 4.3): what, team, player, stage (and a penalty's kinds) as before;
        ``prompt``, ``typed`` and ``keys`` ([key, what it does next], numbered choices as their
        numbers) so any view can show what each key will do."""
        entry = self.pending
        if entry is None:
            return None
        numbered = entry.stage in (EntryStage.NUMBER, EntryStage.KIND, EntryStage.OUTCOME,
                                   EntryStage.RECORD)
        out: dict[str, Any] = {"what": entry.what.value,
                               "team": entry.team.value if entry.team else None,
                               "player": (entry.digits or None) if numbered else None,
                               "stage": entry.stage.value}
        if entry.what is EntryWhat.PENALTY:
            out["kinds"] = [f"{i} {k}" for i, k in enumerate(self.kinds, start=1)]
            out["coincidental"] = entry.coincidental
        prompt, typed, keys = _explain(self, entry)
        # English as before (docs/developer.md 4.3); ``say``: the same as phrases, for the shell to
        # word in the hall's language (arena/core/prompts.py).
        out.update(prompt=english(prompt), typed=typed,
                   keys=[[k, english(does)] for k, does in keys],
                   say={"prompt": prompt.to_json(),
                        "keys": [[k, does.to_json()] for k, does in keys]})
        return out


def _explain(self: KeypadEntry, e: Entry) -> tuple[Phrase, str, list[tuple[str, Phrase]]]:
    """What the pending entry asks, what was typed and what each key does next (a
    function of the keypad, not a method: the class keeps to its size)."""
    what = say(f"what.{e.what.value}")
    team = say(f"team.{e.team.value}") if e.team else None
    head = say("head", what=what) if team is None else \
        say("head.coincidental" if e.coincidental else "head.team", what=what, team=team)
    number = say("number", n=e.digits) if e.digits else say("no_number")
    erase = ("backspace", say("key.erase"))
    drop = ("escape", say("key.cancel"))
    stage = e.stage
    flag = ("dot", say("key.coincidental_off" if e.coincidental else "key.coincidental_on"))
    if stage is EntryStage.NUMBER:
        who = {EntryWhat.GOAL: "scorer", EntryWhat.SHOT: "shooter"}.get(e.what, "player")
        prompt = say(f"prompt.{who}", head=head)
        if e.what is EntryWhat.PENALTY:
            nxt = say("key.choose_kind") if len(self.kinds) > 1 else \
                say("key.penalty", kind=self.kinds[0] if self.kinds else "penalty",
                    number=number)
            return (prompt, e.digits,
                    [("0-9", say(f"key.{who}")), flag, ("enter", nxt), erase, drop])
        nxt = say("key.scored_or_missed") if e.what is EntryWhat.SHOT else \
            say("key.goal", number=number) if e.digits else say("key.goal_no_scorer")
        return prompt, e.digits, [("0-9", say(f"key.{who}")), ("enter", nxt), erase, drop]
    if stage is EntryStage.KIND:
        listed = _numbered(e.choice, [say("key.kind", kind=k) for k in self.kinds])
        typed = self._typed_choice(e, len(self.kinds))
        default = say("key.kind", kind=self.kinds[typed - 1 if typed else 0])
        return (say("prompt.kind", head=head, number=number), e.choice,
                [*listed, ("enter", default), flag,
                 ("backspace", say("key.erase" if e.choice else "key.back_to_number")),
                 drop])
    if stage is EntryStage.OUTCOME:
        return (say("prompt.outcome", head=head, number=number), "",
                [("1", say("key.scored")), ("0", say("key.missed")),
                 ("enter", say("key.scored")), ("backspace", say("key.back_to_shooter")),
                 drop])
    if stage is EntryStage.CLOCK:
        shown = _clock_text(e.digits)
        return (say("prompt.clock"), shown if e.digits else "",
                [("0-9", say("key.digits")), ("dot", say("key.tenths")),
                 ("enter", say("key.set_clock", time=shown) if e.digits
                  else say("key.type_time")),
                 erase, drop])
    if stage is EntryStage.CONFIRM:
        side = say(f"side.{e.team.value}") if e.team else ""
        does = {EntryWhat.END: say("key.end"), EntryWhat.NEXT: say("key.next"),
                EntryWhat.UNDO: say("key.undo"),
                EntryWhat.FORFEIT: say("key.forfeit", side=side,
                                       score=f"0:{self.forfeit_goals}")}
        return say("prompt.confirm", head=head), "", [("enter", does[e.what]), drop]
    if stage is EntryStage.LIST:
        listed = _paged(e, [r.phrase() for r in self.records])
        enter = [("enter", say("key.pick"))] if self._typed_choice(
            e, len(self.records)) else []
        prompt = say("prompt.records" if self.records else "prompt.no_records")
        return prompt, e.choice, [*listed, *enter, erase, drop]
    if stage is EntryStage.RECORD:
        assert e.record is not None
        act = say("key.correct", n=e.digits) if e.digits else say("key.cancel_record")
        if e.record.team is None:
            return (say("prompt.record_clock", record=e.record.phrase(upper=True)), "",
                    [("enter", say("key.cancel_record")),
                     ("backspace", say("key.back_to_list")), drop])
        return (say("prompt.record", record=e.record.phrase(upper=True)), e.digits,
                [("enter", act), ("0-9", say("key.new_number")),
                 ("backspace", say("key.erase" if e.digits else "key.back_to_list")),
                 drop])
    if stage is EntryStage.CHOICE:
        listed = _paged(e, [say(f"menu.{i}") for i in MENU_IDS])
        enter = [("enter", say("key.pick"))] if self._typed_choice(e, len(MENU)) else []
        return say("prompt.menu"), e.choice, [*listed, *enter, erase, drop]
    if stage is EntryStage.MATCH:
        listed = _paged(e, [say("key.as_shown", name=c.label)
                                 for c in self.schedule])
        enter = [("enter", say("key.load"))] if self._typed_choice(
            e, len(self.schedule)) else []
        prompt = say("prompt.matches" if self.schedule else "prompt.no_matches")
        return prompt, e.choice, [*listed, *enter, erase, drop]
    if stage in (EntryStage.HOME_TEAM, EntryStage.AWAY_TEAM):
        assert e.picked is not None
        side = "home" if stage is EntryStage.HOME_TEAM else "away"
        listed = _paged(e, [say("key.as_shown", name=t) for t in self.teams])
        typed = self._typed_choice(e, len(self.teams))
        keep = say("key.as_shown", name=self.teams[typed - 1]) if typed else \
            say("key.keep_name")
        return (say("prompt.team", match=e.picked.match, side=say(f"side.{side}")),
                e.choice, [*listed, ("enter", keep),
                           ("backspace", say("key.erase" if e.choice else "key.back")),
                           drop])
    if stage is EntryStage.PREVIEW:
        return _explain_preview(e, head, drop)
    return say("prompt.horn"), "", [("any", say("key.horn_off"))]


def _numbered(typed: str, labels: Sequence[Phrase]) -> list[tuple[str, Phrase]]:
    """The numbered choices still reachable from what was typed."""
    return [(str(n), label) for n, label in enumerate(labels, start=1)
            if str(n).startswith(typed)]


def _pages(typed: str, count: int) -> int:
    """How many pages a list of ``count`` numbers fills, of those still reachable from
    what was typed (at least one)."""
    left = sum(1 for n in range(1, count + 1) if str(n).startswith(typed))
    return max(1, -(-left // PAGE))


def _paged(e: Entry, labels: Sequence[Phrase]) -> list[tuple[str, Phrase]]:
    """A list's page of the numbered choices still reachable, and while there are more
    pages, ``dot`` for the next (its words say which page this is)."""
    listed = _numbered(e.choice, labels)
    pages = _pages(e.choice, len(labels))
    if pages == 1:
        return listed
    page = e.page % pages
    return [*listed[page * PAGE:(page + 1) * PAGE],
            ("dot", say("key.more", page=page + 1, pages=pages))]


Foresee = Callable[[Command], Preview] | None


def _offered(foresee: Foresee, entry: Entry, command: Command
             ) -> tuple[Entry | None, list[Output]]:
    """Give a correction at once (no entry pending), or first show what it will do beyond
    itself (the entry at its preview)."""
    preview = foresee(command) if foresee is not None else None
    if preview:
        return replace(entry, stage=EntryStage.PREVIEW, command=command, preview=preview,
                       back=entry.stage), []
    return None, [command]


def _previewed(foresee: Foresee, entry: Entry, name: str, now: Nanos
               ) -> tuple[Entry | None, list[Output]]:
    """A key at the preview: Enter gives it, Backspace goes back a step."""
    assert entry.command is not None and entry.back is not None
    if name == "backspace":
        return replace(entry, stage=entry.back, command=None, preview=None, back=None), []
    if name != "enter":
        return entry, []  # only Enter gives it; a stray digit does nothing
    # It happens at this Enter: what it does then is what was shown, or it is shown anew.
    command = replace(entry.command, at=now)
    preview = foresee(command) if foresee is not None else entry.preview
    if preview and preview != entry.preview:
        return replace(entry, command=command, preview=preview), []
    return None, [command]


def _explain_preview(e: Entry, head: Phrase, drop: tuple[str, Phrase]
                     ) -> tuple[Phrase, str, list[tuple[str, Phrase]]]:
    assert e.preview is not None and e.command is not None
    act = say("key.cancel_record") if isinstance(e.command, Cancel) else \
        say("key.undo") if isinstance(e.command, Undo) else \
        say("key.set_clock", time=_clock_text(e.digits))
    if e.record is not None:
        head = e.record.phrase(upper=True)
    return (say("prompt.preview", head=head, does=e.preview.phrase()), "",
            [("enter", say("key.confirm", does=act)), ("backspace", say("key.back")), drop])
