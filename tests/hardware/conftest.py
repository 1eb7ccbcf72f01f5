"""gpiozero's MockFactory with injected time: MockPin stamps edges with the mock module's
``monotonic``; tests replace it with a fake clock in exact decimal seconds."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest
from gpiozero.pins import mock as gpiozero_mock
from gpiozero.pins.mock import MockFactory


class FakeTicks:
    """The edge clock the pins see, in seconds (what gpiozero calls ticks)."""

    def __init__(self, start: str = "1000") -> None:
        self.now = Decimal(start)

    def __call__(self) -> Decimal:
        return self.now

    def at(self, seconds: str | Decimal) -> None:
        self.now = Decimal(seconds)

    def ns(self) -> int:
        return int(self.now * 1_000_000_000)


@pytest.fixture
def ticks(monkeypatch: pytest.MonkeyPatch) -> FakeTicks:
    fake = FakeTicks()
    monkeypatch.setattr(gpiozero_mock, "monotonic", fake)
    return fake


@pytest.fixture
def factory(ticks: FakeTicks) -> Iterator[MockFactory]:
    made = MockFactory()
    yield made
    made.reset()
