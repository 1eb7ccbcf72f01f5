"""The office page shows the rulings (office.rules.rulings) and what the tournament gives out:
the service folds the store's office actions, the page (in a real Chromium) shows the
eliminated team and its voided matches (rules 001 'Waiting period'), the placings, the top
scorers and the green cards (rules 003 'Match officials')."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from arena.tournament.event import Event
from office.rules import rulings
from office.rules.forfeitscore import forfeit_goals
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard
from office.web.officepage import OfficeWeb
from tests.office.cdp import Chromium
from tests.office.test_page_chromium import LAST, browser, pytestmark, text
from tests.office.test_public_chromium import open_at
from tests.office.test_rulings import FLOORBALL, T0, TATRAN, played_groups, store_with

__all__ = ["browser", "pytestmark"]  # the shared fixture and the skip without chromium


def test_the_page_shows_eliminations_placings_scorers_and_green_cards(
        browser: Chromium, tmp_path: Path) -> None:
    from arena.tournament.files import load_tournament  # noqa: PLC0415

    t = load_tournament(FLOORBALL)
    db = store_with(tmp_path, t, played_groups(t))
    store = Store(db)
    # Tatran plays A2 away and A4 away: late twice (as `office forfeit` records it).
    for match in ("A2", "A4"):
        forfeit = rulings.Forfeit(match, TATRAN, rulings.ForfeitCause.LATE, "late", T0)
        store.admin(rulings.FORFEIT, rulings.forfeit_data(forfeit, "away",
                                                        forfeit_goals(t, match)), T0)
    store.admin(rulings.GREEN_CARD, {"match": "A1", "team": "FBC Ostrava", "player": 9,
                                     "reason": ""}, T0)
    board = SnapshotBoard()
    OfficeService(Event.single(t), store, None, board).refresh_all(T0 + timedelta(days=1))
    server = OfficeWeb(board, host="127.0.0.1", port=0)
    server.start()
    tab = open_at(browser, server.url("/"), 1920, 1080, last=LAST)
    try:
        assert tab.evaluate("document.querySelectorAll('#eliminated tr[data-team]').length") == 1
        row = f'#eliminated tr[data-team="{TATRAN}"]'
        assert tab.evaluate(text(f"{row} .voided")) == "A2, A4, A5"
        assert tab.evaluate(text(f"{row} .forfeits")) == "A2, A4"
        assert tab.evaluate(text("#eliminated th:nth-child(2)")) == "Late forfeits"
        assert tab.evaluate(
            "[...document.querySelectorAll('#results tr[data-voided=\"true\"]')]"
            ".map(r => r.dataset.match)") == ["A2", "A4", "A5"]
        assert "rules 001 'Waiting period'" in tab.evaluate(
            text('#results tr[data-match-note="A4"] .voided'))
        # Nothing of the bracket is played: the places say who they will be.
        assert tab.evaluate(text('#placings tr[data-place="1"] td.team')) == "(Winner F)"
        assert tab.evaluate(text(f'#placings tr[data-team="{TATRAN}"] .badge')) == "eliminated"
        assert tab.evaluate(text('#scorers tbody tr td.goals')) not in (None, "")
        assert tab.evaluate(text('#green-cards tr[data-match="A1"] td.player')) == "#9"
        assert tab.evaluate("document.querySelector('#csv-placings').getAttribute('href')"
                            ) == "/placings.csv"
        assert tab.evaluate("document.querySelectorAll('.render-error').length") == 0
    finally:
        tab.close()
        server.stop()
        store.close()
