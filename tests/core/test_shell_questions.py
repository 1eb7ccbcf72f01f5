"""What the shell asks the core instead of deciding itself: what a START/STOP press means
(``Match.start_stop``) and what the horn does and when to look again (``Match.horn_outlook``).
"""

from __future__ import annotations

from arena.core.commands import Forfeit, Horn, Start, Stop, Timeout
from arena.core.phase import Phase, Stage, Team
from arena.core.values import HornOutlook

from .helpers import Game, S

HOME = Team.HOME
PERIOD_END = S(1200)  # ice-hockey-2x20: 20 min, started at 0


# ------------------------------------------------------------------ START/STOP


def test_start_stop_means_start_before_the_match_and_stop_while_the_clock_runs() -> None:
    g = Game("ice-hockey-2x20")
    assert g.match.start_stop(S(1)) == Start(S(1))
    g.do(Start(S(1)))
    assert g.match.start_stop(S(5)) == Stop(S(5))
    g.do(Stop(S(5)))
    assert g.match.start_stop(S(9)) == Start(S(9))  # play resumes


def test_start_stop_in_a_break_means_start_the_next_period_early() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.at(1230)  # the intermission runs by itself
    assert g.match.start_stop(S(1230)) == Start(S(1230))
    g.do(g.match.start_stop(S(1230)))
    doc = g.at(1231)
    assert (doc["phase"], doc["period"], doc["running"]) == ("period", 2, True)


def test_start_stop_just_after_the_clock_reached_zero_still_means_stop() -> None:
    # The press came at the horn, before the loop processed the period's end: it was meant
    # for the running clock, so it stays a stop, refused, and the break is not cut short.
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    press = PERIOD_END + S("0.2")
    command = g.match.start_stop(press)
    assert command == Stop(press)
    g.do(command)
    assert g.refusals == ["stop refused: the break clock runs by itself; use next or end to "
                          "end the break, set_clock to correct it"]
    assert g.at(1201)["phase"] == "intermission"


def test_start_stop_is_judged_on_the_phase_the_clock_and_nothing_else() -> None:
    # A time-out runs with the game clock stopped: the press restarts play.
    g = Game("floorball-2x20", Stage.PLAYOFF)
    g.do(Start(0))
    g.do(Stop(S(100)))
    g.do(Timeout(S(101), HOME))
    assert g.refusals == []
    assert g.match.start_stop(S(110)) == Start(S(110))
    # After the match it is a start, which the phase table refuses: there is no clock.
    g.do(Forfeit(S(120), HOME))
    assert g.match.start_stop(S(130)) == Start(S(130))
    g.do(Start(S(130)))
    assert g.refusals == ["start refused: there is no game clock in the final phase"]


# ------------------------------------------------------------------ horn


def test_the_horn_outlook_looks_ahead_to_a_deadline_without_touching_the_match() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    match = g.match
    assert match.horn_outlook(0) == HornOutlook(on=False, next_change=PERIOD_END)
    assert match.horn_outlook(PERIOD_END - 1) == HornOutlook(on=False, next_change=PERIOD_END)
    before = match.state
    # At the deadline the horn sounds before the match itself has been advanced.
    assert match.horn_outlook(PERIOD_END) == HornOutlook(on=True,
                                                         next_change=PERIOD_END + S(2))
    assert match.state is before and match.state.phase is Phase.PERIOD
    # Advanced, the match says the same.
    match.advance(PERIOD_END)
    assert match.horn_outlook(PERIOD_END) == HornOutlook(on=True,
                                                         next_change=PERIOD_END + S(2))
    # After the 2 s horn: the break's end (a minute after the period's) is next.
    assert match.horn_outlook(PERIOD_END + S(2)) == HornOutlook(
        on=False, next_change=PERIOD_END + S(60))


def test_the_horn_outlook_follows_the_manual_horn_and_its_cap() -> None:
    g = Game("ice-hockey-2x20")
    g.do(Horn(S(5), on=True))
    # Nothing else is scheduled before the match: the cap (10 s) is the next change.
    assert g.match.horn_outlook(S(5)) == HornOutlook(on=True, next_change=S(15))
    assert g.match.horn_outlook(S(15)) == HornOutlook(on=False, next_change=None)
    g.do(Horn(S(20), on=True))
    g.do(Horn(S(21), on=False))
    assert g.match.horn_outlook(S(21)) == HornOutlook(on=False, next_change=None)


def test_nothing_scheduled_means_no_next_change() -> None:
    g = Game("ice-hockey-2x20")
    assert g.match.horn_outlook(S(100)) == HornOutlook(on=False, next_change=None)
    g.do(Start(0))
    g.do(Stop(S(50)))  # a stopped clock reaches no deadline
    assert g.match.horn_outlook(S(60)) == HornOutlook(on=False, next_change=None)
