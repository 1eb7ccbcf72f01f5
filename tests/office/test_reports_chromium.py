"""Results from a pitch without a board, end to end: ``office serve`` as a child process on
the broker exactly as shipped (arena.conf, arena.acl, users as install.sh makes them), its
office page and its public site on loopback, and Debian's headless Chromium as the office's
screen and as the referees' phones (tests/office/cdp.py).

The office lists each match's result link and prints it as a QR code on the game sheet
(read back by ZBar from the page as Chromium draws it); a phone with JavaScript switched
off opens the link, enters the score, the scorers and the cards in the event's language
(Finnish here, rules 003's), and the office counts it. A wrong token, a form sent again, two
phones of one match, the office's own form and its confirmation are each tried. Waits are
bounded polls; nothing sleeps."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import (
    SHIPPED_USERS,
    ShippedBroker,
    free_port,
    office_serve,
    port_open,
    stop_gently,
    wait_for,
)
from tests.office.cdp import Chromium, Tab
from tests.office.test_page_chromium import browser, pytestmark

__all__ = ["browser", "pytestmark"]  # the shared fixture and the skip without chromium

ROOT = Path(__file__).resolve().parents[2]
ZBAR = shutil.which("zbarimg")


def football_cup(path: Path) -> Path:
    """The rules 003 example, in Finnish (its rule document's language), with a roster."""
    text = (ROOT / "examples/tournaments/003-football.toml").read_text(encoding="utf-8")
    text = text.replace('preset = "football-p10"\n', 'preset = "football-p10"\nlanguage = "fi"\n')
    text = text.replace('teams = ["HJK Sininen", ',
                        'teams = [{name = "HJK Sininen", roster = {7 = "Aino Aalto", '
                        '9 = "Eetu Berg"}}, ')
    path.write_text(text, encoding="utf-8")
    return path


def http(url: str, body: bytes | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:  # loopback only
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def goto(tab: Tab, url: str) -> None:
    tab.send("Page.navigate", {"url": url})
    tab.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")


def text(tab: Tab, selector: str) -> Any:
    return tab.evaluate(f"(e => e && e.textContent.trim())(document.querySelector("
                        f"{json.dumps(selector)}))")


def fill(tab: Tab, **fields: str) -> None:
    for name, value in fields.items():
        assert tab.evaluate(f"(e => e ? (e.value = {json.dumps(value)}, true) : false)"
                            f"(document.getElementsByName({json.dumps(name)})[0])"), name


def send(tab: Tab, then: str) -> None:
    """Press the form's button as a person does; wait for the page it leads to."""
    marker = tab.evaluate("document.body.dataset.sent = 'before'")
    assert marker == "before"
    tab.evaluate("document.querySelector('button[type=submit]').click()")
    tab.wait_for(f"document.readyState === 'complete' && !document.body.dataset.sent "
                 f"&& !!document.querySelector({json.dumps(then)})")


def match_doc(office_port: int, match: str) -> dict[str, Any]:
    _, body = http(f"http://127.0.0.1:{office_port}/api/snapshot")
    found = [m for m in json.loads(body).get("matches", []) if m.get("id") == match]
    return found[0] if found else {}


@pytest.fixture
def office(tmp_path: Path) -> Iterator[tuple[int, int, Path]]:
    broker = ShippedBroker(tmp_path / "broker", SHIPPED_USERS)
    broker.start()
    office_port, public_port = free_port(), free_port()
    cup = football_cup(tmp_path / "cup.toml")
    proc = office_serve(tmp_path, broker.port, cup, username="office",
                        password=SHIPPED_USERS["office"], http=office_port,
                        extra=["--public-port", str(public_port), "--public-bind", "127.0.0.1",
                               "--public-url", f"http://127.0.0.1:{public_port}/"])
    try:
        wait_for(lambda: proc.poll() is not None or (port_open(office_port)
                                                     and port_open(public_port)),
                 30, "office serve to listen")
        assert proc.poll() is None, (tmp_path / "office.log").read_text()
        yield office_port, public_port, tmp_path / "office.log"
    finally:
        stop_gently(proc)
        broker.stop()


def test_referees_phones_and_the_office_enter_results_through_office_serve(
        browser: Chromium, office: tuple[int, int, Path], tmp_path: Path) -> None:
    office_port, public_port, log = office
    base = f"http://127.0.0.1:{office_port}"
    public = f"http://127.0.0.1:{public_port}"
    # The office's screen: the page links the listing, the listing every match's link.
    screen = browser.open_tab(f"{base}/")
    phones: list[Tab] = []
    try:
        screen.wait_for("!!document.querySelector('#result-links')")
        assert screen.evaluate("document.querySelector('#result-links').getAttribute('href')"
                               ) == "/results/"
        goto(screen, f"{base}/results/")
        screen.wait_for("document.querySelectorAll('#result-links tr[data-match]').length === 16")
        links = screen.evaluate(
            "Object.fromEntries([...document.querySelectorAll('#result-links tr[data-match]')]"
            ".map(r => [r.dataset.match, r.querySelector('a.result-link').href]))")
        assert all(link.startswith(f"{public}/r/") for link in links.values())
        assert len(set(links.values())) == 16
        # The game sheet prints A1's link as a QR code a phone reads.
        goto(screen, f"{base}/sheet/A1")
        assert text(screen, "#result-link .url") == links["A1"]
        if ZBAR is not None:
            shot = screen.screenshot(tmp_path / "sheet.png", 1240, 1754)
            read = subprocess.run([ZBAR, "--raw", "-q", str(shot)], capture_output=True,
                                  text=True, check=False).stdout.split()
            assert read == [links["A1"]]
        # The two servers keep their parts: no form on the office's port for phones, no
        # office listing on the public one.
        assert http(f"{base}/r/{links['A1'].rsplit('/', 1)[1]}")[0] == 404
        assert http(f"{public}/results/")[0] == 404
        assert http(f"{public}/", b"home_goals=1")[0] == 405  # a form posts only to /r/
        assert http(f"{base}/", b"home_goals=1")[0] == 405

        # A wrong token: the phone is told, in the event's language; nothing is stored.
        phone = browser.open_tab(f"{public}/r/this-is-not-a-token-at-all")
        phones.append(phone)
        assert "Tätä tuloslinkkiä ei tunneta" in text(phone, "#message")
        assert http(f"{public}/r/this-is-not-a-token-at-all")[0] == 404
        assert http(f"{public}/r/this-is-not-a-token-at-all", b"home_goals=9")[0] == 404

        # The referee of A1 scans the sheet: the form, in Finnish, without a script.
        goto(phone, links["A1"])
        assert text(phone, "h1") == "Ottelun A1 tulos"
        # No script at all (and the policy allows none): it works as it is without one.
        assert phone.evaluate("document.scripts.length") == 0
        fill(phone, home_goals="2", away_goals="1", home_scorers="7 9", away_scorers="?",
             away_yellow="5")
        body = phone.evaluate("new URLSearchParams(new FormData("
                              "document.querySelector('#result-form'))).toString()")
        send(phone, "#message")
        assert text(phone, "#message").startswith("Tallennettu.")
        assert text(phone, "#entry-score") == "2-1"
        wait_for(lambda: match_doc(office_port, "A1").get("state") == "final", 15,
                 "the office to count A1")
        assert match_doc(office_port, "A1")["score"] == {"home": 2, "away": 1}
        # The very form again (sent twice, a retry): stored once.
        status, page = http(links["A1"], body.encode())
        assert status == 200 and "Tämä lomake on jo tallennettu" in page
        # A scorer off the roster: the field is named, nothing stored.
        fill(phone, home_goals="1", away_goals="1", home_scorers="8")
        send(phone, "#error")
        assert "numeroa 8" in text(phone, "#error")
        assert phone.evaluate("document.querySelector('#error').dataset.field"
                              ) == "home_scorers"

        # Two phones of A2 load the form; the first sends, the second is told and shown it.
        second, third = browser.open_tab(links["A2"]), browser.open_tab(links["A2"])
        phones += [second, third]
        fill(second, home_goals="1", away_goals="1")
        send(second, "#message")
        fill(third, home_goals="3", away_goals="1")
        send(third, "#message")
        assert "sillä välin" in text(third, "#message")
        assert text(third, "#entry-score") == "1-1"
        send(third, "#message")  # sent again, knowingly: a correction
        assert text(third, "#entry-score") == "3-1"
        wait_for(lambda: match_doc(office_port, "A2").get("score") == {"home": 3, "away": 1},
                 15, "the office to take the second phone's correction")

        # The office enters B1 on its own form (its language: English), and confirms A1.
        goto(screen, f"{base}/results/B1")
        fill(screen, home_goals="0", away_goals="2")
        send(screen, "#message")
        assert text(screen, "#message") == "Stored."
        assert screen.evaluate("document.querySelector('#entry-score').dataset.source"
                               ) == "office"
        goto(screen, f"{base}/results/")
        assert screen.evaluate("document.querySelector('tr[data-match=\"B1\"] .score')"
                               ".dataset.source") == "office"
        screen.evaluate("document.querySelector('tr[data-match=\"A1\"] button.confirm')"
                        ".click()")
        screen.wait_for("!!document.querySelector('tr[data-match=\"A1\"] .confirmed')")
        # The referee's phone can no longer change A1.
        goto(phone, links["A1"])
        assert text(phone, "#entry-confirmed") == "kilpailutoimiston vahvistama"
        assert "Kilpailutoimisto on vahvistanut" in text(phone, "#message")
        assert phone.evaluate("document.forms.length") == 0
        assert match_doc(office_port, "A1")["score"] == {"home": 2, "away": 1}
    finally:
        for tab in phones:
            tab.close()
        screen.close()
    # Every write, and every refused one, is in the office's log with its source.
    wait_for(lambda: "result of A2: 3-1 stored from the phone form" in log.read_text(), 10,
             "the log line of the correction")
    logged = log.read_text()
    assert "result of A1: 2-1 stored from the phone form (entry 1" in logged
    assert "result of B1: 0-2 stored from the office form" in logged
    assert "result of A2: the phone form from" in logged and ": stale" in logged
    assert "result link: unknown token from" in logged
    assert "entry 1 confirmed by the office" in logged
