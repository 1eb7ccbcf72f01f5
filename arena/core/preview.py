"""What a correction will do beyond itself, before it is done: the keypad shows it and the
timekeeper confirms with Enter or backs out (arena/core/entry.py, the PREVIEW stage).

A clock set forward ends every penalty it passes and may end the period; an undo or a cancel
may put penalties back in the box or end or reopen a phase. ``foresee`` finds out by doing
it on a scratch copy of the match (a state is immutable, so the copy is cheap and the match
is not touched) and comparing before and after: what the preview says is what the command
will do, by construction, not a second reckoning that could drift from the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import penalties as box_rules
from . import shifts as shift_rules
from .commands import Command
from .events import EventKind
from .match import Match, feed
from .phase import Phase, Team
from .prompts import Phrase, say


@dataclass(frozen=True, slots=True)
class Served:
    """A penalty as the preview names it."""

    team: Team
    player: int
    kind: str


@dataclass(frozen=True, slots=True)
class Preview:
    """The consequences of one command beyond itself (all empty: none)."""

    ended: tuple[Served, ...] = ()  # penalties it ends
    started: tuple[Served, ...] = ()  # waiting penalties it starts
    back: tuple[Served, ...] = ()  # ended penalties it puts back in the box
    waiting: tuple[Served, ...] = ()  # running penalties it sends back to waiting
    shifts: int = 0  # line changes it passes or ends
    phase: Phase | None = None  # the phase it leads to, if it changes the phase
    period: int = 0  # the period then

    def __bool__(self) -> bool:
        return bool(self.ended or self.started or self.back or self.waiting or self.shifts
                    or self.phase is not None)

    def phrases(self) -> tuple[Phrase, ...]:
        """One phrase per consequence (``entry.preview.*``), in the order they happen."""
        out: list[Phrase] = []
        for key, served in (("ends", self.ended), ("back", self.back),
                            ("starts", self.started), ("waits", self.waiting)):
            out += [say(f"preview.{key}", side=say(f"side.{p.team.value}"),
                        player=f"#{p.player}", kind=p.kind) for p in served]
        if self.shifts:
            out.append(say("preview.shifts", n=self.shifts))
        if self.phase is not None:
            out.append(say(f"preview.phase.{self.phase.value}", period=self.period))
        return tuple(out)

    def phrase(self) -> Phrase:
        """Every consequence in one phrase: ``a; b; c``."""
        items = self.phrases()
        joined = items[-1]
        for item in reversed(items[:-1]):
            joined = say("preview.and", first=item, rest=joined)
        return joined


def _served(p: box_rules.Penalty) -> Served:
    return Served(p.team, p.player, p.kind.name)


def foresee(match: Match, command: Command) -> Preview:
    """What ``command`` would do beyond itself if given now: an empty preview if nothing,
    or if the rules refuse it (the refusal then says why when it is given)."""
    ahead = Match(match.preset, match.setup, match.state)
    ahead.advance(command.at)
    before = ahead.state
    fed = feed(ahead, command)
    after = ahead.state
    if fed.refused is not None:
        return Preview()
    was = {p.seq: p for p in before.box}
    ended: list[Served] = []
    started: list[Served] = []
    back: list[Served] = []
    waiting: list[Served] = []
    for p in after.box:
        old = was.get(p.seq)
        if old is None:
            continue  # a penalty the command itself records
        if p.done and not old.done:
            ended.append(_served(p))
        elif old.done and not p.done:
            back.append(_served(p))
        elif old.waiting and p.running:
            started.append(_served(p))
        elif old.running and p.waiting:
            waiting.append(_served(p))
    # Line changes it ends (their horn), or passes without one (a clock set forward).
    shifts = max(sum(1 for e in fed.events if e.kind is EventKind.SHIFT_ENDED),
                 shift_rules.changes_passed(match.preset, before, after))
    moved = after.phase is not before.phase or after.period != before.period
    return Preview(tuple(ended), tuple(started), tuple(back), tuple(waiting), shifts,
                   after.phase if moved else None, after.period if moved else 0)
