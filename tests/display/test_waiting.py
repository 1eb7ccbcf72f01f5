"""The between-games screen says when the office's next match waits for its teams (issue
17): the slots' labels show, and "waiting for the office" where the match's label goes."""

from __future__ import annotations

import copy

from display import fonts
from display.layout import layout
from tests.display import states


def about(between: dict[str, object]) -> str:
    frame = layout(states.BETWEEN, (1280, 720), between=between,
                   status={"office_online": True}, measure=fonts.measure)
    (item,) = frame.with_role("next.about")
    return str(getattr(item, "text", ""))


def test_a_waiting_next_says_so_and_a_ready_one_does_not() -> None:
    held = copy.deepcopy(states.BETWEEN_DATA)
    held["next"].update(match="SF1", label="SF1", waiting=True,
                        home={"name": "1st A", "colours": ["#10233f", "#ffffff"]})
    assert "WAITING FOR THE OFFICE" in about(held)
    assert "WAITING" not in about(states.BETWEEN_DATA)
