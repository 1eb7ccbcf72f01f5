"""The timekeeper sees every press (docs/timekeeper.md, "The operator view"): a refused command
shows its reason in the very next frame the daemon draws, an accepted one is acknowledged, both go
on time; and the operator view is served read-only on 127.0.0.1 by an in-process daemon.

Presses go in through the real GPIO console on gpiozero's MockFactory, with their edge
instants; time is the fake clock of tests/daemon/inprocess.py.
"""

from __future__ import annotations

import http.client
import itertools
import json
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.feedback import SHOWN_NS, Feedback, Notice
from firmware_py.operatorweb import encode
from tests.daemon.inprocess import Frame, InProcessHall, TestParts

MS = 1_000_000
FLOORBALL = '[match]\npreset = "floorball-2x15"\n'
SERVED = '[operator]\nport = 0\nbind = "127.0.0.1"\n'


class CountingFeedback(Feedback):
    """Notes how many frames had been drawn when each notice was set."""

    def __init__(self, frames: list[Frame]) -> None:
        super().__init__()
        self._frames = frames
        self.set_after: list[tuple[int, Notice]] = []

    def _set(self, notice: Notice) -> Notice:
        self.set_after.append((len(self._frames), notice))
        return super()._set(notice)


def watch(hall: InProcessHall, daemon: Daemon) -> CountingFeedback:
    feedback = CountingFeedback(hall.frames)
    feedback.shown_ns = daemon.feedback.shown_ns
    daemon.feedback = feedback
    return feedback


def press(daemon: Daemon, action: str, at: int) -> None:
    assert daemon.console is not None
    daemon.console.button(action, at, True)
    daemon.console.button(action, at + 60 * MS, False)


def shown(frame: Frame) -> dict[str, Any] | None:
    assert frame.status is not None
    feedback = frame.status.get("feedback")
    return None if feedback is None else dict(feedback)


def test_a_refused_press_is_shown_with_its_reason_in_the_next_frame_then_goes(
        tmp_path: Path) -> None:
    """Rules 001, 'Time-out': not in the group matches. The refusal is on the operator line
    of the very next frame drawn, in a few words, and gone at its expiry, exactly."""
    hall = InProcessHall(tmp_path, FLOORBALL)
    daemon = hall.start()
    feedback = watch(hall, daemon)
    t0 = hall.time.now + NS_PER_S
    press(daemon, "start_stop", t0)
    press(daemon, "start_stop", t0 + 5 * NS_PER_S)
    daemon.run_until(t0 + 6 * NS_PER_S)
    press(daemon, "timeout_home", t0 + 6 * NS_PER_S)
    daemon.run_until(t0 + 20 * NS_PER_S)

    drawn, notice = feedback.set_after[-1]
    assert notice.press == "TIME-OUT HOME"
    assert notice.reason == "no time-outs in group games"
    first = hall.frames[drawn]  # the next frame drawn after the refusal
    assert shown(first) == {"text": "TIME-OUT HOME REFUSED: no time-outs in group games",
                            "shorter": ["REFUSED: no time-outs in group games",
                                        "no time-outs in group games"],
                            "accepted": False}
    assert first.at - notice.at <= 100 * MS  # the press's debounce and one frame gap
    # Shown for its few (real) seconds, then a frame is drawn at the very instant it goes.
    assert notice.until - notice.at == SHOWN_NS
    later = hall.frames[drawn:]
    assert all(shown(f) is not None for f in later if f.at < notice.until)
    gone = [f for f in later if f.at >= notice.until]
    assert gone[0].at == notice.until and shown(gone[0]) is None
    assert all(shown(f) is None for f in gone)
    hall.stop()


def test_an_accepted_press_is_acknowledged_in_the_next_frame_then_goes(
        tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, FLOORBALL)
    daemon = hall.start()
    feedback = watch(hall, daemon)
    t0 = hall.time.now + NS_PER_S
    daemon.run_until(t0)
    press(daemon, "start_stop", t0)
    daemon.run_until(t0 + 10 * NS_PER_S)
    drawn, notice = feedback.set_after[-1]
    assert notice.accepted and notice.text() == "START \u2713"
    assert shown(hall.frames[drawn]) == {"text": "START OK", "shorter": ["START"],
                                         "accepted": True}
    assert hall.frames[drawn].at - notice.at <= 100 * MS
    assert hall.frames[drawn].doc["running"]
    gone = [f for f in hall.frames[drawn:] if f.at >= notice.until]
    assert gone[0].at == notice.until and shown(gone[0]) is None
    hall.stop()


def test_typing_on_takes_the_last_outcome_away(tmp_path: Path) -> None:
    """The operator line is one line: a new entry replaces the old outcome at once."""
    hall = InProcessHall(tmp_path, FLOORBALL)
    daemon = hall.start()
    t0 = hall.time.now + NS_PER_S
    press(daemon, "start_stop", t0)
    daemon.run_until(t0 + NS_PER_S)
    assert daemon.feedback.current(hall.time.now) is not None
    press(daemon, "penalty_home", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    assert daemon.feedback.current(hall.time.now) is None
    last = hall.frames[-1]
    assert shown(last) is None and last.doc["entry"]["what"] == "penalty"
    hall.stop()


# ------------------------------------------------------------------ the page


def get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:  # 127.0.0.1 only
            return answer.status, answer.read(), answer.headers["Content-Type"]
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers["Content-Type"]


def view(daemon: Daemon) -> dict[str, Any]:
    assert daemon.operator_web is not None
    status, body, kind = get(daemon.operator_web.url("/operator.json"))
    assert status == 200 and kind.startswith("application/json")
    doc: dict[str, Any] = json.loads(body)
    return doc


def test_the_page_serves_the_operator_view_and_follows_the_game(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    assert daemon.operator_web is not None and daemon.operator_web.host == "127.0.0.1"
    # The timekeeper has a view of their own: the hall's operator line goes ("auto").
    assert not daemon.operator_line
    t0 = hall.time.now + NS_PER_S
    daemon.run_until(t0)
    first = view(daemon)
    assert first["match"] == "M1" and first["preset"] == "floorball-2x15"
    assert not first["running"] and first["records"] == [] and first["entry"] is None
    assert [k["name"] for k in first["kinds"]] == list(daemon.match.preset.penalties.kinds)

    press(daemon, "start_stop", t0)
    press(daemon, "goal_home", t0 + 2 * NS_PER_S)
    daemon.run_until(t0 + 3 * NS_PER_S)
    assert daemon.console is not None
    for key in ("1", "2"):
        daemon.console.key(key, hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    typing = view(daemon)
    assert typing["entry"]["what"] == "goal" and typing["entry"]["player"] == "12"
    assert typing["running"]
    daemon.console.key("enter", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    done = view(daemon)
    assert done["feedback"]["text"] == "GOAL HOME #12 \u2713"
    assert done["records"][0]["what"] == "goal" and done["records"][0]["player"] == 12
    assert done["records"][0]["undo_next"] and done["undo"]["what"] == "goal"
    assert done["score"] == {"home": 1, "away": 0}
    # The hall display's own line stays clean (the page shows it).
    assert shown(hall.frames[-1]) is None and hall.frames[-1].status is not None
    assert hall.frames[-1].status["operator_line"] is False

    status, page, kind = get(daemon.operator_web.url("/"))
    assert status == 200 and kind.startswith("text/html")
    assert "GOAL HOME #12 \u2713" in page.decode() and "/operator.json" in page.decode()
    hall.stop()


def test_the_page_refuses_what_it_does_not_serve_and_survives_bad_requests(
        tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    web = daemon.operator_web
    assert web is not None
    daemon.run_until(hall.time.now + NS_PER_S)
    assert get(web.url("/nothing"))[0] == 404
    connection = http.client.HTTPConnection(web.host, web.port, timeout=5)
    connection.request("POST", "/operator.json", body=b"{}")
    answer = connection.getresponse()
    assert answer.status == 405 and answer.headers["Allow"] == "GET, HEAD"
    answer.read()
    connection.request("HEAD", "/operator.json")
    answer = connection.getresponse()
    assert answer.status == 200 and answer.read() == b""
    connection.close()
    with socket.create_connection((web.host, web.port), timeout=5) as raw:
        raw.sendall(b"\x00\xff garbage\r\n\r\n")
        answer_bytes = b"".join(iter(lambda: raw.recv(4096), b""))
        assert b"Error code: 400" in answer_bytes  # http.server's own answer
    assert view(daemon)["match"] == "M1"  # still serving
    hall.stop()


def test_a_taken_port_leaves_the_board_running_without_the_page(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        hall = InProcessHall(tmp_path, f'[operator]\nport = {port}\nbind = "127.0.0.1"\n')
        daemon = hall.start()
        daemon.run_until(hall.time.now + NS_PER_S)
        assert daemon.operator_web is None and daemon.operator_line  # "auto": line back
        assert any(r.getMessage().startswith("operator page not served")
                   for r in caplog.records)
        assert hall.frames
        hall.stop()


def test_the_view_is_rebuilt_at_most_ten_times_a_second(tmp_path: Path) -> None:
    """However often frames are drawn, the page's snapshot is rebuilt at most every
    VIEW_GAP_NS of real time (and only when it changed: a running clock, once a second)."""
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    web = daemon.operator_web
    assert web is not None
    published: list[int] = []
    original = web.publish

    def counting(snapshot: Any) -> None:
        published.append(hall.time.now)
        original(snapshot)

    web.publish = counting  # type: ignore[method-assign]
    t0 = hall.time.now + NS_PER_S
    press(daemon, "start_stop", t0)
    press(daemon, "penalty_home", t0 + NS_PER_S)
    daemon.run_until(t0 + 2 * NS_PER_S)
    assert daemon.console is not None
    published.clear()
    drawn = len(hall.frames)
    for key in ["1", "backspace"] * 10:  # a key every 40 ms: a frame for each
        daemon.console.key(key, hall.time.now)
        daemon.run_until(hall.time.now + 40 * MS)
    daemon.console.key("7", hall.time.now)
    daemon.run_until(hall.time.now + 150 * MS)  # within the gap of the last key's frame
    assert len(hall.frames) - drawn >= 21 > len(published)
    assert min(b - a for a, b in itertools.pairwise(published)) >= NS_PER_S // 10
    # The last change still gets out: the loop wakes for it at the end of the gap.
    assert view(daemon)["entry"]["player"] == "7" == hall.frames[-1].doc["entry"]["player"]
    hall.stop()


def test_the_json_is_what_the_loop_built() -> None:
    assert json.loads(encode({"text": "GOAL HOME #12 \u2713"})) == {
        "text": "GOAL HOME #12 \u2713"}


def test_the_view_lists_the_offices_suspended_players_and_the_link(tmp_path: Path) -> None:
    """The office's ``next`` names who may not play (arena/wire/ ``Suspended``);
    the timekeeper sees them for the match on the board, with the office link's state."""
    config = FLOORBALL + SERVED + ('[mqtt]\nbroker = "mqtt://127.0.0.1:1"\n'
                                   'tournament = "T1"\nhall = "H1"\n')
    hall = InProcessHall(tmp_path, config)
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    assert view(daemon)["office"] == {"connected": True, "unacked": 0}
    assert view(daemon)["suspensions"] == {"home": [], "away": []}
    hall.link.offer_next(wire.next_document(wire.Next(
        match="A2", preset="floorball-2x15", stage="group",
        home=wire.Team("Lions", ("#10233f", "#ffffff")),
        away=wire.Team("Bears", ("#f2f2f2", "#10233f")),
        suspended=(wire.Suspended("away", 23), wire.Suspended("home", 9),
                   wire.Suspended("away", 4)))))
    daemon.run_until(hall.time.now + NS_PER_S)
    shown = view(daemon)
    assert shown["match"] == "A2" and shown["teams"] == {"home": "Lions", "away": "Bears"}
    assert shown["suspensions"] == {"home": [9], "away": [4, 23]}
    hall.link.online = False
    daemon.run_until(hall.time.now + 2 * NS_PER_S)
    assert view(daemon)["office"]["connected"] is False
    hall.stop()


class WindowParts(TestParts):
    """Records whether the daemon asked for the timekeeper's second window."""

    def operator_window(self, mode: str) -> Any:
        self.made.setdefault("operator_windows", []).append(mode)
        return None  # a real one needs a desktop; asking is what is tested


@pytest.mark.parametrize(("table", "asked"), [("", ["windowed"]),
                                              ("[operator]\nwindow = false\n", [])])
def test_the_second_window_opens_in_windowed_mode_unless_the_config_says_not(
        tmp_path: Path, table: str, asked: list[str]) -> None:
    hall = InProcessHall(tmp_path, '[match]\npreset = "floorball-2x15"\n' + table)
    parts = WindowParts()
    hall.start(parts=parts, display_mode="windowed")
    assert parts.made.get("operator_windows", []) == asked
    hall.stop()
