"""The match day before the first face-off: the preset's pregame as a timetable.

Given the instant a match is scheduled to start (on the match timeline: the shell maps the
office's or the schedule's wall time onto it, docs/timekeeper.md, "The match day"), ``pregame_plan``
lays out what the hall display counts down to, from the preset's ``[pregame]``:

    RESURFACING   until the warm-up begins (rules 002: the ice is resurfaced before it)
    WARM-UP       until its end, with a horn there where the preset says so
    TEAMS READY   until the teams must be ready (rules 000, 003: 5 minutes before)
    START IN      until the scheduled start

Each step is shown only where the preset has it. A step without a beginning of its own
(the teams' deadline, the start countdown when there is no warm-up) begins ``HORIZON``
before the start: a countdown hours long says nothing the scheduled time does not.

A plan is a value, derived (never journalled): the shell recomputes it from the schedule
after a restart, and nothing in it changes the match. The warm-up horn is a horn signal
the match's horn outlook includes while the match is in pregame (``Match.schedule``), so
the horn's thread switches it at its exact instant like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .preset import Preset
from .units import NS_PER_S, Nanos
from .values import HornSignal

HORIZON: Nanos = 60 * 60 * NS_PER_S  # not a rule: how far ahead a bare countdown begins


class PregameStep(StrEnum):
    """A step of the pregame; its value is the label the hall display shows."""

    RESURFACING = "resurfacing"
    WARMUP = "warm-up"
    TEAMS_READY = "teams ready in"
    START = "start in"


@dataclass(frozen=True, slots=True)
class Countdown:
    """What the pregame counts down at an instant: the step and the time to its end."""

    step: PregameStep
    remaining: Nanos


@dataclass(frozen=True, slots=True)
class Span:
    step: PregameStep
    begin: Nanos
    end: Nanos


@dataclass(frozen=True, slots=True)
class PregamePlan:
    """The pregame's steps, in order, each until the next begins; ``start``: the scheduled
    start; ``horn``: the warm-up's end horn, if the preset sounds one."""

    start: Nanos
    spans: tuple[Span, ...]
    horn: HornSignal | None = None

    def countdown(self, now: Nanos) -> Countdown | None:
        """The step shown at ``now`` and its time left; None before the first step and
        from the scheduled start on (today's pregame: the scheduled time is shown)."""
        for span in self.spans:
            if span.begin <= now < span.end:
                return Countdown(span.step, span.end - now)
        return None

    def horn_sounding(self, now: Nanos) -> bool:
        return self.horn is not None and self.horn.sounding(now)

    def changes(self, now: Nanos) -> list[Nanos]:
        """The instants after ``now`` at which what is shown changes: the next whole second
        of the countdown (shown rounded up), a step's beginning, a horn edge."""
        out: list[Nanos] = []
        shown = self.countdown(now)
        if shown is not None:
            out.append(now + to_next_second(shown.remaining))
        out += [span.begin for span in self.spans if span.begin > now]
        if self.horn is not None:
            out += [t for t in (self.horn.start, self.horn.end) if t > now]
        return out


def pregame_plan(preset: Preset, start: Nanos) -> PregamePlan:
    """The pregame of a match of ``preset`` scheduled to start at ``start``."""
    rules = preset.pregame
    spans: list[Span] = []
    cursor = start - HORIZON
    horn: HornSignal | None = None
    if rules.warmup is not None and rules.warmup_lead is not None:
        begins = start - rules.warmup_lead
        ends = begins + rules.warmup
        if rules.resurfacing is not None:
            spans.append(Span(PregameStep.RESURFACING, begins - rules.resurfacing, begins))
        spans.append(Span(PregameStep.WARMUP, begins, ends))
        if rules.warmup_horn:
            horn = HornSignal(ends, ends + preset.horn.end)
        cursor = ends
    if rules.teams_ready is not None and start - rules.teams_ready > cursor:
        spans.append(Span(PregameStep.TEAMS_READY, cursor, start - rules.teams_ready))
        cursor = start - rules.teams_ready
    if start > cursor:
        spans.append(Span(PregameStep.START, cursor, start))
    return PregamePlan(start, tuple(spans), horn)


def to_next_second(left: Nanos) -> Nanos:
    """How long until a countdown with ``left`` to go, shown rounded up to whole seconds,
    shows its next value."""
    return left - ((left - 1) // NS_PER_S) * NS_PER_S
