"""The office page's server: the snapshot board, long-poll, CSV exports, errors.

Everything runs on 127.0.0.1 with a free port. Nothing sleeps to let time pass: a waiting
request is released by a publish from another thread, and the tests measure how long that
took against a limit far above the expected milliseconds but far below the poll timeout.
"""

from __future__ import annotations

import csv
import http.client
import inspect
import io
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from office.views.board import Later, SnapshotBoard
from office.web.officepage import RESULTS_COLUMNS, TABLES_COLUMNS, OfficeWeb


def table_row(rank: int, team: str, line: tuple[int, int, int, int, int, int],
         decided_by: str | None, *, lots: bool = False) -> dict[str, Any]:
    """``line``: won, drawn, lost, goals for, goals against, penalty minutes."""
    w, d, lost, gf, ga, pim = line
    return {"rank": rank, "team": team, "played": w + d + lost, "won": w, "drawn": d,
            "lost": lost, "goals_for": gf, "goals_against": ga, "points": 2 * w + d,
            "penalty_minutes": pim, "decided_by": decided_by, "lots_needed": lots}


def sample_snapshot() -> dict[str, Any]:
    """A realistic office view in the middle of a tournament day."""
    def match(mid: str, group: str | None, where: tuple[str, str],
              teams: tuple[str | None, str | None], state: str, *,
              score: tuple[int, int] | None = None, **extra: Any) -> dict[str, Any]:
        (hall, start), (home, away) = where, teams
        m: dict[str, Any] = {
            "id": mid, "stage": "group" if group else "playoff", "group": group, "hall": hall,
            "start": f"2026-12-05T{start}:00", "home": home, "away": away,
            "home_slot": extra.pop("home_slot", home), "away_slot": extra.pop("away_slot", away),
            "state": state,
            "score": {"home": score[0], "away": score[1]} if score else None,
            "decided_by": extra.pop("decided_by", "regulation" if score else None),
            "confirm_at": None, "gaps": [], "correction": None}
        m.update(extra)
        return m

    return {
        "version": 0, "generated": "2026-12-05T10:31:02",
        "tournament": {"id": "example-cup", "name": "Example Cup 2026"},
        "groups": [
            {"name": "A", "provisional": True, "complete": False, "rows": [
                table_row(1, "Lions", (2, 0, 0, 7, 2, 6), "points"),
                table_row(2, "Bears", (1, 0, 1, 4, 4, 12), "head_to_head_points"),
                table_row(3, "Wolves", (1, 0, 1, 3, 5, 4), "goal_difference"),
                table_row(4, "Eagles", (0, 0, 2, 2, 5, 8), None)]},
            {"name": "B", "provisional": False, "complete": True, "rows": [
                table_row(1, "Sharks", (2, 1, 0, 9, 3, 2), "points"),
                # Level after every criterion and no draw recorded yet: shared rank.
                table_row(2, "Tigers", (1, 1, 1, 5, 5, 10), None, lots=True),
                table_row(2, "Falcons", (1, 1, 1, 5, 5, 10), "points", lots=True),
                table_row(4, "Hawks", (0, 1, 2, 2, 8, 14), None)]},
        ],
        "matches": [
            match("A1", "A", ("hall-1", "09:00"), ("Lions", "Bears"), "confirmed", score=(3, 1)),
            match("A2", "A", ("hall-2", "09:00"), ("Wolves", "Eagles"), "corrected", score=(2, 1),
                  correction={"reason": "goal 3 was scored by Wolves, not Eagles",
                              "at": "2026-12-05T09:50:00"}),
            match("A3", "A", ("hall-1", "09:45"), ("Lions", "Wolves"), "final", score=(4, 1),
                  decided_by="overtime", confirm_at="2026-12-05T10:40:00", gaps=[4, 5]),
            match("A4", "A", ("hall-2", "09:45"), ("Bears", "Eagles"), "live", score=(3, 1)),
            match("A5", "A", ("hall-1", "10:30"), ("Lions", "Eagles"), "scheduled"),
            match("B1", "B", ("hall-3", "09:00"), ("Sharks", "Hawks"), "confirmed", score=(5, 0),
                  decided_by="forfeit"),
            # Unfilled sides: the service sends the slot's label ("1st A"), never a team.
            match("SF1", None, ("hall-1", "12:00"), ("1st A", "2nd B"), "scheduled",
                  home_slot="A1", away_slot="B2"),
            match("SF2", None, ("hall-2", "12:00"), ("Sharks", None), "scheduled",
                  home_slot="B1", away_slot="A2"),
            match("F", None, ("hall-1", "14:00"), (None, None), "scheduled",
                  home_slot="W:SF1", away_slot="W:SF2"),
        ],
        "bracket": [
            {"match": "SF1", "stage": "playoff", "home": None, "away": None,
             "home_slot": "A1", "away_slot": "B2", "provisional": True},
            {"match": "SF2", "stage": "playoff", "home": "Sharks", "away": None,
             "home_slot": "B1", "away_slot": "A2", "provisional": False},
            {"match": "F", "stage": "playoff", "home": None, "away": None,
             "home_slot": "W:SF1", "away_slot": "W:SF2", "provisional": True},
        ],
        "suspensions": [
            {"team": "Bears", "player": 7, "name": "A. Player", "rule": "red card",
             "offences": 2, "banned": 1, "served": [], "pending": ["A5"], "waiting": 0},
            {"team": "Hawks", "player": 21, "name": None, "rule": "match penalty",
             "offences": 1, "banned": 1, "served": ["B2"], "pending": [], "waiting": 0},
        ],
        "halls": [
            {"hall": "hall-1", "online": True, "live": None, "next": "A5"},
            {"hall": "hall-2", "online": True, "live": {
                "match": "A4", "phase": "period", "period": 2, "clock_ms": 754_200,
                "running": True, "score": {"home": 3, "away": 1},
                "teams": {"home": "Bears", "away": "Eagles"}}, "next": "SF2"},
            {"hall": "hall-3", "online": False, "live": None, "next": None},
        ],
        "alerts": [  # newest first, as the service sends them
            {"at": "2026-12-05T10:02:00", "text": "hall-3 offline"},
            {"at": "2026-12-05T09:51:00", "text": "A2 corrected to 2:1 (goal 3 was Wolves')"},
            {"at": None, "text": "group B: Tigers and Falcons need lots"},
        ],
    }


# --- the board ------------------------------------------------------------------------


def test_publish_numbers_versions_and_keeps_a_copy() -> None:
    board = SnapshotBoard()
    assert board.current()["version"] == 0
    doc = {"version": 99, "groups": []}
    assert board.publish(doc) == 1
    assert board.publish(doc) == 2
    assert board.current()["version"] == 2
    assert doc["version"] == 99  # the caller's doc is not changed under it


def test_a_later_part_is_made_by_the_first_reader_of_its_version_only() -> None:
    """The scorers' entries are made when the page is read, once a version; no
    reader ever sees a part not yet made, and publishing makes nothing."""
    board = SnapshotBoard()
    made: list[int] = []

    def part(n: int) -> Later:
        return Later(lambda: made.append(n) or [n])

    board.publish({"scorers": part(1), "x": 1})
    board.publish({"scorers": part(2), "x": 2})
    assert made == []  # nobody read version 1: it is never made
    first = board.current()
    assert first == {"scorers": [2], "x": 2, "version": 2}
    assert list(first) == ["scorers", "x", "version"]  # in its place: the same JSON bytes
    assert board.wait(1, timeout=60) is first and board.current() is first
    assert made == [2]
    board.publish({"scorers": part(3), "x": 3})
    assert board.wait(2, timeout=60)["scorers"] == [3] and made == [2, 3]


def test_wait_returns_at_once_when_behind_or_from_an_earlier_run() -> None:
    board = SnapshotBoard()
    board.publish({"x": 1})
    board.publish({"x": 2})
    start = time.monotonic()
    assert board.wait(0, timeout=60)["x"] == 2
    assert board.wait(1, timeout=60)["x"] == 2
    assert board.wait(57, timeout=60)["version"] == 2  # a page from before a restart
    assert time.monotonic() - start < 10


def test_wait_times_out_with_the_current_doc() -> None:
    board = SnapshotBoard()
    board.publish({"x": 1})
    assert board.wait(1, timeout=0)["version"] == 1
    assert board.wait(1, timeout=0.05)["version"] == 1


class SignallingBoard(SnapshotBoard):
    """Tells the test when a reader has begun to wait, so it can publish then."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, since: int, timeout: float) -> dict[str, Any]:
        self.waiting.set()
        return super().wait(since, timeout)


def test_wait_wakes_up_when_another_thread_publishes() -> None:
    board = SignallingBoard()
    board.publish({"x": 1})
    got: list[dict[str, Any]] = []
    waiter = threading.Thread(target=lambda: got.append(board.wait(1, timeout=60)))
    waiter.start()
    assert board.waiting.wait(10)
    start = time.monotonic()
    board.publish({"x": 2})
    waiter.join(10)
    elapsed = time.monotonic() - start
    assert got and got[0]["x"] == 2 and got[0]["version"] == 2
    assert elapsed < 10  # woken by the publish, not by the 60 s timeout


# --- the server -----------------------------------------------------------------------


@pytest.fixture
def board() -> SnapshotBoard:
    b = SignallingBoard()
    b.publish(sample_snapshot())
    return b


@pytest.fixture
def web(board: SnapshotBoard) -> Iterator[OfficeWeb]:
    # A long poll timeout: a long-poll that returns early can only have been woken.
    server = OfficeWeb(board, host="127.0.0.1", port=0, poll_timeout=60)
    server.start()
    yield server
    server.stop()


def get(web: OfficeWeb, path: str, timeout: float = 30) -> tuple[int, Any, bytes]:
    try:
        with urllib.request.urlopen(web.url(path), timeout=timeout) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.headers, err.read()


def test_serves_the_page_self_contained(web: OfficeWeb) -> None:
    assert web.port > 0
    status, headers, body = get(web, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    page = body.decode("utf-8")
    assert page.lower().startswith("<!doctype html>")
    assert "/api/live?since=" in page and 'id="groups"' in page
    assert 'href="/tables.csv"' in page and 'href="/results.csv"' in page
    # No external resources: nothing loaded from another origin, and the CSP forbids it.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    # The script never writes markup of its own: it moves in what the server rendered.
    assert ".innerHTML" not in page and "insertAdjacentHTML" not in page


def test_the_page_is_rendered_on_the_server(web: OfficeWeb) -> None:
    """The content is in the HTML itself, before any script: the tables, the halls, the
    results and the alerts, in the version the page then long-polls from."""
    page = get(web, "/")[2].decode("utf-8")
    assert '<body data-version="1">' in page
    assert re.search(r'<tr data-team="Lions">.*?<td class="points">4</td>', page, re.S)
    assert '<span class="clock" data-running="true">12:35</span>' in page
    assert 'data-match="A3" data-state="final"' in page
    assert '<h2>Notices: 2</h2>' in page and "hall-3 offline" in page


def test_the_live_part_long_polls_and_says_when_nothing_changed(
        web: OfficeWeb, board: SignallingBoard) -> None:
    status, headers, body = get(web, "/api/live")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    live = body.decode("utf-8")
    assert live.startswith('<div id="live" data-version="1"') and "<html" not in live
    board.waiting.clear()
    got: list[tuple[int, Any, bytes]] = []
    client = threading.Thread(target=lambda: got.append(get(web, "/api/live?since=1")))
    client.start()
    assert board.waiting.wait(10), "the request never reached the board"
    doc = sample_snapshot()
    doc["groups"][0]["rows"][0]["points"] = 9
    board.publish(doc)
    client.join(30)
    assert got and got[0][0] == 200
    fresh = got[0][2].decode("utf-8")
    assert 'data-version="2"' in fresh and '<td class="points">9</td>' in fresh
    with OfficeWeb(board, host="127.0.0.1", poll_timeout=0.05) as quick:
        assert get(quick, "/api/live?since=2")[:3:2] == (204, b"")


@pytest.mark.parametrize("lang,heading", [("en", "Group tables"), ("cs", "Tabulky skupin"),
                                          ("sr", "Tabele grupa"), ("fi", "Lohkotaulukot")])
def test_the_page_in_each_language(web: OfficeWeb, lang: str, heading: str) -> None:
    page = get(web, f"/?lang={lang}")[2].decode("utf-8")
    assert f'<html lang="{lang}">' in page and f"<h2>{heading}</h2>" in page
    assert f"<h2>{heading}</h2>" in get(web, f"/api/live?lang={lang}")[2].decode("utf-8")


def test_the_server_default_language_and_a_bad_one() -> None:
    board = SnapshotBoard()
    board.publish(sample_snapshot())
    with OfficeWeb(board, host="127.0.0.1", lang="fi") as web:
        assert "<h2>Lohkotaulukot</h2>" in get(web, "/")[2].decode("utf-8")
        status, _, body = get(web, "/?lang=de")
        assert status == 400 and body == b"lang must be one of en, cs, sr, fi\n"
        assert get(web, "/api/live?lang=xx")[0] == 400
    with pytest.raises(ValueError, match="language 'de'"):
        OfficeWeb(board, host="127.0.0.1", lang="de")


def test_a_malformed_snapshot_still_renders_a_page(web: OfficeWeb,
                                                   board: SnapshotBoard) -> None:
    """Odd parts read as empty; a section that cannot be shown at all says so in its place
    and the rest of the page stands."""
    board.publish({"groups": "nope", "matches": [1, None, {"id": "X", "score": "3-1",
                                                           "gaps": [1]}],
                   "tournament": None, "halls": [{"hall": "h", "live": {"teams": 3}}],
                   "alerts": [None, {"text": 5}], "office": []})
    status, _, body = get(web, "/")
    page = body.decode("utf-8")
    assert status == 200 and "No groups." in page and 'data-match="X"' in page
    assert 'class="render-error"' not in page


def test_healthz(web: OfficeWeb) -> None:
    assert get(web, "/healthz")[::2] == (200, b"ok")


def test_snapshot_without_since_answers_at_once(web: OfficeWeb) -> None:
    status, headers, body = get(web, "/api/snapshot")
    assert status == 200
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert headers["Cache-Control"] == "no-store"
    doc = json.loads(body)
    assert doc["version"] == 1
    assert doc["tournament"]["name"] == "Example Cup 2026"


def test_snapshot_behind_answers_at_once(web: OfficeWeb) -> None:
    start = time.monotonic()
    status, _, body = get(web, "/api/snapshot?since=0")
    assert status == 200 and json.loads(body)["version"] == 1
    assert time.monotonic() - start < 10  # the poll timeout is 60 s


def test_long_poll_wakes_up_on_publish(web: OfficeWeb, board: SignallingBoard) -> None:
    board.waiting.clear()
    got: list[tuple[int, Any, bytes]] = []
    client = threading.Thread(target=lambda: got.append(get(web, "/api/snapshot?since=1")))
    client.start()
    assert board.waiting.wait(10), "the request never reached the board"
    start = time.monotonic()
    doc = sample_snapshot()
    doc["groups"][0]["rows"][1]["points"] = 5
    board.publish(doc)
    client.join(30)
    elapsed = time.monotonic() - start
    assert got, "the long-poll never answered"
    status, _, body = got[0]
    answer = json.loads(body)
    assert status == 200 and answer["version"] == 2
    assert answer["groups"][0]["rows"][1]["points"] == 5
    assert elapsed < 10, f"long-poll took {elapsed:.2f} s: woken by the timeout, not the publish"


def test_stop_drops_long_polls_in_flight(board: SignallingBoard) -> None:
    web = OfficeWeb(board, host="127.0.0.1", poll_timeout=60)
    web.start()
    board.waiting.clear()
    outcome: list[BaseException | int] = []

    def long_poll() -> None:
        try:
            outcome.append(get(web, "/api/snapshot?since=1")[0])
        except (OSError, http.client.HTTPException) as err:
            outcome.append(err)

    client = threading.Thread(target=long_poll)
    client.start()
    assert board.waiting.wait(10)
    start = time.monotonic()
    web.stop()
    client.join(30)
    elapsed = time.monotonic() - start
    # The page must learn at once that the service is gone, not a poll timeout later.
    assert outcome and isinstance(outcome[0], BaseException), outcome
    assert elapsed < 10


def test_long_poll_times_out_with_the_current_doc() -> None:
    board = SnapshotBoard()
    board.publish(sample_snapshot())
    with OfficeWeb(board, host="127.0.0.1", poll_timeout=0.05) as web:
        status, _, body = get(web, "/api/snapshot?since=1")
    assert status == 200 and json.loads(body)["version"] == 1


@pytest.mark.parametrize("query", ["since=abc", "since=", "since=-1", "since=1.5",
                                   "since=1&since=2", "since=%00", "since=99999999999999999999"])
def test_bad_since_is_400(web: OfficeWeb, query: str) -> None:
    assert get(web, f"/api/snapshot?{query}")[0] == 400
    assert get(web, f"/api/live?{query}")[0] == 400


@pytest.mark.parametrize("path", ["/nope", "/api/snapshot/x", "/tables.csv/x", "/index.html",
                                  "/../etc/passwd", "/healthz/"])
def test_unknown_paths_are_404(web: OfficeWeb, path: str) -> None:
    assert get(web, path)[0] == 404


def read_csv(body: bytes) -> list[dict[str, str]]:
    assert body.startswith(b"\xef\xbb\xbf"), "Excel needs the byte order mark"
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"), newline="")))


def test_tables_csv(web: OfficeWeb) -> None:
    status, headers, body = get(web, "/tables.csv")
    assert status == 200
    assert headers["Content-Type"] == "text/csv; charset=utf-8"
    assert headers["Content-Disposition"] == 'attachment; filename="example-cup-tables.csv"'
    assert body.decode("utf-8-sig").splitlines()[0] == ",".join(TABLES_COLUMNS)
    rows = read_csv(body)
    assert len(rows) == 8
    assert rows[0] == {
        "group": "A", "rank": "1", "team": "Lions", "played": "2", "won": "2", "drawn": "0",
        "lost": "0", "goals_for": "7", "goals_against": "2", "goal_difference": "5",
        "points": "4", "penalty_minutes": "6", "decided_by": "points", "lots_needed": "false",
        "provisional": "true"}
    assert rows[3]["decided_by"] == "" and rows[3]["goal_difference"] == "-3"
    falcons = rows[6]
    assert (falcons["group"], falcons["team"], falcons["lots_needed"], falcons["provisional"]) \
        == ("B", "Falcons", "true", "false")


def test_results_csv(web: OfficeWeb) -> None:
    status, headers, body = get(web, "/results.csv")
    assert status == 200
    assert headers["Content-Disposition"] == 'attachment; filename="example-cup-results.csv"'
    assert body.decode("utf-8-sig").splitlines()[0] == ",".join(RESULTS_COLUMNS)
    rows = {r["match"]: r for r in read_csv(body)}
    assert list(rows) == ["A1", "A2", "A3", "A4", "A5", "B1", "SF1", "SF2", "F"]
    assert rows["A1"] == {
        "match": "A1", "stage": "group", "group": "A", "hall": "hall-1",
        "start": "2026-12-05T09:00:00", "home": "Lions", "away": "Bears", "home_goals": "3",
        "away_goals": "1", "decided_by": "regulation", "state": "confirmed",
        "correction_reason": ""}
    assert rows["A2"]["correction_reason"] == "goal 3 was scored by Wolves, not Eagles"
    assert (rows["A5"]["home_goals"], rows["A5"]["decided_by"]) == ("", "")
    # Unfilled bracket sides export their slot, filled ones the team.
    assert (rows["SF2"]["home"], rows["SF2"]["away"], rows["SF2"]["group"]) == ("Sharks", "A2", "")


ODD = ['Ö\'s "Ice" <script>alert(1)</script>', "Åland, Jääkiekko & co", "line\nbreak =1+1",
       "</script><img src=x onerror=alert(1)>", "🏒 Sharks"]


def test_odd_text_is_served_as_data(web: OfficeWeb, board: SnapshotBoard) -> None:
    doc = sample_snapshot()
    doc["tournament"] = {"id": "../../évil cup", "name": ODD[0]}
    doc["groups"][0]["rows"] = [table_row(i + 1, t, (1, 0, 0, 1, 0, 0), "points")
                                for i, t in enumerate(ODD)]
    doc["matches"][0]["home"] = ODD[3]
    doc["matches"][1]["correction"]["reason"] = ODD[2]
    board.publish(doc)
    status, headers, body = get(web, "/api/snapshot")
    assert status == 200 and headers["X-Content-Type-Options"] == "nosniff"
    served = json.loads(body.decode("utf-8"))
    assert served["tournament"]["name"] == ODD[0]
    assert [r["team"] for r in served["groups"][0]["rows"]] == ODD
    assert served["matches"][0]["home"] == ODD[3]

    _, headers, body = get(web, "/tables.csv")
    # A tournament id cannot steer the download out of the downloads folder.
    assert headers["Content-Disposition"] == 'attachment; filename="vil-cup-tables.csv"'
    assert [r["team"] for r in read_csv(body) if r["group"] == "A"] == ODD
    _, _, body = get(web, "/results.csv")
    results = {r["match"]: r for r in read_csv(body)}
    assert results["A1"]["home"] == ODD[3]
    assert results["A2"]["correction_reason"] == ODD[2]


def test_a_malformed_snapshot_still_exports(web: OfficeWeb, board: SnapshotBoard) -> None:
    board.publish({"groups": "nope", "matches": [1, None, {"id": "X", "score": "3-1",
                                                           "gaps": [1]}],
                   "tournament": None})
    status, headers, body = get(web, "/tables.csv")
    assert status == 200 and read_csv(body) == []
    assert headers["Content-Disposition"] == 'attachment; filename="tables.csv"'
    status, _, body = get(web, "/results.csv")
    assert status == 200 and [r["match"] for r in read_csv(body)] == ["X"]
    assert get(web, "/api/snapshot")[0] == 200


def test_garbage_and_hang_ups_do_not_hurt_the_server(web: OfficeWeb) -> None:
    for garbage in (b"\x00\xff\r\n\r\n", b"GET\r\n\r\n", b"BREW /pot HTTP/1.1\r\n\r\n",
                    b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", web.port), timeout=10) as s:
            s.sendall(garbage)
            s.shutdown(socket.SHUT_WR)
            while s.recv(4096):
                pass
    # A long-poll whose client hangs up before the answer.
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as s:
        s.sendall(b"GET /api/snapshot?since=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert get(web, "/healthz")[::2] == (200, b"ok")


def test_requests_are_not_logged_to_stderr(web: OfficeWeb,
                                           capfd: pytest.CaptureFixture[str]) -> None:
    get(web, "/healthz")
    get(web, "/nope")
    get(web, "/api/snapshot?since=x")
    assert capfd.readouterr().err == ""


def test_default_host_is_every_interface() -> None:
    # The office screen is another machine on the LAN. Checked on the signature, so the
    # test itself never listens beyond 127.0.0.1.
    assert inspect.signature(OfficeWeb).parameters["host"].default == "0.0.0.0"
