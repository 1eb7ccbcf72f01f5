"""The operator page in a real browser, as on a phone at the table: Debian's headless
Chromium (driven over the DevTools pipe, tests/office/cdp.py) loads it from an in-process
daemon on 127.0.0.1 at 390 px wide, shows the entry and the last press's outcome without
scrolling sideways, and follows the game by itself (its own polling of /operator.json).
Waits are bounded polls of the page's DOM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.core.units import NS_PER_S
from tests.daemon.inprocess import InProcessHall
from tests.daemon.test_operator import FLOORBALL, SERVED, press
from tests.office.cdp import Chromium, find_chromium

CHROMIUM = find_chromium()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian: apt-get install chromium); "
           "the operator page's browser test needs it")]
PHONE = (390, 844)


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    assert CHROMIUM is not None
    with Chromium(CHROMIUM, width=PHONE[0], height=PHONE[1]) as b:
        yield b


def test_the_page_shows_entry_and_outcome_on_a_phone_and_follows_the_game(
        tmp_path: Path, browser: Chromium) -> None:
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    assert daemon.console is not None and daemon.operator_web is not None
    t0 = hall.time.now + NS_PER_S
    press(daemon, "start_stop", t0)
    press(daemon, "start_stop", t0 + 3 * NS_PER_S)
    daemon.run_until(t0 + 4 * NS_PER_S)
    press(daemon, "timeout_home", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    tab = browser.open_tab(daemon.operator_web.url("/"))
    try:
        tab.send("Emulation.setDeviceMetricsOverride",
                 {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 3,
                  "mobile": True})
        # Server-rendered: there before any script has run.
        assert "no time-outs in group games" in tab.wait_for(
            "document.querySelector('#feedback .refused')?.textContent")
        # Now an entry in progress, picked up by the page's own polling.
        press(daemon, "penalty_home", hall.time.now)
        daemon.run_until(hall.time.now + NS_PER_S // 2)
        daemon.console.key("7", hall.time.now)
        daemon.console.key("enter", hall.time.now)  # the kind next
        daemon.run_until(hall.time.now + NS_PER_S // 2)
        shown = tab.wait_for("(() => { const t = document.querySelector('#entry')"
                             ".textContent; return t.includes('PENALTY HOME') && "
                             "t.includes('double minor') ? t : ''; })()")
        assert "7" in shown
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        assert tab.evaluate("window.innerWidth") == PHONE[0]
        # The outcome of the next press replaces the entry's place in time.
        daemon.console.key("1", hall.time.now)
        daemon.run_until(hall.time.now + NS_PER_S // 2)
        assert "PENALTY HOME #7 MINOR" in tab.wait_for(
            "document.querySelector('#feedback .ok')?.textContent")
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        records = tab.evaluate("document.querySelector('#records').textContent")
        assert "penalty home #7 minor" in records and "UNDO" in records
    finally:
        tab.close()
        hall.stop()


def test_the_whole_menu_is_reachable_on_a_phone_a_page_at_a_time(
        tmp_path: Path, browser: Chromium) -> None:
    """The MENU's 18 actions on a 390 px phone: each page's numbers (dot turns them) are
    all on the page, none wider than the screen, and the list says it waits for its key."""
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    assert daemon.console is not None and daemon.operator_web is not None
    daemon.run_until(hall.time.now + NS_PER_S)
    press(daemon, "menu", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    tab = browser.open_tab(daemon.operator_web.url("/"))
    numbers = ("Array.from(document.querySelectorAll('#entry .keys th'))"
               ".map(th => th.textContent).filter(k => /^[0-9]+$/.test(k)).join(',')")
    try:
        tab.send("Emulation.setDeviceMetricsOverride",
                 {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 3,
                  "mobile": True})
        assert tab.wait_for(numbers) == ",".join(str(n) for n in range(1, 10))
        assert "waits for your key" in tab.evaluate(
            "document.querySelector('#countdown').textContent")
        assert "more: page 1 of 2" in tab.evaluate(
            "document.querySelector('#entry').textContent")
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        daemon.console.key("dot", hall.time.now)  # the page follows by its own polling
        daemon.run_until(hall.time.now + NS_PER_S // 2)
        second = ",".join(str(n) for n in range(10, 19))
        assert tab.wait_for(f"(() => {{ const k = {numbers}; return k == '{second}' ? k "
                            f": ''; }})()") == second
        assert "next match from the schedule" in tab.evaluate(
            "document.querySelector('#entry').textContent")
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    finally:
        tab.close()
        hall.stop()
