"""The seqs of one match received so far: ``Gapless``, the ledger's, the intake's and the
acks' count of what a hall may hold delivered."""

from __future__ import annotations

from collections.abc import Iterable


class Gapless:
    """The seqs of one match received so far, without keeping them all: ``upto`` is the
    highest with none missing below (what a hall may count delivered); the ones above a gap
    wait for it to be filled. A hall numbers its events gaplessly, so once a match is
    complete this is two numbers, however many events it had."""

    __slots__ = ("_above", "upto")

    def __init__(self, seqs: Iterable[int] = ()) -> None:
        self.upto = 0
        self._above: set[int] = set()
        for seq in seqs:
            self.add(seq)

    def __contains__(self, seq: int) -> bool:
        return 0 < seq <= self.upto or seq in self._above

    def add(self, seq: int) -> bool:
        """True if ``upto`` moved."""
        if seq <= self.upto:
            return False
        self._above.add(seq)
        before = self.upto
        while self.upto + 1 in self._above:
            self.upto += 1
            self._above.discard(self.upto)
        return self.upto != before

    @property
    def top(self) -> int:
        """The highest seq received (0: none)."""
        return max(self._above, default=self.upto)

    def missing(self) -> tuple[int, ...]:
        """The seqs missing between 1 and the highest received."""
        top = self.top
        return tuple(n for n in range(self.upto + 1, top) if n not in self._above)

    def copy(self) -> Gapless:
        out = Gapless()
        out.upto, out._above = self.upto, set(self._above)
        return out
