"""Random games with penalties and shootouts: the invariants of the rules hold throughout.

- at most ``max_shorthanded`` shorthanded penalties run per team (IIHF delayed penalties,
  IFF 603.3);
- strength never drops below the sport's minimum (three skaters, IIHF; three field players,
  IFF) and never exceeds the field plus an extra player;
- a penalty released by a goal is always a releasable, non-coincidental one (never a major,
  match, misconduct or personal penalty: IIHF rule 16, IFF 609.2);
- the penalty list shows running penalties before waiting ones;
- time passing never serves a part of a penalty in no time: a part that follows another,
  or a penalty that starts as a place frees, lasts a while, over a period's end too (rules
  002: a part starting as the period's last shift ends is served in the next shift played);
- in a shootout no team is ever more than one shot ahead;
- all of it with goals and penalties cancelled or renumbered at random, long after;
- replaying the inputs gives the same state.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from arena import presets
from arena.core.commands import (
    Cancel,
    Command,
    Correct,
    End,
    Goal,
    Penalty,
    SetClock,
    Shot,
    Start,
    Stop,
    Undo,
)
from arena.core.events import Event, EventKind
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage, Team
from arena.core.state import state_document
from arena.core.units import seconds
from arena.core.values import MatchSetup, MatchState

PRESETS = ["ice-hockey-2x20", "floorball-2x20", "youth-hockey-3x18", "floorball-2x15"]
teams = st.sampled_from(list(Team))
players = st.integers(1, 6)  # few players, so the same player is penalised again


class RulesMachine(RuleBasedStateMachine):
    match: Match

    @initialize(name=st.sampled_from(PRESETS), stage=st.sampled_from(list(Stage)))
    def begin(self, name: str, stage: Stage) -> None:
        self.preset = presets.load(name)
        self.setup = MatchSetup(match_id="R1", stage=stage)
        self.match = Match(self.preset, self.setup)
        self.now = 0
        self.inputs: list[tuple[str, object]] = []
        self.feed(Start(0))

    def feed(self, command: Command) -> None:
        fed = feed(self.match, command)
        if fed.refused is None:
            self.inputs.append(("command", command))
        elif fed.events:
            self.inputs.append(("advance", command.at))
        self.check_events(fed.events)

    def check_events(self, events: list[object]) -> None:
        box = {p.seq: p for p in self.match.state.box}
        for event in events:
            if getattr(event, "kind", None) is EventKind.PENALTY_ENDED and \
                    event.data["how"] == "released":  # type: ignore[attr-defined]
                released = box[event.data["penalty_seq"]]  # type: ignore[attr-defined]
                assert released.kind.releasable and not released.coincidental, released

    def tick(self, step: int) -> int:
        self.now += step
        return self.now

    @rule(step=st.integers(0, seconds(200)))
    def advance(self, step: int) -> None:
        before = self.match.state
        events = self.match.advance(self.tick(step))
        # A deadline may change the state without an event (a double minor's second part
        # starts at 2:00 of it): the replay advances there too, as the daemon's restore
        # advances to the instant it resumes at.
        if events or self.match.state != before:
            self.inputs.append(("advance", self.now))
        self.check_events(events)
        self.check_no_part_in_no_time(before, events)

    def check_no_part_in_no_time(self, before: MatchState, events: list[Event]) -> None:
        finished = {e.data["penalty_seq"]: e.at for e in events
                    if e.kind is EventKind.PENALTY_ENDED and e.data["how"] == "expired"
                    and e.data["finished"]}
        for event in events:  # started while time passed: ends later, if at all
            if event.kind is EventKind.PENALTY_STARTED:
                assert finished.get(event.data["penalty_seq"], event.at + 1) > event.at, event
        for p in before.box:  # a part to follow: it ends after the one before it
            if p.seq in finished and p.running and p.expiry is not None \
                    and p.part + 1 < len(p.kind.parts):
                part_end = self.match._instant_of(before, p.expiry)
                assert part_end is None or finished[p.seq] > part_end, p

    @rule(step=st.integers(0, seconds(5)))
    def start(self, step: int) -> None:
        self.feed(Start(self.tick(step)))

    @rule(step=st.integers(0, seconds(5)))
    def stop(self, step: int) -> None:
        self.feed(Stop(self.tick(step)))

    @rule(step=st.integers(0, seconds(30)), team=teams)
    def goal(self, step: int, team: Team) -> None:
        self.feed(Goal(self.tick(step), team))

    @rule(step=st.integers(0, seconds(30)), team=teams, player=players, data=st.data(),
          coincidental=st.booleans())
    def penalty(self, step: int, team: Team, player: int, data: st.DataObject,
                coincidental: bool) -> None:
        kind = data.draw(st.sampled_from(sorted(self.preset.penalties.kinds)))
        self.feed(Penalty(self.tick(step), team, player, kind, coincidental))

    @rule(step=st.integers(0, seconds(5)))
    def undo(self, step: int) -> None:
        self.feed(Undo(self.tick(step)))

    @rule(step=st.integers(0, seconds(5)))
    def end(self, step: int) -> None:
        self.feed(End(self.tick(step)))

    @rule(step=st.integers(0, seconds(5)), value=st.integers(1, 600))
    def set_clock(self, step: int, value: int) -> None:
        self.feed(SetClock(self.tick(step), ms=value * 1000))

    @rule(step=st.integers(0, seconds(5)), data=st.data(), player=players,
          cancel=st.booleans())
    def cancel_or_correct(self, step: int, data: st.DataObject, player: int,
                          cancel: bool) -> None:
        s = self.match.state
        seqs = [g.seq for g in s.goals] + [p.seq for p in s.box] + [s.seq + 1, 1]
        seq = data.draw(st.sampled_from(seqs))
        at = self.tick(step)
        self.feed(Cancel(at, seq) if cancel else Correct(at, seq, player))

    @precondition(lambda self: self.match.state.phase is Phase.SHOOTOUT)
    @rule(step=st.integers(0, seconds(20)), team=teams, player=players, scored=st.booleans())
    def shot(self, step: int, team: Team, player: int, scored: bool) -> None:
        self.feed(Shot(self.tick(step), team, scored, player))

    @invariant()
    def penalties_strength_and_shootout_hold(self) -> None:
        s = self.match.state
        doc = state_document(self.match, self.now)
        for team in Team:
            shorthanded = [p for p in s.box if p.team is team and p.running and p.shorthanded]
            assert len(shorthanded) <= self.preset.penalties.max_shorthanded
            strength = doc["strength"][team.value]
            assert self.preset.minimum_players <= strength <= self.preset.players + 1
            flags = [p["running"] for p in doc["penalties"][team.value]]
            assert flags == sorted(flags, reverse=True), "running penalties come first"
            assert all(p["remaining_ms"] >= 0 for p in doc["penalties"][team.value])
        home = sum(1 for x in s.shots if x.team is Team.HOME)
        away = len(s.shots) - home
        assert abs(home - away) <= 1
        assert (doc["result"] is not None) == (s.phase is Phase.FINAL)

    def teardown(self) -> None:
        replayed = Match(self.preset, self.setup)
        for what, value in self.inputs:
            if what == "command":
                assert isinstance(value, Command)
                feed(replayed, value)
            else:
                assert isinstance(value, int)
                replayed.advance(value)
        assert replayed.state == self.match.state


RulesMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=60,
                                          deadline=None)
TestRules = RulesMachine.TestCase
