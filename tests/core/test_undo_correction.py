"""A clock correction taken back whole (undo, or cancel however many actions later), and the
preview of what a correction will do before the timekeeper confirms it.

The game is ice-hockey-2x20 (rules 000, 'Penalties': a minor is 2 min) in the play-off: home
gets three minors together, so the third waits for a place (IIHF Official Rule Book, delayed
penalties: never more than two players short at once, the preset's max_shorthanded), away one.
A clock set forward past their ends ends them, the waiting one starts; taken back, the match
is exactly the one in which the clock was never corrected.
"""

from __future__ import annotations

from typing import Any

from arena.core.commands import Cancel, Command, Goal, Penalty, SetClock, Start, Stop, Undo
from arena.core.entry import EntryStage, KeypadEntry, records_of
from arena.core.phase import Phase, Stage, Team
from arena.core.preview import Preview, Served, foresee
from arena.core.record import match_record
from arena.core.state import state_document

from .helpers import Game, S

PRESET = "ice-hockey-2x20"


def stoppage() -> list[Command]:
    """20 s played, three home minors and one away minor in one stoppage, 10 s more."""
    return [Start(S(0)), Stop(S(20)),
            Penalty(S(21), Team.HOME, 7, "minor"), Penalty(S(22), Team.HOME, 8, "minor"),
            Penalty(S(23), Team.HOME, 9, "minor"), Penalty(S(24), Team.AWAY, 4, "minor"),
            Start(S(30)), Stop(S(40))]


def game(*commands: Command) -> Game:
    g = Game(PRESET, Stage.PLAYOFF)
    for command in commands:
        g.do(command)
    return g


def played(g: Game, at: float) -> dict[str, Any]:
    """What the state document and the record say at ``at``: everything shown or sent."""
    doc = g.at(at)
    return {"doc": {k: doc[k] for k in ("phase", "period", "clock_ms", "running", "horn",
                                        "score", "penalties", "strength", "shift_ms")},
            "record": match_record(g.match.preset, g.match.setup, g.match.state)}


def test_undo_of_a_clock_set_forward_over_penalties_brings_them_back_with_their_time() -> None:
    """Set from 19:20 to 15:00 (4:20 forward): the three running minors (2 min, rules 000)
    end and the waiting third home minor starts (at the game time set). Undone, the
    penalties, their remaining times, the waiting one and the strength are those of the game
    never corrected."""
    g = game(*stoppage(), SetClock(S(50), ms=15 * 60_000))
    after_set = g.at(51)
    assert after_set["strength"] == {"home": 4, "away": 5}
    assert [p["player"] for p in after_set["penalties"]["home"]] == [9]
    assert after_set["penalties"]["away"] == []
    g.do(Undo(S(60)))
    assert g.refusals == []
    never = game(*stoppage())
    assert played(g, 61) == played(never, 61)
    doc = g.at(61)
    assert doc["strength"] == {"home": 3, "away": 4}
    assert [(p["player"], p["remaining_ms"], p["running"]) for p in doc["penalties"]["home"]
            ] == [(7, 110_000, True), (8, 110_000, True), (9, 120_000, False)]
    # Play goes on as if never corrected: the first two end at 2:20 played (at 180 s), the
    # third starts then (IIHF delayed penalties) and away's ends with them.
    for g_ in (g, never):
        g_.do(Start(S(70)))
    for t in (120, 180, 181, 300):
        assert played(g, t) == played(never, t), f"at {t} s"
    assert [e.seq for e in g.events] == list(range(1, len(g.events) + 1))


def test_undo_of_a_clock_correction_replays_what_came_after_it() -> None:
    """The clock started and stopped again after the correction, then undone: the game as if
    the clock had run the same seconds from where it really was."""
    g = game(*stoppage(), SetClock(S(50), ms=15 * 60_000), Start(S(55)), Stop(S(65)),
             Undo(S(70)))
    never = game(*stoppage(), Start(S(55)), Stop(S(65)))
    assert g.refusals == []
    assert played(g, 71) == played(never, 71)


def test_cancel_of_a_clock_correction_reaches_past_a_later_goal_and_keeps_its_seq() -> None:
    """CANCEL picks the correction from the list, behind a goal scored since: the goal stays,
    with the seq the record and the office know it by; the penalties are as if the clock was
    never set, and a goal against the shorthanded team ends the minor with the least time
    left (rules 000 'Penalties', IIHF rule 16) as it would have."""
    corrected = game(*stoppage(), SetClock(S(50), ms=15 * 60_000))
    set_seq = corrected.match.state.undo[-1].seq
    for command in (Start(S(55)), Goal(S(58), Team.AWAY, 11), Stop(S(65))):
        corrected.do(command)
    goal_seq = corrected.match.state.goals[-1].seq
    listed = records_of(corrected.match.state)
    assert [(r.what, r.seq) for r in listed[:2]] == [("goal", goal_seq), ("set_clock", set_seq)]
    assert listed[1].label() == "clock set P1 15:00"
    corrected.do(Cancel(S(70), set_seq))
    assert corrected.refusals == []
    never = game(*stoppage(), Start(S(55)), Goal(S(58), Team.AWAY, 11), Stop(S(65)))
    assert played(corrected, 71) == played(never, 71)
    assert [g.seq for g in corrected.match.state.goals] == [goal_seq]
    assert corrected.events[-1].data["undone_seq"] == set_seq
    assert set_seq not in [r.seq for r in records_of(corrected.match.state)]
    corrected.do(Cancel(S(72), set_seq))
    assert corrected.refusals[-1] == f"cancel refused: event {set_seq} was cancelled already"


def test_a_clock_set_to_zero_ends_the_period_and_its_undo_takes_the_end_and_horn_back() -> None:
    """Set to 0:00 while the clock runs, the period ends at once, its horn sounds and the
    break starts; undone, the period runs on where it was, its horn silent, the penalties as
    they were."""
    running = stoppage()[:-1]  # the clock runs from 30 s
    g = game(*running, SetClock(S(35), ms=0))
    assert g.at(35.5)["phase"] == Phase.INTERMISSION.value
    assert g.at(35.5)["horn"] is True
    g.do(Undo(S(36)))
    assert g.refusals == []
    never = game(*running)
    assert played(g, 36.5) == played(never, 36.5)
    assert g.at(36.5)["horn"] is False
    assert g.at(36.5)["running"] is True


def test_undo_is_refused_where_without_the_correction_the_period_would_have_ended() -> None:
    """Set back by a minute at 0:30 left, the clock then runs 45 s: without the correction
    the period would have ended 15 s ago, so undo says so and changes nothing."""
    g = Game(PRESET, Stage.PLAYOFF)
    for command in (Start(S(0)), Stop(S(1170)), SetClock(S(1171), ms=90_000), Start(S(1172)),
                    Stop(S(1217)), Undo(S(1218))):
        g.do(command)
    assert g.refusals == ["undo refused: without the clock correction the game would have "
                          "gone otherwise since (a period or break ended, a command "
                          "refused); correct the clock with set_clock"]
    assert g.match.state.phase is Phase.PERIOD


def test_the_state_document_after_undo_is_the_never_corrected_one_at_any_instant() -> None:
    g = game(*stoppage(), SetClock(S(50), ms=15 * 60_000), Undo(S(60)), Start(S(61)))
    never = game(*stoppage(), Start(S(61)))
    for t in (62, 100, 171.5, 300):
        g.at(t)
        never.at(t)
        assert state_document(g.match, S(t)) == state_document(never.match, S(t))


# ---------------------------------------------------------------- the preview and confirm


def test_the_preview_names_the_penalties_a_clock_set_forward_ends_and_starts() -> None:
    g = game(*stoppage())
    preview = foresee(g.match, SetClock(S(50), ms=15 * 60_000))
    home = [Served(Team.HOME, n, "minor") for n in (7, 8, 9)]
    assert preview == Preview(ended=(home[0], home[1], Served(Team.AWAY, 4, "minor")),
                              started=(home[2],))
    assert g.match.state == game(*stoppage()).match.state  # the match itself is untouched
    assert not foresee(g.match, SetClock(S(50), ms=19 * 60_000 + 45_000))  # back: nothing


def test_the_preview_of_undoing_it_puts_the_penalties_back() -> None:
    g = game(*stoppage(), SetClock(S(50), ms=15 * 60_000))
    preview = foresee(g.match, Undo(S(55)))
    assert preview == Preview(back=(Served(Team.HOME, 7, "minor"), Served(Team.HOME, 8, "minor"),
                                    Served(Team.AWAY, 4, "minor")),
                              waiting=(Served(Team.HOME, 9, "minor"),))


def keypad(g: Game) -> KeypadEntry:
    pad = KeypadEntry(list(g.match.preset.penalties.kinds))
    pad.foresee = lambda command: foresee(g.match, command)
    return pad


def typed(pad: KeypadEntry, at: float, *names: str) -> list[Any]:
    out: list[Any] = []
    for name in names:
        out += pad.key(name, S(at))
    return out


def test_set_clock_that_ends_penalties_waits_for_a_second_enter() -> None:
    g = game(*stoppage())
    pad = keypad(g)
    pad.choose("set_clock", S(45))
    assert typed(pad, 46, "1", "5", "0", "0", "enter") == []
    described = pad.describe()
    assert described is not None and described["stage"] == EntryStage.PREVIEW.value
    assert described["prompt"] == ("SET CLOCK: home #7 minor ends; home #8 minor ends; away "
                                   "#4 minor ends; home #9 minor starts")
    assert described["keys"] == [["enter", "confirm: set the clock to 15:00.0"],
                                 ["backspace", "back"], ["escape", "cancel"]]
    assert typed(pad, 47, "5") == []  # a stray digit does nothing
    assert typed(pad, 48, "enter") == [SetClock(S(48), 15 * 60_000)]  # at its confirming key
    assert pad.pending is None


def test_backspace_goes_back_to_the_time_and_escape_drops_the_correction() -> None:
    g = game(*stoppage())
    pad = keypad(g)
    pad.choose("set_clock", S(45))
    typed(pad, 46, "1", "5", "0", "0", "enter")
    assert typed(pad, 47, "backspace") == []
    assert pad.pending is not None and pad.pending.stage is EntryStage.CLOCK
    assert typed(pad, 48, "backspace", "9", "enter") == []  # 15:09 still ends them
    assert typed(pad, 49, "escape") == []
    assert pad.pending is None
    assert g.match.state == game(*stoppage()).match.state


def test_a_correction_without_consequences_is_given_at_its_first_enter() -> None:
    g = game(*stoppage())
    pad = keypad(g)
    pad.choose("set_clock", S(45))
    assert typed(pad, 46, "1", "9", "4", "5", "enter") == [SetClock(S(46), 19 * 60_000
                                                                     + 45_000)]


def test_the_preview_is_asked_again_at_the_confirming_enter() -> None:
    """Shown while the clock is stopped, confirmed after it ran on: what the correction does
    then is shown first, never done unseen."""
    g = game(*stoppage()[:-1])  # the clock runs from 30 s
    pad = keypad(g)
    pad.choose("set_clock", S(31))
    typed(pad, 31, "1", "5", "0", "0", "enter")  # 15:00: three end, home #9 starts
    first = pad.pending.preview if pad.pending is not None else None
    assert first is not None and first.started == (Served(Team.HOME, 9, "minor"),)
    # By 200 s three have ended by themselves and #9 runs since 2:20 played: set to 5:00
    # played, it ends.
    assert typed(pad, 200, "enter") == []
    assert pad.pending is not None and pad.pending.preview == Preview(
        ended=(Served(Team.HOME, 9, "minor"),))
    assert typed(pad, 201, "enter") == [SetClock(S(201), 15 * 60_000)]


def test_undo_and_cancel_from_the_keypad_preview_the_penalties_put_back() -> None:
    g = game(*stoppage(), SetClock(S(50), ms=15 * 60_000))
    pad = keypad(g)
    pad.choose("undo", S(55))
    assert typed(pad, 56, "enter") == []
    described = pad.describe()
    assert described is not None and described["prompt"].startswith(
        "UNDO: home #7 minor back in the box")
    assert typed(pad, 57, "enter") == [Undo(S(57))]
    pad.records = records_of(g.match.state)
    pad.choose("cancel", S(58))
    assert typed(pad, 59, "1") == []  # the newest: the clock correction
    assert pad.pending is not None and pad.pending.stage is EntryStage.RECORD
    assert typed(pad, 59.5, "4") == []  # no number to correct
    assert typed(pad, 60, "enter") == []
    described = pad.describe()
    assert described is not None and described["prompt"].startswith(
        "SET CLOCK P1 15:00: home #7 minor back in the box")
    assert typed(pad, 61, "enter") == [Cancel(S(61), g.match.state.undo[-1].seq)]


def test_two_clock_corrections_undone_one_after_the_other_keep_the_goal_before_them() -> None:
    """A goal, then the clock set to 0:00 (the period ends) and in the break set to 0:00
    again (the break ends): two undos take back the two corrections and nothing else. The
    undo of the second must not be replayed when the first is undone, or it would take back
    the goal instead (found by the stateful test)."""
    g = game(Start(S(0)), Goal(S(10), Team.HOME, 12), SetClock(S(20), ms=0),
             SetClock(S(30), ms=0))
    g.do(Undo(S(40)))
    assert g.match.state.phase is Phase.INTERMISSION
    g.do(Undo(S(50)))
    state = g.match.state
    assert state.phase is Phase.PERIOD
    assert state.score() == {Team.HOME: 1, Team.AWAY: 0}
    assert [goal.player for goal in state.goals] == [12]
