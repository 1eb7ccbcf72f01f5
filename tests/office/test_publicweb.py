"""The public site's server and static export: validators and 304s, HEAD, redirects, 404,
bad requests, and an export a reader never sees half-written.

Everything on 127.0.0.1 with a free port. The site's thread is not started: each test calls
``PublicSite.step`` itself after a publish, so nothing waits for time to pass; the wall and
monotonic clocks are fakes.
"""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from arena.timesource import FakeClock
from office.cli.main import main
from office.views.board import SnapshotBoard
from office.web.publicweb import CACHE_CONTROL, PublicSite, PublicWeb, _Handler
from office.web.siteexport import INCOMING, write_site
from tests.office.test_public import CUP, office_snapshot_with_everything
from tests.office.test_web import sample_snapshot

T0 = datetime(2026, 12, 5, 10, 30, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(wall=T0)


@pytest.fixture
def board() -> SnapshotBoard:
    return SnapshotBoard()


@pytest.fixture
def site(board: SnapshotBoard, clock: FakeClock) -> PublicSite:
    return PublicSite(board, wall=clock.wall_datetime, monotonic=clock.monotonic)


@pytest.fixture
def web(site: PublicSite) -> Iterator[PublicWeb]:
    server = PublicWeb(site, host="127.0.0.1", port=0)
    server.start()
    yield server
    server.stop()


def publish(board: SnapshotBoard, site: PublicSite, doc: dict[str, Any]) -> None:
    board.publish(doc)
    site.step()


def request(web: PublicWeb, path: str, method: str = "GET",
            headers: dict[str, str] | None = None,
            conn: http.client.HTTPConnection | None = None
            ) -> tuple[int, http.client.HTTPResponse, bytes]:
    c = conn or http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    c.request(method, path, headers=headers or {})
    resp = c.getresponse()
    body = resp.read()
    if conn is None:
        c.close()
    return resp.status, resp, body


def test_before_the_first_snapshot_it_says_so(web: PublicWeb) -> None:
    status, resp, _ = request(web, "/")
    assert status == 503 and resp.getheader("Retry-After") == "1"
    assert request(web, "/healthz")[0] == 200


def test_pages_and_json_carry_validators_and_answer_304(
        web: PublicWeb, board: SnapshotBoard, site: PublicSite) -> None:
    publish(board, site, sample_snapshot())
    status, resp, body = request(web, "/")
    assert status == 200 and b'data-team="Lions"' in body
    assert resp.getheader("Content-Type") == "text/html; charset=utf-8"
    assert resp.getheader("Cache-Control") == CACHE_CONTROL == "public, max-age=1"
    etag = resp.getheader("ETag")
    assert etag and etag.startswith('"')
    assert resp.getheader("Last-Modified") == format_datetime(T0, usegmt=True)
    assert "default-src 'none'" in (resp.getheader("Content-Security-Policy") or "")

    status, resp, body = request(web, "/", headers={"If-None-Match": etag})
    assert status == 304 and body == b"" and resp.getheader("ETag") == etag
    assert request(web, "/", headers={"If-None-Match": f'"other", W/{etag}'})[0] == 304
    assert request(web, "/", headers={"If-None-Match": '"other"'})[0] == 200
    since = format_datetime(T0, usegmt=True)
    assert request(web, "/", headers={"If-Modified-Since": since})[0] == 304
    before = format_datetime(T0 - timedelta(seconds=1), usegmt=True)
    assert request(web, "/", headers={"If-Modified-Since": before})[0] == 200
    assert request(web, "/", headers={"If-Modified-Since": "yesterday-ish"})[0] == 200

    status, resp, body = request(web, "/public.json")
    doc = json.loads(body)
    assert status == 200 and resp.getheader("Content-Type").startswith("application/json")
    assert doc["groups"][0]["rows"][0]["team"] == "Lions" and "alerts" not in doc


def test_a_change_makes_a_new_etag_and_unchanged_pages_keep_theirs(
        web: PublicWeb, board: SnapshotBoard, site: PublicSite, clock: FakeClock) -> None:
    publish(board, site, sample_snapshot())
    _, first, _ = request(web, "/")
    _, team, _ = request(web, "/team/hawks/")
    doc = sample_snapshot()
    doc["halls"][1]["live"]["score"] = {"home": 4, "away": 1}
    doc["alerts"] = [{"at": None, "text": "an office matter"}]
    clock.advance(5)
    publish(board, site, doc)
    status, resp, body = request(web, "/", headers={"If-None-Match": first.getheader("ETag")})
    assert status == 200 and resp.getheader("ETag") != first.getheader("ETag")
    assert resp.getheader("Last-Modified") == format_datetime(clock.wall_datetime(), usegmt=True)
    assert b'class="score">4:1<' in body
    # Hawks' page did not change: the same tag, the same date, a 304.
    status, again, _ = request(web, "/team/hawks/",
                               headers={"If-None-Match": team.getheader("ETag")})
    assert status == 304 and again.getheader("Last-Modified") == team.getheader("Last-Modified")


def test_an_office_only_change_is_not_a_change_of_the_public_site(
        board: SnapshotBoard, site: PublicSite) -> None:
    publish(board, site, sample_snapshot())
    before = site.current()
    doc = sample_snapshot()
    doc["alerts"] = [{"at": None, "text": "hall-3 offline for an hour"}]
    doc["generated"] = "2026-12-05T10:32:00"
    board.publish(doc)
    assert site.step() is False and site.current() is before


def test_head_gzip_redirects_and_not_found(web: PublicWeb, board: SnapshotBoard,
                                           site: PublicSite) -> None:
    publish(board, site, sample_snapshot())
    _, full, body = request(web, "/team/lions/")
    status, resp, head_body = request(web, "/team/lions/", method="HEAD")
    assert status == 200 and head_body == b""
    assert resp.getheader("Content-Length") == str(len(body))
    assert resp.getheader("ETag") == full.getheader("ETag")

    status, resp, zipped = request(web, "/team/lions/", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and resp.getheader("Content-Encoding") == "gzip"
    assert gzip.decompress(zipped) == body and resp.getheader("Vary") == "Accept-Encoding"
    assert resp.getheader("ETag") != full.getheader("ETag")  # another representation
    assert request(web, "/team/lions/", headers={"Accept-Encoding": "gzip",
                                                  "If-None-Match": resp.getheader("ETag")}
                   )[0] == 304

    status, resp, _ = request(web, "/team/lions")
    assert status == 301 and resp.getheader("Location") == "/team/lions/"
    assert request(web, "/team/lions/index.html")[2] == body
    assert request(web, "/index.html")[0] == 200
    assert request(web, "/?cache-buster=1")[0] == 200
    for path in ("/team/nobody/", "/team/nobody", "/nothing", "/teamindex.html",
                 "/team/lions/x/", "/../etc/passwd", "/%00"):
        assert request(web, path)[0] == 404, path


def test_keep_alive_and_bad_requests_do_not_take_the_server_down(
        web: PublicWeb, board: SnapshotBoard, site: PublicSite) -> None:
    publish(board, site, sample_snapshot())
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    for _ in range(3):  # one connection, several answers (HTTP/1.1 keep-alive)
        assert request(web, "/public.json", conn=conn)[0] == 200
    conn.close()
    assert request(web, "/", method="POST")[0] == 501
    for raw in (b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"\x00\xff\r\n\r\n",
                b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", web.port), timeout=30) as s:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        # An error answer (a request line of one word is HTTP/0.9: no status line).
        assert answer.startswith((b"HTTP/1.", b"<!DOCTYPE")) and b"200 OK" not in answer, raw[:20]
    status, _, _ = request(web, "/", headers={"If-None-Match": "\xff\xfe", "If-Modified-Since":
                                              "Mon, 99 Foo 20261 99:99:99 GMT"})
    assert status == 200  # validators that match nothing: the page
    with socket.create_connection(("127.0.0.1", web.port), timeout=30):
        pass  # connects and goes away
    assert request(web, "/")[0] == 200


def test_an_idle_connection_is_closed_and_frees_its_thread(
        web: PublicWeb, board: SnapshotBoard, site: PublicSite,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The server holds a thread and a descriptor per connection: one left idle (after an
    answer, or one that never says anything) is closed by the server after IDLE_S, so a
    flood of idle connections cannot hold them all day (systemd/office.service's
    LimitNOFILE is sized for those still open). The wait is the server's own socket
    timeout, made short here; the client's is far longer, so only the server can end it."""
    monkeypatch.setattr(_Handler, "timeout", 0.2)
    publish(board, site, sample_snapshot())
    before = threading.active_count()
    with socket.create_connection(("127.0.0.1", web.port), timeout=30) as silent, \
            socket.create_connection(("127.0.0.1", web.port), timeout=30) as kept:
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")  # keep-alive
        answer = b""
        while chunk := kept.recv(65536):  # the answer, then the end the server makes
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"ok\n")
        assert silent.recv(1) == b""  # closed without a word: no request came
    for thread in threading.enumerate():  # the two handler threads end with their sockets
        if thread.name.startswith("Thread-") and thread is not threading.current_thread():
            thread.join(5)
    assert threading.active_count() <= before
    assert request(web, "/healthz")[0] == 200


# --- the static export ------------------------------------------------------------------


def test_the_export_holds_the_whole_site_and_follows_changes(
        tmp_path: Path, board: SnapshotBoard, clock: FakeClock) -> None:
    out = tmp_path / "site"
    site = PublicSite(board, export=out, export_every=1.0, wall=clock.wall_datetime,
                      monotonic=clock.monotonic)
    publish(board, site, sample_snapshot())
    assert site.exports == 1
    assert b'data-team="Lions"' in (out / "index.html").read_bytes()
    assert json.loads((out / "public.json").read_bytes())["tournament"]["name"] == \
        "Example Cup 2026"
    hawks = out / "team/hawks/index.html"
    assert hawks.is_file() and (out / "hall/hall-2/index.html").is_file()
    stamp = hawks.stat().st_mtime_ns, hawks.stat().st_ino

    doc = sample_snapshot()
    doc["halls"][1]["live"]["score"] = {"home": 4, "away": 1}
    publish(board, site, doc)  # within the second: not yet
    assert site.exports == 1 and b">4:1<" not in (out / "index.html").read_bytes()
    clock.advance(1.0)
    site.step()
    assert site.exports == 2 and b">4:1<" in (out / "index.html").read_bytes()
    assert (hawks.stat().st_mtime_ns, hawks.stat().st_ino) == stamp  # unchanged: untouched

    doc["groups"][1]["rows"] = doc["groups"][1]["rows"][:3]  # Hawks gone (a reload)
    clock.advance(1.0)
    publish(board, site, doc)
    assert not hawks.exists() and not hawks.parent.exists()
    assert not (out / INCOMING).exists()


def test_a_reader_never_sees_a_half_written_file(tmp_path: Path) -> None:
    out = tmp_path / "site"
    versions = [f"{n:06d}:".encode() + bytes([65 + n % 26]) * 300_000 + b":end"
                for n in range(60)]
    write_site(out, {"index.html": versions[0], "team/a/index.html": versions[0]})
    seen: set[bytes] = set()
    bad: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            for rel in ("index.html", "team/a/index.html"):
                try:
                    body = (out / rel).read_bytes()
                except FileNotFoundError:
                    bad.append(f"{rel} missing")
                    continue
                if body not in versions:
                    bad.append(f"{rel}: {len(body)} bytes, not a whole version")
                seen.add(body[:7])

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    written: dict[str, bytes] = {}
    for body in versions[1:]:
        written = write_site(out, {"index.html": body, "team/a/index.html": body}, written)
    stop.set()
    for t in threads:
        t.join()
    assert not bad, bad[:5]
    assert len(seen) > 1  # the readers did read while the files changed


def test_export_site_command_writes_from_the_store(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    office_snapshot_with_everything(tmp_path)  # fills tmp_path/office.sqlite
    out = tmp_path / "export"
    code = main(["export-site", str(out), "--tournament", str(CUP),
                 "--db", str(tmp_path / "office.sqlite")])
    assert code == 0, capsys.readouterr()
    assert "pages and public.json" in capsys.readouterr().out
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "SECRET" not in text and "Tatran" in text
    assert main(["export-site", str(out), "--tournament", str(CUP),
                 "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "no store" in capsys.readouterr().err


def test_a_clock_running_on_renders_only_the_pages_that_show_it(
        board: SnapshotBoard, site: PublicSite, clock: FakeClock) -> None:
    publish(board, site, sample_snapshot())
    before = site.current()
    assert before is not None
    team, front = before.page("team/hawks/"), before.page("")
    doc = sample_snapshot()
    doc["halls"][1]["live"]["clock_ms"] -= 1000
    board.publish(doc)
    assert site.step() is False  # within RENDER_EVERY_S of the last: later
    clock.advance(site.render_every)
    assert site.step() is True
    after = site.current()
    assert after is not None and after is not before
    assert after.page("team/hawks/") is team  # taken over, not rendered again
    assert after.page("") is not front and after.page("") != front
    doc["groups"][1]["rows"][0]["points"] = 6  # a result: every page anew
    board.publish(doc)
    clock.advance(site.render_every)
    site.step()
    again = site.current()
    assert again is not None and again.page("team/hawks/") is not team
