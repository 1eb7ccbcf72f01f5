"""The public site in a real browser (Debian's headless Chromium over the DevTools pipe,
tests/office/cdp.py): at 360 px (a phone) and 1920 px nothing scrolls sideways, the first
view is whole with JavaScript off, and with it on a change arrives by itself.

Waits are bounded polls of the page; the one timing bound (a change shows within 5 s; the
page asks every second) only a working update can meet.
"""

from __future__ import annotations

import base64
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from office.views.board import SnapshotBoard
from office.views.slugs import slug
from office.web.publicweb import PublicSite, PublicWeb
from tests.office.cdp import CdpError, Chromium, Tab, find_chromium
from tests.office.test_web import sample_snapshot

CHROMIUM = find_chromium()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian: apt-get install chromium); "
           "the public site's browser test needs it")]

# clientWidth, not innerWidth: a phone (mobile emulation) zooms out to show a page wider
# than itself, and innerWidth grows with it; clientWidth stays the device's 360 px.
NO_SIDEWAYS = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
LONG = "Unihockey Basel Regio Kloten-Dietlikon-Jets Superlongteamnamewithoutanyspaces"
PAGES = ("/", "/schedule/", f"/team/{slug(LONG)}/", "/hall/hall-2/")


def wide_snapshot() -> dict[str, Any]:
    """The sample day with a name as long as names get: the worst case for a phone."""
    doc = sample_snapshot()
    doc["groups"][0]["rows"][1]["team"] = LONG
    for m in doc["matches"]:
        if m["home"] == "Bears":
            m["home"] = LONG
        if m["away"] == "Bears":
            m["away"] = LONG
    doc["halls"][1]["live"]["teams"]["home"] = LONG
    doc["scorers"] = [{"rank": 1, "team": LONG, "player": 9, "name": "Bartholomew "
                       "Featherstonehaugh-Wolfeschlegelsteinhausen", "goals": 5}]
    doc["placings"] = [{"place": 1, "team": LONG, "label": LONG, "match": "F",
                        "shared": False, "provisional": True, "eliminated": False}]
    return doc


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    assert CHROMIUM is not None
    with Chromium(CHROMIUM) as b:
        yield b


@pytest.fixture
def board() -> SnapshotBoard:
    b = SnapshotBoard()
    b.publish(wide_snapshot())
    return b


@pytest.fixture
def web(board: SnapshotBoard) -> Iterator[PublicWeb]:
    site = PublicSite(board)
    site.start()
    server = PublicWeb(site, host="127.0.0.1", port=0)
    server.start()
    deadline = time.monotonic() + 10
    while site.current() is None and time.monotonic() < deadline:
        site.wait_changed(None, 0.1)
    yield server
    server.stop()
    site.stop()


def open_at(browser: Chromium, url: str, width: int, height: int, *,
            scripts: bool = True, last: str = "footer") -> Tab:
    """A tab of that viewport (a phone's when narrow) that has loaded ``url`` (whole: its
    ``last`` element is there)."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget",
                           {"targetId": target, "flatten": True})["sessionId"]
    tab = Tab(browser, target, session)
    tab.send("Page.enable")
    tab.send("DOM.enable")
    tab.send("Emulation.setDeviceMetricsOverride",
             {"width": width, "height": height, "deviceScaleFactor": 1,
              "mobile": width < 800})
    if not scripts:
        tab.send("Emulation.setScriptExecutionDisabled", {"value": True})
    tab.send("Page.navigate", {"url": url})
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            root = tab.send("DOM.getDocument", {"depth": 0})["root"]
            # Ours, and whole (the footer comes last).
            if root.get("documentURL") == url and count(tab, last) == 1:
                return tab
        except CdpError:
            pass  # the document was replaced between two calls: the navigation goes on
        time.sleep(0.02)  # polling the DOM over CDP: pace it
    raise AssertionError(f"{url} did not load")


def count(tab: Tab, selector: str) -> int:
    """Elements matching ``selector``, read through the DOM domain (no page script)."""
    root = tab.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    return len(tab.send("DOM.querySelectorAll",
                        {"nodeId": root, "selector": selector})["nodeIds"])


def full_width_screenshot(tab: Tab, path: Path) -> tuple[int, int]:
    """A screenshot of the whole page as laid out; (content width in CSS px, PNG width)."""
    metrics = tab.send("Page.getLayoutMetrics")
    content = metrics["cssContentSize"]
    shot = tab.send("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": content["width"], "height": content["height"],
                 "scale": 1}})
    png = base64.b64decode(shot["data"])
    path.write_bytes(png)
    (png_width,) = struct.unpack(">I", png[16:20])  # the IHDR chunk's width
    return int(content["width"]), png_width


@pytest.mark.parametrize("width,height", [(360, 780), (1920, 1080)])
def test_nothing_scrolls_sideways_and_the_first_view_needs_no_script(
        browser: Chromium, web: PublicWeb, tmp_path: Path, width: int, height: int) -> None:
    for path in PAGES:
        tab = open_at(browser, web.url(path), width, height, scripts=False)
        try:
            # Content before (without) any script: the tables, the live hall, the schedule.
            if path == "/":
                assert count(tab, 'table tr[data-team="Lions"]') == 1
                assert count(tab, '.hall[data-hall="hall-2"] .clock') == 1
            assert count(tab, "main section") >= 1, path
            content_width, png_width = full_width_screenshot(
                tab, tmp_path / f"{width}{path.replace('/', '_')}.png")
            assert content_width <= width, f"{path} at {width} px is {content_width} px wide"
            assert png_width == content_width
        finally:
            tab.close()


def test_the_width_check_can_fail(browser: Chromium, web: PublicWeb, tmp_path: Path) -> None:
    tab = open_at(browser, web.url("/"), 360, 780)
    try:
        assert tab.evaluate(NO_SIDEWAYS)
        tab.evaluate("document.querySelector('main').insertAdjacentHTML('beforeend', "
                     "'<div style=\"width:500px\">x</div>')")
        assert tab.evaluate(f"!({NO_SIDEWAYS})")
        assert full_width_screenshot(tab, tmp_path / "wide.png")[0] > 360
    finally:
        tab.close()


def test_a_wide_screen_gets_two_columns_and_every_column_of_the_table(
        browser: Chromium, web: PublicWeb) -> None:
    tab = open_at(browser, web.url("/"), 1920, 1080)
    try:
        assert tab.evaluate(NO_SIDEWAYS)
        columns = tab.evaluate("getComputedStyle(document.querySelector('main'))"
                               ".gridTemplateColumns.split(' ').length")
        assert columns == 2
        assert tab.evaluate("getComputedStyle(document.querySelector('td.wide')).display"
                            ) == "table-cell"
    finally:
        tab.close()
    phone = open_at(browser, web.url("/"), 360, 780)
    try:  # a phone hides the columns it can spare
        assert phone.evaluate("getComputedStyle(document.querySelector('td.wide')).display"
                              ) == "none"
    finally:
        phone.close()


def test_a_change_arrives_by_itself_and_the_clock_runs(
        browser: Chromium, web: PublicWeb, board: SnapshotBoard) -> None:
    tab = open_at(browser, web.url("/"), 360, 780)
    score = "document.querySelector('.hall[data-hall=\"hall-2\"] .score')?.textContent"
    clock = "document.querySelector('.hall[data-hall=\"hall-2\"] .clock')?.textContent"
    try:
        assert tab.evaluate(score) == "3:1"
        shown = tab.evaluate(clock)
        assert shown == "12:35"
        tab.wait_for(f"{clock} !== {shown!r}")  # counts down between two answers
        tab.wait_for("document.body.dataset.live === 'ok'")  # the first poll came back

        doc = wide_snapshot()
        doc["halls"][1]["live"]["score"] = {"home": 4, "away": 1}
        doc["groups"][0]["rows"][0]["points"] = 7
        start = time.monotonic()
        board.publish(doc)
        tab.wait_for(f"{score} === '4:1'")
        elapsed = time.monotonic() - start
        assert elapsed < 5, f"the change took {elapsed:.2f} s to show"
        assert tab.evaluate("document.querySelector('table tr[data-team=\"Lions\"] "
                            "td.points').textContent") == "7"
        assert tab.evaluate(NO_SIDEWAYS)
    finally:
        tab.close()
