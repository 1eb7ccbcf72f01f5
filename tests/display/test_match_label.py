"""The pregame screen names the next match once: a bracket match whose label is its own id
("SF1") is not shown as "SF1 · MATCH SF1"; a group match keeps both ("GROUP A · MATCH A5")."""

from __future__ import annotations

from typing import Any

from display import fonts
from display.items import Text
from display.layout import layout
from tests.display import states

SIZE = (1920, 1080)


def _texts(next_match: dict[str, Any]) -> list[str]:
    frame = layout(states.PREGAME, SIZE, between={"next": next_match}, measure=fonts.measure)
    return [item.text for item in frame.items if isinstance(item, Text)]


def test_a_label_that_is_the_match_id_is_said_once() -> None:
    texts = _texts({**states.PREGAME_DATA["next"], "match": "SF1", "label": "SF1"})
    about = [t for t in texts if "SF1" in t]
    assert about == ["MATCH SF1"]


def test_a_group_label_stays_beside_the_match() -> None:
    texts = _texts({**states.PREGAME_DATA["next"], "match": "A5", "label": "Group A"})
    assert "GROUP A \u00b7 MATCH A5" in texts
