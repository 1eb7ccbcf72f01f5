"""The undo module's pure parts: when an entry can no longer be undone, and the state
without it. (What undo does to a whole match is in test_match.py and the stateful tests.)"""

from __future__ import annotations

from arena.core.commands import End, Shot, Start, Stop, Timeout
from arena.core.gameclock import GameClock
from arena.core.phase import Phase, Stage, Team
from arena.core.undo import (
    UndoEntry,
    UndoKind,
    pushed,
    refusal,
    rewound,
    without_shot,
    without_timeout,
)
from arena.core.values import MatchState

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY


def test_pushed_records_the_epoch_of_the_state_after_the_action() -> None:
    state = MatchState(clock=GameClock.stopped_at(S(60)), epoch=3)
    after = pushed(state, UndoKind.SET_CLOCK, 7, S(1), delta=S(5))
    assert after.undo == (UndoEntry(UndoKind.SET_CLOCK, 7, S(1), 3, delta=S(5)),)
    assert state.undo == ()  # values: the old state is untouched


def test_a_correction_an_end_or_a_forfeit_cannot_be_undone_across_a_phase_change() -> None:
    state = MatchState(clock=GameClock.stopped_at(0), epoch=4)
    for kind in UndoKind:
        assert refusal(UndoEntry(kind, 1, 0, epoch=4), state) is None
    assert getattr(refusal(UndoEntry(UndoKind.SET_CLOCK, 1, 0, epoch=3), state), "text", None) == (
        "the clock correction was in a phase that is over; correct the clock with set_clock")
    assert getattr(refusal(UndoEntry(UndoKind.END, 1, 0, epoch=3), state), "text", None) == (
        "the end cannot be undone: the game has moved on since; correct it with set_clock")
    assert getattr(refusal(UndoEntry(UndoKind.FORFEIT, 1, 0, epoch=3), state), "text", None) == (
        "the forfeit cannot be undone: the game has moved on since; correct it with set_clock")
    # A goal, a penalty, a time-out and a shot name their own event: no epoch rule.
    for kind in (UndoKind.GOAL, UndoKind.PENALTY, UndoKind.TIMEOUT, UndoKind.SHOT):
        assert refusal(UndoEntry(kind, 1, 0, epoch=3), state) is None


def test_rewinding_an_end_stops_the_play_clock_at_the_end_and_is_a_phase_change() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    before = g.match.state
    g.do(End(S(300)))
    after = g.match.state
    assert after.phase is Phase.INTERMISSION
    back = rewound(after, before, S(300))
    assert (back.phase, back.period, back.started) == (Phase.PERIOD, 1, True)
    assert not back.clock.running and back.clock.remaining(S(999)) == S(900)
    assert back.epoch == after.epoch + 1
    assert back.seq == after.seq and back.undo == after.undo  # the record is kept


def test_an_undone_time_out_stops_and_the_team_has_it_again() -> None:
    g = Game("floorball-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Stop(S(100)))
    g.do(Timeout(S(101), AWAY))
    state = g.match.state
    assert state.timeout is not None and state.timeouts_used == (0, 1)
    entry = state.undo[-1]
    assert entry.kind is UndoKind.TIMEOUT
    back = without_timeout(state, entry)
    assert back.timeout is None and back.timeouts_used == (0, 0)


def test_an_undone_deciding_shot_reopens_the_shootout() -> None:
    g = Game("ice-hockey-2x20", Stage.PLAYOFF)
    for at, command in enumerate((Start, End, End, End)):  # 0:0 after two periods
        g.do(command(S(at)))
    assert g.match.state.phase is Phase.SHOOTOUT
    at = S(10)
    for player in range(1, 4):  # away (rules 000: it starts) misses, home scores
        g.do(Shot(at, AWAY, scored=False, player=player))
        g.do(Shot(at + S(5), HOME, scored=True, player=player))
        at += S(10)
        if g.match.state.phase is Phase.FINAL:
            break
    assert g.refusals == []
    state = g.match.state
    assert state.phase is Phase.FINAL and state.result is not None
    entry = state.undo[-1]
    assert entry.kind is UndoKind.SHOT
    back = without_shot(state, entry)
    assert back.phase is Phase.SHOOTOUT and back.result is None
    assert back.shots == state.shots[:-1]
    assert back.epoch == state.epoch + 1
