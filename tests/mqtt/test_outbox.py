"""The outbox and the ``next`` validation, without a broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena import wire
from arena.wire import WireError, event_document
from firmware_py.journal import Journal
from firmware_py.mqtt import parse_next
from firmware_py.outbox import JournalTail, Outbox, SeqLog
from firmware_py.replaypublisher import remaining_lines
from firmware_py.script import parse_script


def events(*seqs: int) -> list[dict[str, object]]:
    return [{"type": "event", "match": "M1", "seq": s, "at": s * 10, "event": "goal",
             "data": {"team": "home"}} for s in seqs]


def test_window_order_and_the_office_word(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=3)
    box.add([{"type": "command", "at": 0}, *events(1, 2, 3, 4, 5)])
    assert box.match == "M1"  # learnt from the events: what the office acknowledges under
    assert [r["seq"] for r in box.take()] == [1, 2, 3]
    assert box.take() == []  # the window is full: nothing more goes to paho
    box.published([2])
    assert [r["seq"] for r in box.take()] == [4]
    box.published([1, 3, 4, 99])  # an unknown seq is ignored
    assert [r["seq"] for r in box.take()] == [5]
    # PUBACKs free the window only: nothing is delivered until the office says so.
    assert box.unacked == 5 and not box.is_acked(1)
    assert box.office_acked(3) is False  # progress: nothing to re-send
    assert box.unacked == 2 and box.is_acked(3) and not box.is_acked(4)
    box.close()


def test_the_office_word_survives_a_restart_and_only_the_rest_is_resent(
        tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=10)
    box.add(events(1, 2, 3, 4))
    box.take()
    box.published([1, 2, 3, 4])
    box.office_acked(2)
    box.close()
    again = Outbox(tmp_path / "j.stored", max_in_flight=10)
    again.add(events(1, 2, 3, 4))
    assert again.unacked == 2
    assert [r["seq"] for r in again.take()] == [3, 4]
    again.close()


def test_a_word_without_progress_resends_what_the_office_lacks(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=10)
    box.add(events(1, 2, 3, 4, 5))
    box.take()
    box.published([1, 2, 3, 4, 5])  # the broker had them all, then was replaced empty
    box.office_acked(2)
    assert box.take() == []
    assert box.office_acked(2) is True  # the office repeats itself: 3..5 were lost
    assert [r["seq"] for r in box.take()] == [3, 4, 5]


def test_an_office_that_says_less_than_before_gets_the_rest_again(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=10)
    box.add(events(1, 2, 3, 4))
    box.published([int(r["seq"]) for r in box.take()])
    box.office_acked(4)
    assert box.unacked == 0 and box.take() == []
    assert box.office_acked(1) is True  # restored from an older backup: its word wins
    assert box.unacked == 3 and box.stored == 1
    assert [r["seq"] for r in box.take()] == [2, 3, 4]
    assert Outbox(tmp_path / "j.stored").stored == 1  # the durable mark went down too


S = 1_000_000_000  # ns: the outbox takes the caller's monotonic instants


def test_events_the_office_does_not_store_in_time_are_offered_again(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=10)
    assert box.overdue(0) is False  # nothing handed out: nothing to wait for
    box.add(events(1, 2, 3))
    box.published([int(r["seq"]) for r in box.take()])
    box.office_acked(2)  # progress: the wait starts with the next look
    assert box.overdue(100 * S) is False  # the wait starts here
    assert box.overdue(104 * S) is False  # 4 s: the office may still be storing it
    assert box.take() == []
    assert box.overdue(105 * S) is True  # 5 s without a word on seq 3: lost
    assert box.resend(105 * S) == 1
    assert [r["seq"] for r in box.take()] == [3]  # from the office's mark, nothing else
    assert box.resend_after == 10 * S  # doubled: still nothing from the office


def test_the_resend_interval_doubles_to_a_minute_and_progress_resets_it(
        tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=10)
    box.add(events(1, 2))
    box.published([int(r["seq"]) for r in box.take()])
    now = 0
    assert box.overdue(now) is False
    waits = []
    for _ in range(7):  # an office that is down: it hears a copy less and less often
        wait = box.resend_after
        assert box.overdue(now + wait - 1) is False
        now += wait
        assert box.overdue(now) is True
        box.resend(now)
        box.published([int(r["seq"]) for r in box.take()])
        waits.append(wait // S)
    assert waits == [5, 10, 20, 40, 60, 60, 60]
    box.office_acked(1)  # progress: back to the first interval, waiting from the next look
    assert box.resend_after == 5 * S
    assert box.overdue(now) is False
    assert box.overdue(now + 5 * S) is True
    box.office_acked(1)  # a word without progress re-sends at once and restarts the wait
    assert box.resend_after == 5 * S and [r["seq"] for r in box.take()] == [2]
    assert box.overdue(now + 6 * S) is False
    box.office_acked(2)  # all stored: nothing is ever overdue
    assert box.overdue(now + 600 * S) is False and box.overdue(now + 1200 * S) is False


def test_adding_the_same_records_twice_is_harmless(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored")
    box.add(events(1, 2))
    box.add(events(1, 2, 3))
    assert [r["seq"] for r in box.take()] == [1, 2, 3]
    box.close()


def test_requeue_puts_in_flight_back_in_order(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "j.stored", max_in_flight=2)
    box.add(events(1, 2, 3))
    box.take()
    box.requeue()
    assert [r["seq"] for r in box.take()] == [1, 2]
    box.close()


def test_an_unreadable_mark_means_nothing_is_known_stored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.stored"
    path.write_text("seven\n")
    box = Outbox(path)
    box.add(events(1, 2))
    assert box.unacked == 2 and "not a number" in caplog.text


def test_acks_payload_round_trip_and_refusals() -> None:
    topic = wire.hall_topics("T1", "H1").acks
    assert topic == "arena/v1/T1/H1/acks"
    assert wire.check_acks(topic, wire.build_acks({"A1": 17, "A2": 3}), "T1") == \
        ("H1", {"A1": 17, "A2": 3})
    assert wire.check_acks(topic, b"", "T1") == ("H1", {})
    with pytest.raises(WireError, match=r"'matches\.A1' must be an integer from 0 up"):
        wire.check_acks(topic, b'{"matches": {"A1": -1}}', "T1")
    with pytest.raises(WireError, match="'matches' is missing"):
        wire.check_acks(topic, b'{}', "T1")
    with pytest.raises(WireError, match="not a match id"):
        wire.check_acks(topic, b'{"matches": {"a/b": 1}}', "T1")
    with pytest.raises(WireError, match="not a topic of the form"):
        wire.check_acks("arena/v1/T1/H1/next", b'{"matches": {}}', "T1")


def test_torn_last_line_of_the_ack_file_is_dropped(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.acked"
    path.write_bytes(b"1\n2\nx\n3")  # "3" was being written when the power went
    log = SeqLog(path)
    assert log.values == {1, 2}
    assert path.read_bytes() == b"1\n2\nx\n"
    log.add([4])
    log.close()
    assert SeqLog(path).values == {1, 2, 4}
    assert "torn last line" in caplog.text and "line 3 is not a number" in caplog.text


def test_journal_tail_returns_only_new_whole_records(tmp_path: Path) -> None:
    journal, _ = Journal.open(tmp_path / "M1.journal")
    tail = JournalTail(journal.path)
    journal.append(*events(1, 2))
    assert [r["seq"] for r in tail.read()] == [1, 2]
    assert tail.read() == []
    journal.append(*events(3))
    assert [r["seq"] for r in tail.read()] == [3]
    journal.close()


def test_event_payload() -> None:
    record = {**events(7)[0], "wall": 1700000000.5, "boot": "b"}
    assert event_document("H1", record) == {
        "event_id": "H1:M1:7", "match": "M1", "seq": 7, "type": "goal",
        "data": {"team": "home"}, "at_ns": 70, "wall": 1700000000.5, "wall_synced": True,
        "boot": "b"}
    assert event_document("H1", events(7)[0])["wall_synced"] is False


def test_topic_names_are_checked() -> None:
    assert wire.hall_topics("T1", "H1").events == "arena/v1/T1/H1/events"
    for bad in ("a/b", "+", "#", "", "a:b"):
        with pytest.raises(ValueError):
            wire.hall_topics("T1", bad)


def test_remaining_lines_after_a_kill_between_journal_and_mark() -> None:
    script = parse_script('{"t": 0, "do": "start"}\n{"t": 5, "do": "stop"}\n'
                          '{"t": 9, "do": "start"}\n', "s")
    stop = {"type": "command", "at": 5_000_000_000, "command": script[1].command.to_json()}
    # line 1 marked, line 2 journalled but not marked: continue with line 3
    assert [x.line for x in remaining_lines(script, {1}, [stop])] == [3]
    # line 2 not journalled yet (the last input is line 1's): play it
    start = {"type": "command", "at": 0, "command": script[0].command.to_json()}
    assert [x.line for x in remaining_lines(script, {1}, [start])] == [2, 3]
    assert [x.line for x in remaining_lines(script, set(), [])] == [1, 2, 3]


GOOD = {"match": "A3", "preset": "floorball-2x15", "stage": "group",
        "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}},
        "scheduled": "2026-11-29T14:00", "suspended": [{"team": "home", "player": 7}]}


def test_a_good_next_is_accepted() -> None:
    assert parse_next(json.dumps(GOOD).encode())["match"] == "A3"


@pytest.mark.parametrize(("payload", "reason"), [
    (b"\xff\xfe", "not UTF-8"),
    (b"{nope", "not JSON"),
    (b"[1, 2]", "must be a JSON object"),
    (json.dumps({**GOOD, "match": 3}).encode(), "'match'"),
    (json.dumps({**GOOD, "preset": "quidditch"}).encode(), "not a known preset"),
    (json.dumps({**GOOD, "stage": "final"}).encode(), "'stage'"),
    (json.dumps({**GOOD, "teams": {"home": {"name": "X"}}}).encode(), "colours"),
    (json.dumps({**GOOD, "suspended": [{"team": "home", "player": "7"}]}).encode(),
     "'suspended'"),
    (b" " * (1 << 20), "over the"),
])
def test_a_bad_next_is_refused_with_a_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(WireError, match=reason):
        parse_next(payload)
