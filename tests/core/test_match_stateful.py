"""Stateful property tests of the match core: random presses at random instants.

A hypothesis state machine drives ``Match`` the way the shell does (every command through
``feed``, via the ``Recorder``, time passing through ``advance``) with every bundled preset in
both stages, and checks after every step the invariants the issue tracker asks for:

- the clock never shows negative time, never counts up within one phase (unless a correction
  or an undo says so), and within one state ``remaining`` never rises with the instant;
- the score changes only by an accepted goal (+1) or the undo of a goal (-1);
- event ``seq`` is gapless from 1, event ``at`` never goes back (and never lies ahead of the
  latest instant the match was told about);
- a refused command changes nothing but what letting time pass to its instant changed;
- after ``feed``/``advance`` nothing that falls due is left behind, and what ``advance`` lets
  fall due is stamped with its deadline, not with the instant the loop noticed it;
- replaying the journalled inputs (accepted commands, and advances that emitted events) gives
  the same state and the same events, both by hand and through ``Recorder.resume``;
- the state document has the keys of docs/developer.md 4.3, ``clock_ms >= 0``, a known phase, and a
  result exactly in ``final`` (the score, or 0 : the preset's forfeit goals for a forfeit).

Time moves in small steps, to (or 1 ns / 1 ms around) the next deadline, and by minutes;
presses come now, ahead, around a deadline, and late (before the latest advance or even the
latest event, as a press queued while a period ended). A separate test checks that one big
``advance`` equals many small ones; two plain tests keep the examples the machine found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from arena import presets
from arena.core.commands import (
    Command,
    End,
    Forfeit,
    Goal,
    Horn,
    Next,
    Penalty,
    SetClock,
    Shot,
    Start,
    Stop,
    Timeout,
    Undo,
)
from arena.core.errors import Refused
from arena.core.events import Event
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage, Team
from arena.core.preset import Preset
from arena.core.state import state_document
from arena.core.undo import UndoKind
from arena.core.units import NS_PER_MS, Nanos, ms, seconds
from arena.core.values import DecidedBy, MatchSetup, MatchState
from firmware_py.journal import Journal, Record
from firmware_py.recorder import Recorder

PRESET_NAMES = presets.names()
BASE: Nanos = seconds(1000)  # monotonic time is arbitrary; start well above zero

# docs/developer.md 4.3, without "t" (replay only).
DOCUMENT_KEYS = frozenset({
    "preset", "stage", "match", "teams", "phase", "period", "clock_ms", "running",
    "stop_time", "horn", "score", "penalties", "strength", "shift_ms", "timeout", "shootout",
    "extra_player", "result",
})
DOCUMENT_PHASES = frozenset({
    "pregame", "period", "intermission", "overtime_break", "overtime", "shootout", "final",
})
DECIDED_BY = frozenset({"regulation", "overtime", "shootout", "forfeit"})

# ---------------------------------------------------------------- strategies

teams = st.sampled_from([Team.HOME, Team.AWAY])
players = st.none() | st.integers(0, 99)
# Around a deadline: exactly at it, one nanosecond or one millisecond either side.
near = st.sampled_from([-ms(1), -1, 0, 1, ms(1)])
small_ns = st.integers(1, 3000).map(ms) | st.integers(1, ms(3000))

# When a press happens, relative to what the match has seen.
TimeSpec = tuple[str, int]
time_specs: st.SearchStrategy[TimeSpec] = st.one_of(
    st.tuples(st.just("now"), st.just(0)),
    st.tuples(st.just("ahead"), small_ns),
    st.tuples(st.just("ahead"), small_ns),
    # processed late: the press happened before the latest advance
    st.tuples(st.just("late"), st.integers(1, 2000).map(ms) | st.integers(1, ms(2000))),
    st.tuples(st.just("deadline"), near),
    # around the latest event, possibly before it (a press queued while a period ended)
    st.tuples(st.just("last_event"), st.integers(-ms(2000), ms(10))),
)
# set_clock values: zero, a share (per mille) of what the period or break lasts, just over
# it (refused), or any number of milliseconds.
ClockSpec = tuple[str, int]
clock_specs: st.SearchStrategy[ClockSpec] = st.one_of(
    st.tuples(st.just("zero"), st.just(0)),
    st.tuples(st.just("permille"), st.integers(0, 1000)),
    st.tuples(st.just("over"), st.integers(1, 1000)),
    st.tuples(st.just("ms"), st.integers(0, 2_000_000)),
)
# Presses that are rare at the table (forfeit ends the match, so it must not dominate) or that
# the first version of the core refused (penalty, timeout, shot outside a shootout).
rare_kinds = st.sampled_from(["horn_on", "horn_off", "forfeit", "penalty", "timeout", "shot"])
preset_names = st.sampled_from(PRESET_NAMES)
stages = st.sampled_from(list(Stage))
# Mostly start the clock at once: a run that never presses start stays in pregame.
kick_offs = st.sampled_from([True, True, True, False])


def _unsupported(kind: str, at: Nanos, team: Team) -> Command:
    if kind == "penalty":
        return Penalty(at, team, 7, "minor")
    if kind == "timeout":
        return Timeout(at, team)
    return Shot(at, team, True)


@cache
def _preset_toml(name: str) -> str:
    return resources.files("arena.presets").joinpath(f"{name}.toml").read_text("utf-8")


@cache
def _preset(name: str) -> Preset:
    return presets.load(name)


def _json(events: list[Event]) -> list[dict[str, Any]]:
    return [e.to_json() for e in events]


def _roundtrip(record: Record) -> Record:
    return cast(Record, json.loads(json.dumps(record)))


class MemoryJournal:
    """Stands in for ``Journal``: keeps the records as a file would hold them (JSON)."""

    path = "memory-journal"

    def __init__(self) -> None:
        self.records: list[Record] = []

    def append(self, *records: Record) -> None:
        self.records += [_roundtrip(r) for r in records]


@dataclass(frozen=True, slots=True)
class ClockSeen:
    """One observation of the clock: in which phase/period/epoch, when, how much was left."""

    key: tuple[Phase, int, int]
    at: Nanos
    remaining: Nanos


# An input as the recorder journals it: ("command", at, command) or ("advance", at, None).
Input = tuple[str, Nanos, Command | None]


# ---------------------------------------------------------------- checks shared by both tests


def check_clock_within_state(state: MatchState, instants: list[Nanos]) -> None:
    """One state's clock: never negative, never rising as the instant grows."""
    points = sorted({t for t in instants if t >= 0})
    values = [state.clock.remaining(t) for t in points]
    assert all(v >= 0 for v in values), (points, values)
    for i in range(1, len(points)):
        assert values[i] <= values[i - 1], (
            f"remaining rose from {values[i - 1]} at {points[i - 1]} to {values[i]} at {points[i]}"
        )


def check_result(state: MatchState, forfeit_goals: int) -> None:
    if state.phase is not Phase.FINAL:
        assert state.result is None, state
        return
    assert state.result is not None, state
    decided_by = state.result.decided_by
    if decided_by is DecidedBy.FORFEIT:
        assert state.forfeit is not None
        expected = {state.forfeit: 0, state.forfeit.other: forfeit_goals}
    elif decided_by in (DecidedBy.REGULATION, DecidedBy.OVERTIME):
        expected = state.score()
    else:
        # A shootout adds only the decisive goal to the tie (docs/developer.md 4.3).
        score = state.score()
        assert score[Team.HOME] == score[Team.AWAY], f"a shootout after {score}"
        winner = Team.HOME if state.result.home > state.result.away else Team.AWAY
        expected = {**score, winner: score[winner] + 1}
    assert (state.result.home, state.result.away) == (expected[Team.HOME], expected[Team.AWAY]), (
        f"result {state.result} is not the {decided_by.value} score {expected}"
    )


def check_document(match: Match, now: Nanos) -> None:
    doc = state_document(match, now)
    json.dumps(doc)  # it is JSON as it is
    missing = DOCUMENT_KEYS - set(doc)
    assert not missing, f"state document lacks {sorted(missing)}"
    assert isinstance(doc["clock_ms"], int) and doc["clock_ms"] >= 0, doc
    assert doc["phase"] in DOCUMENT_PHASES, doc
    assert (doc["result"] is not None) == (doc["phase"] == "final"), doc
    if doc["result"] is not None:
        assert doc["result"]["decided_by"] in DECIDED_BY, doc
    assert doc["score"] == {t.value: n for t, n in match.state.score().items()}


# ---------------------------------------------------------------- the state machine


class MatchMachine(RuleBasedStateMachine):
    preset: Preset
    setup: MatchSetup
    journal: MemoryJournal
    recorder: Recorder
    shadow: Match  # fed only the journalled inputs, as a replay after a crash would be
    shadow_events: list[Event]
    inputs: list[Input]
    events: list[Event]
    now: Nanos
    seen: ClockSeen | None
    steps: int

    @initialize(name=preset_names, stage=stages, kick_off=kick_offs)
    def begin(self, name: str, stage: Stage, kick_off: bool) -> None:
        self.now = BASE
        self.steps = 0
        self._new_match(name, stage, kick_off)

    @precondition(lambda self: self.match.state.phase in (Phase.FINAL, Phase.SHOOTOUT))
    @rule(name=preset_names, stage=stages, kick_off=kick_offs)
    def next_match(self, name: str, stage: Stage, kick_off: bool) -> None:
        """The match is over (or in a shootout, which may go on for a while): the hall plays
        the next one, so the rest of the run is not spent pressing buttons at a final score."""
        self._check_recorder()
        self._new_match(name, stage, kick_off)

    def _new_match(self, name: str, stage: Stage, kick_off: bool) -> None:
        self.setup = MatchSetup(match_id="P1", stage=stage)
        self.journal = MemoryJournal()
        self.recorder = Recorder.create(
            cast(Journal, self.journal), _preset_toml(name), f"{name}.toml", self.setup
        )
        self.preset = self.recorder.match.preset
        assert self.preset == _preset(name)
        self.shadow = Match(self.preset, self.setup)
        self.shadow_events = []
        self.inputs = []
        self.events = []
        self.seen = None
        self._observe_clock(None, None, resets=False)
        if kick_off:
            self._command(Start(self.now))

    @property
    def match(self) -> Match:
        return self.recorder.match

    # ------------------------------------------------------------ time

    def _instant(self, spec: TimeSpec) -> Nanos:
        mode, offset = spec
        if mode == "ahead":
            at = self.now + offset
        elif mode == "late":
            at = self.now - offset
        elif mode == "deadline":
            due = self.match.next_deadline()
            at = self.now if due is None else due + offset
        elif mode == "last_event":
            last = self.match.state.last_at
            at = self.now if last is None else last + offset
        else:
            at = self.now
        return max(0, at)

    @rule(step=st.integers(0, 5000).map(ms) | st.integers(0, ms(5000)))
    def advance_small(self, step: Nanos) -> None:
        self._advance(self.now + step)

    @rule(
        to_deadline=st.booleans(),
        offset=near,
        minutes=st.integers(1, 30),
        extra=st.integers(0, seconds(60)),
    )
    def advance_far(self, to_deadline: bool, offset: Nanos, minutes: int, extra: Nanos) -> None:
        """To just before, at or just after the next deadline, or minutes on."""
        due = self.match.next_deadline()
        if to_deadline and due is not None:
            self._advance(max(self.now, due + offset))
        else:
            self._advance(self.now + seconds(60 * minutes) + extra)

    # ------------------------------------------------------------ commands

    @rule(when=time_specs)
    def start(self, when: TimeSpec) -> None:
        self._command(Start(self._instant(when)))

    @rule(when=time_specs)
    def stop(self, when: TimeSpec) -> None:
        self._command(Stop(self._instant(when)))

    @rule(when=time_specs, team=teams, player=players)
    def goal(self, when: TimeSpec, team: Team, player: int | None) -> None:
        self._command(Goal(self._instant(when), team, player))

    @rule(when=time_specs, value=clock_specs)
    def set_clock(self, when: TimeSpec, value: ClockSpec) -> None:
        mode, amount = value
        full = self._full_length_ms()
        if mode == "permille":
            amount = full * amount // 1000
        elif mode == "over":
            amount = full + amount
        self._command(SetClock(self._instant(when), amount))

    @rule(when=time_specs, which=st.sampled_from(["end", "next"]))
    def end_or_next(self, when: TimeSpec, which: str) -> None:
        at = self._instant(when)
        self._command(End(at) if which == "end" else Next(at))

    @rule(when=time_specs)
    def undo(self, when: TimeSpec) -> None:
        self._command(Undo(self._instant(when)))

    @rule(when=time_specs, kind=rare_kinds, team=teams)
    def rare_press(self, when: TimeSpec, kind: str, team: Team) -> None:
        at = self._instant(when)
        if kind == "forfeit":
            self._command(Forfeit(at, team))
        elif kind.startswith("horn"):
            self._command(Horn(at, kind == "horn_on"))
        else:
            # Whether accepted or refused, the invariants hold.
            self._command(_unsupported(kind, at, team))

    @precondition(lambda self: self.match.state.phase is Phase.SHOOTOUT)
    @rule(when=time_specs, team=teams, scored=st.booleans())
    def shot(self, when: TimeSpec, team: Team, scored: bool) -> None:
        self._command(Shot(self._instant(when), team, scored))

    def _full_length_ms(self) -> int:
        """What the current period or break lasts in full, in ms (the set_clock limit)."""
        s, p = self.match.state, self.preset
        if s.phase is Phase.INTERMISSION:
            full = p.break_after(s.period - 1)
        elif s.phase is Phase.OVERTIME_BREAK:
            full = p.decision.overtime_break or 0
        elif s.phase is Phase.OVERTIME:
            full = p.decision.overtime or 0
        else:
            full = p.period_length
        return full // NS_PER_MS

    # ------------------------------------------------------------ stepping and checking

    def _advance(self, now: Nanos) -> None:
        before = self.match.state
        due_before = self.match.next_deadline()
        events = self.recorder.advance(now)
        self.now = max(self.now, now)
        if events:
            self._journalled(("advance", now, None))
            # What fell due happened at its deadline, however late the loop noticed (but never
            # before what had already happened).
            assert due_before is not None and due_before <= now, (due_before, now, events)
            last = before.last_at
            expected_at = due_before if last is None else max(due_before, last)
            assert events[0].at == expected_at, (
                f"advance({now}): {events[0].to_json()} is not stamped with its deadline "
                f"{expected_at}"
            )
        assert self.match.state.score() == before.score(), "time passing changed the score"
        assert self.match.state.goals == before.goals
        due = self.match.next_deadline()
        assert due is None or due > now, f"advance({now}) left a deadline at {due} behind"
        self._after(before, events, resets=False, late_at=None)

    def _command(self, command: Command) -> Refused | None:
        """Feed one command and check it; returns the refusal (or None)."""
        before = self.match.state
        # What time passing alone does: the yardstick of a refusal.
        twin = Match(self.preset, self.setup, state=before)
        twin_events = twin.advance(command.at)
        last = twin.state.last_at
        effective = command.at if last is None else max(command.at, last)

        fed = self.recorder.command(command)
        after = self.match.state
        self.now = max(self.now, command.at)

        if fed.refused is not None:
            assert after == twin.state, f"refused {command} changed the state"
            assert _json(fed.events) == _json(twin_events)
            if fed.events:
                self._journalled(("advance", command.at, None))
        else:
            if fed.events:
                self._journalled(("command", command.at, command))
            else:
                # The recorder journals nothing for it, so it must change nothing.
                assert after == twin.state, f"{command} emitted nothing yet changed the state"
            self._check_score(before, after, command)

        due = self.match.next_deadline()
        assert due is None or due > effective, (
            f"feed({command}) took effect at {effective} but left a deadline at {due} behind"
        )
        resets = fed.refused is None and isinstance(command, (SetClock, Undo))
        late_at = effective if fed.refused is None else None
        self._after(before, fed.events, resets=resets, late_at=late_at)
        return fed.refused

    def _check_score(self, before: MatchState, after: MatchState, command: Command) -> None:
        expected = dict(before.score())
        goals = before.goals
        if isinstance(command, Goal):
            expected[command.team] += 1
            assert after.goals[:-1] == before.goals and after.goals[-1].team is command.team
            goals = after.goals
        elif isinstance(command, Undo):
            top = before.undo[-1]
            if top.kind is UndoKind.GOAL:
                undone = next(g for g in before.goals if g.seq == top.seq)
                expected[undone.team] -= 1
                goals = tuple(g for g in before.goals if g.seq != top.seq)
        assert after.score() == expected, (
            f"{command} moved the score from {before.score()} to {after.score()}"
        )
        assert after.goals == goals

    def _journalled(self, item: Input) -> None:
        self.inputs.append(item)
        kind, at, command = item
        if kind == "command":
            assert command is not None
            fed = feed(self.shadow, command)
            assert fed.refused is None, f"replaying accepted {command} was refused: {fed.refused}"
            self.shadow_events += fed.events
        else:
            self.shadow_events += self.shadow.advance(at)

    def _after(self, before: MatchState, events: list[Event], *, resets: bool,
               late_at: Nanos | None) -> None:
        self.steps += 1
        for event in events:
            assert event.seq == len(self.events) + 1, (
                f"seq gap: {event.seq} after {len(self.events)}"
            )
            if self.events:
                assert event.at >= self.events[-1].at, (
                    f"event {event.to_json()} goes back in time from {self.events[-1].to_json()}"
                )
            assert event.at <= self.now, f"event {event.to_json()} after now={self.now}"
            self.events.append(event)
        assert self.match.state.seq == len(self.events)
        self._observe_clock(before, late_at, resets=resets)

    def _observe_clock(self, before: MatchState | None, late_at: Nanos | None, *,
                       resets: bool) -> None:
        s = self.match.state
        key = (s.phase, s.period, s.epoch)
        remaining = s.clock.remaining(self.now)
        assert remaining >= 0
        seen = self.seen
        if seen is not None and before is not None and seen.key == key and not resets:
            bound = seen.remaining
            if late_at is not None and late_at < seen.at:
                # A press processed late acts at its own (earlier) instant: a stop freezes
                # the clock at what it showed then.
                bound = max(bound, before.clock.remaining(late_at))
            assert remaining <= bound, (
                f"clock rose from {seen.remaining} (at {seen.at}) to {remaining} (at {self.now}) "
                f"in {s.phase.value} {s.period}"
            )
        self.seen = ClockSeen(key, self.now, remaining)
        instants = [self.now, self.now + 1, self.now + seconds(3600), BASE]
        if s.last_at is not None:
            instants += [s.last_at - 1, s.last_at]
        if s.clock.anchor is not None:
            instants += [s.clock.anchor - 1, s.clock.anchor, s.clock.anchor + 1]
        due = s.clock.zero_at()
        if due is not None:
            instants += [due - 1, due, due + 1]
        check_clock_within_state(s, instants)

    # ------------------------------------------------------------ invariants

    @invariant()
    def state_is_consistent(self) -> None:
        s = self.match.state
        check_result(s, self.match.preset.forfeit_goals)
        check_document(self.match, self.now)
        if s.phase.is_break:
            assert s.clock.running, f"a break clock must count by itself: {s}"

    @invariant()
    def replay_of_the_journalled_inputs_is_the_same_match(self) -> None:
        assert self.shadow.state == self.match.state
        assert _json(self.shadow_events) == _json(self.events)

    @invariant()
    def the_recorder_journals_what_it_should(self) -> None:
        if self.steps % 10 == 0:
            self._check_recorder()

    def _check_recorder(self) -> None:
        """The journal holds the inputs the recorder should journal, and resuming from it
        rebuilds this very match, with no warning."""
        records = [
            {k: v for k, v in r.items() if k in ("type", "at", "command")}
            for r in self.journal.records if r["type"] in ("command", "advance")
        ]
        mirror = [
            _roundtrip({"type": kind, "at": at, **({"command": c.to_json()} if c else {})})
            for kind, at, c in self.inputs
        ]
        assert records == mirror
        resumed = Recorder.resume(cast(Journal, self.journal), list(self.journal.records))
        assert resumed.warnings == []
        assert resumed.recorder.match.state == self.match.state
        assert _json(resumed.events) == _json(self.events)


MatchMachine.TestCase.settings = settings(
    max_examples=200, stateful_step_count=50, deadline=None
)
TestMatchStateful = MatchMachine.TestCase


# ---------------------------------------------------------------- one big step = many small


COMMAND_KINDS = ["start", "stop", "goal", "set_clock", "next", "end", "forfeit", "horn", "undo"]
gaps = st.one_of(
    st.integers(-ms(2000), ms(5000)),
    st.integers(-ms(2000), ms(5000)),
    st.integers(0, 60).map(seconds),
    st.integers(1, 25).map(lambda m: seconds(60 * m)),
)
prefix_items = st.tuples(
    st.sampled_from(COMMAND_KINDS), teams, gaps, st.just(0) | st.integers(0, 1_500_000)
)


def _build(kind: str, at: Nanos, team: Team, value: int) -> Command:
    if kind == "goal":
        return Goal(at, team)
    if kind == "set_clock":
        return SetClock(at, value)
    if kind == "forfeit":
        return Forfeit(at, team)
    if kind == "horn":
        return Horn(at, value % 2 == 0)
    simple: dict[str, type[Command]] = {
        "start": Start, "stop": Stop, "next": Next, "end": End, "undo": Undo,
    }
    return simple[kind](at)


@settings(max_examples=200, deadline=None)
@given(
    name=preset_names,
    stage=stages,
    prefix=st.lists(prefix_items, max_size=12),
    then_start=st.booleans(),
    horizon=st.integers(0, seconds(3600)) | st.integers(1, 60).map(lambda m: seconds(60 * m)),
    past_due=st.none() | st.sampled_from([0, 1, ms(1), seconds(90), seconds(3600)]),
    data=st.data(),
)
def test_one_big_advance_equals_many_small_ones(
    *,
    name: str, stage: Stage, prefix: list[tuple[str, Team, Nanos, int]], then_start: bool,
    horizon: Nanos, past_due: Nanos | None, data: st.DataObject,
) -> None:
    """``past_due``: advance to that long after the first deadline rather than by ``horizon``."""
    preset = _preset(name)
    setup = MatchSetup(stage=stage)
    match = Match(preset, setup)
    now = BASE
    for kind, team, gap, value in prefix:
        at = max(0, now + gap)
        feed(match, _build(kind, at, team, value))
        now = max(now, at)
    if then_start:  # most often leaves a clock running, so that something falls due
        feed(match, Start(now))
    start = match.state
    once = Match(preset, setup, state=start)
    first_due = once.next_deadline()
    end = now + horizon
    if past_due is not None and first_due is not None:
        end = max(now, first_due + past_due)
    big = once.advance(end)

    # Step on, just before and just after every deadline the big step crossed, and elsewhere.
    deadlines = {e.at for e in big} | ({first_due} if first_due is not None else set())
    near_deadlines = sorted(
        {t + d for t in deadlines for d in (-1, 0, 1) if now <= t + d <= end}
    )
    instant = st.integers(now, end)
    if near_deadlines:
        instant = instant | st.sampled_from(near_deadlines)
    steps = sorted(data.draw(st.lists(instant, max_size=20), label="steps"))

    stepwise = Match(preset, setup, state=start)
    small: list[Event] = []
    for t in steps:
        small += stepwise.advance(t)
        check_clock_within_state(stepwise.state, [t, t + 1, end])
    small += stepwise.advance(end)

    assert stepwise.state == once.state
    assert _json(small) == _json(big)
    check_result(once.state, once.preset.forfeit_goals)
    check_document(once, end)


# ---------------------------------------------------------------- what the machine found
# The shrunk examples the state machine found, kept as plain tests so that they run on every
# run, not only when the search happens to hit them again.


def _check_everything(state: MatchMachine) -> None:
    state.state_is_consistent()
    state.replay_of_the_journalled_inputs_is_the_same_match()
    state._check_recorder()


def test_a_late_set_clock_to_zero_ends_the_period_at_once() -> None:
    # A set_clock 0 pressed 1 ms before the latest event acts at that event; feed must then
    # let the period end, or the next press finds a deadline behind it (ValueError).
    state = MatchMachine()
    state.begin(name="floorball-2x15", stage=Stage.GROUP, kick_off=True)
    state.set_clock(when=("late", ms(1)), value=("zero", 0))
    state.start(when=("late", ms(1)))
    _check_everything(state)


def test_undoing_a_forfeit_after_the_break_would_have_ended_does_not_go_back_in_time() -> None:
    # Forfeit during the break, undo it once the break's own end has passed: the break must
    # not end at its old deadline, before the undo event.
    state = MatchMachine()
    state.begin(name="floorball-2x15", stage=Stage.GROUP, kick_off=True)
    state.advance_far(to_deadline=True, offset=0, minutes=1, extra=0)
    state.rare_press(when=("deadline", -ms(1)), kind="forfeit", team=Team.HOME)
    state.advance_small(step=ms(1) + 1)
    state.undo(when=("now", 0))
    _check_everything(state)
