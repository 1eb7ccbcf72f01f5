"""How far the hall runs behind its schedule, and what shortened periods would bring it back.

For the timekeeper (docs/timekeeper.md, "The match day"): a suggestion the referee may take
(``set_clock`` in a waiting period, ``end``), never applied by itself. Pure: the match's state, the
preset and instants on the match timeline.

- **Due**: the match must be over when the hall's next match needs the ice: the next
  match's scheduled start less the preset's pregame lead (resurfacing and warm-up, rules
  002), or, with no next match known (an office sends one match at a time), this match's
  start plus the preset's slot (rules 000: 50 minutes, the warm-up included) less that lead.
- **Projected end**: now plus what is left at full length: the wait to the scheduled start
  (in pregame), the current period's clock, the breaks, the periods not begun. A stopped
  clock keeps the game time but not the hall's: the projection moves with now.
- **Behind**: projected end less due (negative: time to spare).
- **Suggestion** (only where the preset says the referees may shorten, ``pregame.shorten``:
  rules 000, 003): one length for every period not yet begun such that the game ends when
  due, breaks kept (the ice is resurfaced in them); when no period is left to begin, the
  clock of the one being played. None if that would leave under ``SHORTEST``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .match import Match
from .phase import Phase
from .units import NS_PER_S, Nanos

SHORTEST: Nanos = 60 * NS_PER_S  # not a rule: a period shorter than a minute is no game


@dataclass(frozen=True, slots=True)
class CatchUp:
    """``behind``: the projected end less the due end (negative: time to spare).
    ``periods``: how many periods ``period_length`` is for (those not begun);
    ``clock``: else, what the current period's clock could be set to; both None: no
    suggestion (on time, the rules do not let the referees shorten, or it cannot be done)."""

    behind: Nanos
    periods: int = 0
    period_length: Nanos | None = None
    clock: Nanos | None = None


def due_end(match: Match, start: Nanos, next_start: Nanos | None) -> Nanos | None:
    """When the match must be over (see the module's text); None if nothing says."""
    rules = match.preset.pregame
    if next_start is not None:
        return next_start - rules.lead
    if rules.slot is not None:
        return start + rules.slot - rules.lead
    return None


def catch_up(match: Match, now: Nanos, start: Nanos, due: Nanos) -> CatchUp | None:
    """Where the hall stands at ``now`` for a match scheduled at ``start`` that is due to be
    over at ``due``; None once regulation is over (overtime, a shootout, the final: how
    long those take is not the timekeeper's to shorten)."""
    s = match.state
    preset = match.preset
    length = preset.period_length
    if s.phase is Phase.PREGAME:
        waiting = max(0, start - now)
        fixed = waiting + sum(preset.breaks)
        current: Nanos | None = None
        begun = 0
    elif s.phase is Phase.PERIOD:
        left = s.clock.remaining(now)
        # A period waiting at full length (after a break) is not begun: it can be set.
        begun = s.period if s.started or left < length else s.period - 1
        current = left if begun == s.period else None
        fixed = (left if current is not None else 0) + sum(preset.breaks[s.period - 1:])
    elif s.phase is Phase.INTERMISSION:
        begun = s.period - 1
        current = None
        fixed = s.clock.remaining(now) + sum(preset.breaks[s.period - 1:])
    else:
        return None
    periods = preset.periods - begun
    behind = now + fixed + periods * length - due
    if behind <= 0 or not preset.pregame.shorten:
        return CatchUp(behind)
    if periods > 0:
        shortened = _whole_seconds((due - now - fixed) // periods)
        if shortened >= SHORTEST:
            return CatchUp(behind, periods, shortened)
        return CatchUp(behind)
    if current is not None:
        clock = _whole_seconds(current - behind)
        if clock >= SHORTEST:
            return CatchUp(behind, clock=clock)
    return CatchUp(behind)


def _whole_seconds(ns: Nanos) -> Nanos:
    """Down to a whole second: a clock the timekeeper can type, never later than due."""
    return (ns // NS_PER_S) * NS_PER_S


def describe(result: CatchUp) -> str:
    """The timekeeper's line: ``BEHIND SCHEDULE BY 12:00: 3 PERIODS OF 11:00 WOULD
    BRING IT BACK (THE REFEREE DECIDES)``; times in M:SS, down to the second."""
    if result.behind <= 0:
        return f"ON SCHEDULE ({_clock(-result.behind)} TO SPARE)"
    text = f"BEHIND SCHEDULE BY {_clock(result.behind)}"
    if result.period_length is not None:
        many = "PERIODS" if result.periods != 1 else "PERIOD"
        return (f"{text}: {result.periods} {many} OF {_clock(result.period_length)} WOULD "
                "BRING IT BACK (THE REFEREE DECIDES)")
    if result.clock is not None:
        return (f"{text}: THE CLOCK AT {_clock(result.clock)} WOULD BRING IT BACK (THE "
                "REFEREE DECIDES)")
    return text


def _clock(ns: Nanos) -> str:
    secs = ns // NS_PER_S
    return f"{secs // 60}:{secs % 60:02d}"
