"""The append-only journal: round trips, torn and damaged records, failed appends."""

from __future__ import annotations

import errno
import json
import os
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_py import journal as journal_module
from firmware_py.journal import Journal, JournalError, Record, Recovery, encode, scan

RECORDS: list[Record] = [
    {"type": "match", "match": "A3", "teams": {"home": {"name": "Lions"}}},
    {"type": "command", "at": 10_000_000_000, "command": {"do": "start"}},
    {"type": "event", "seq": 1, "data": {"score": {"home": 0, "away": 0}, "player": None}},
    {"note": "Örebro – Jääkiekko ☃ 🏒", "nested": {"a": [1, 2.5, {"b": [True, False]}]}},
    {"type": "advance", "at": 2**62, "neg": -7, "empty": {}, "list": [], "text": ""},
]


# ---------------------------------------------------------------- helpers


def write_records(path: Path, records: list[Record]) -> list[int]:
    """Write records with a Journal; return the byte offset where each record starts."""
    starts: list[int] = []
    offset = 0
    with Journal.open(path)[0] as journal:
        for record in records:
            journal.append(record)
            starts.append(offset)
            offset += len(encode(record))
    assert path.stat().st_size == offset
    return starts


def reopen(path: Path) -> Recovery:
    journal, recovery = Journal.open(path)
    journal.close()
    return recovery


def names_offset(warning: str, offset: int) -> bool:
    """The warning names ``offset`` as a whole decimal number (not a part of a bigger one)."""
    return re.search(rf"(?<!\d){offset}(?!\d)", warning) is not None


def same_number(hex_a: bytes | bytearray, hex_b: bytes) -> bool:
    try:
        return int(hex_a, 16) == int(hex_b, 16)
    except ValueError:
        return False


class OsWithFaults:
    """Stands in for ``os`` inside the journal module; the named calls are replaced."""

    def __init__(self, **faults: Callable[..., Any]) -> None:
        self._faults = faults

    def __getattr__(self, name: str) -> Any:
        return self._faults.get(name) or getattr(os, name)


def install_faults(monkeypatch: pytest.MonkeyPatch, **faults: Callable[..., Any]) -> None:
    monkeypatch.setattr(journal_module, "os", OsWithFaults(**faults))


def half_write_then_fail(fd: int, data: bytes) -> int:
    os.write(fd, data[: len(data) // 2])
    raise OSError(errno.EIO, "Input/output error")


def short_write(fd: int, data: bytes) -> int:
    return os.write(fd, data[: len(data) // 2])


def fail(*args: object) -> Any:
    raise OSError(errno.EIO, "Input/output error")


# ---------------------------------------------------------------- round trip


def test_records_read_back_exactly_as_appended(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    write_records(path, RECORDS)

    recovery = reopen(path)

    assert recovery.records == RECORDS
    assert recovery.warnings == []
    assert recovery.valid_length == path.stat().st_size


def test_each_record_is_one_checksummed_line_of_compact_json(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    write_records(path, RECORDS)

    lines = path.read_bytes().split(b"\n")

    assert lines[-1] == b""
    assert len(lines) == len(RECORDS) + 1
    for line in lines[:-1]:
        assert re.fullmatch(rb"[0-9a-f]{8} \{.*\}", line)
    assert [json.loads(line[9:]) for line in lines[:-1]] == RECORDS
    assert b'": ' not in path.read_bytes()  # compact: no space after a key


def test_one_append_of_several_records_reads_back_as_those_records(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    with Journal.open(path)[0] as journal:
        journal.append(*RECORDS[:3])
        journal.append()  # nothing: a no-op
        journal.append(*RECORDS[3:])

    assert reopen(path).records == RECORDS


def test_opening_creates_the_file_and_its_missing_folders(tmp_path: Path) -> None:
    path = tmp_path / "hall" / "a" / "match.journal"

    journal, recovery = Journal.open(path)
    journal.close()

    assert path.exists()
    assert recovery.records == [] and recovery.warnings == [] and recovery.valid_length == 0


def test_appends_continue_after_the_records_already_there(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    write_records(path, RECORDS[:2])
    with Journal.open(path)[0] as journal:
        journal.append(RECORDS[2])

    assert reopen(path).records == RECORDS[:3]


# ---------------------------------------------------------------- torn last record


def test_last_record_torn_at_every_offset_is_dropped_with_a_warning(tmp_path: Path) -> None:
    # The issue: "A torn last record (power cut mid-write) is dropped with a warning naming
    # the file and offset; everything before it is kept. Test: cut the file at every byte
    # offset inside the last record."
    whole = tmp_path / "whole.journal"
    starts = write_records(whole, RECORDS)
    data = whole.read_bytes()
    last = starts[-1]
    extra: Record = {"type": "command", "at": 5, "command": {"do": "stop"}}

    for cut in range(last + 1, len(data)):
        path = tmp_path / f"cut-{cut}.journal"
        path.write_bytes(data[:cut])

        journal, recovery = Journal.open(path)
        with journal:
            assert recovery.records == RECORDS[:-1], cut
            assert len(recovery.warnings) == 1, (cut, recovery.warnings)
            warning = recovery.warnings[0]
            assert str(path) in warning, warning
            assert names_offset(warning, last), (cut, warning)
            assert "torn" in warning
            assert path.stat().st_size == last, cut
            journal.append(extra)

        again = reopen(path)
        assert again.records == [*RECORDS[:-1], extra], cut
        assert again.warnings == [], cut


@pytest.mark.parametrize("boundary", range(len(RECORDS) + 1))
def test_a_cut_exactly_at_a_record_boundary_loses_nothing_and_warns_nothing(
    tmp_path: Path, boundary: int
) -> None:
    whole = tmp_path / "whole.journal"
    starts = [*write_records(whole, RECORDS), whole.stat().st_size]
    path = tmp_path / "cut.journal"
    path.write_bytes(whole.read_bytes()[: starts[boundary]])

    recovery = reopen(path)

    assert recovery.records == RECORDS[:boundary]
    assert recovery.warnings == []
    assert path.stat().st_size == starts[boundary]


def test_a_lone_torn_first_record_leaves_an_empty_usable_journal(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    path.write_bytes(encode(RECORDS[0])[:20])

    journal, recovery = Journal.open(path)
    with journal:
        assert recovery.records == []
        assert len(recovery.warnings) == 1 and names_offset(recovery.warnings[0], 0)
        assert path.stat().st_size == 0
        journal.append(RECORDS[0])

    assert reopen(path).records == [RECORDS[0]]


def test_a_whole_last_record_missing_only_its_newline_is_dropped(tmp_path: Path) -> None:
    # Without its newline nothing proves the write finished: treated as torn.
    path = tmp_path / "match.journal"
    starts = write_records(path, RECORDS)
    path.write_bytes(path.read_bytes()[:-1])

    recovery = reopen(path)

    assert recovery.records == RECORDS[:-1]
    assert len(recovery.warnings) == 1 and names_offset(recovery.warnings[0], starts[-1])


# ---------------------------------------------------------------- damaged bytes


def test_last_record_with_any_byte_flipped_is_dropped_with_a_warning(tmp_path: Path) -> None:
    whole = tmp_path / "whole.journal"
    starts = write_records(whole, RECORDS)
    data = whole.read_bytes()
    last = starts[-1]

    for at in range(last, len(data)):
        damaged = bytearray(data)
        damaged[at] ^= 0xFF  # never turns a byte of UTF-8 JSON into a newline
        path = tmp_path / f"flip-{at}.journal"
        path.write_bytes(bytes(damaged))

        journal, recovery = Journal.open(path)
        with journal:
            assert recovery.records == RECORDS[:-1], at
            assert len(recovery.warnings) == 1, (at, recovery.warnings)
            assert str(path) in recovery.warnings[0]
            assert names_offset(recovery.warnings[0], last), (at, recovery.warnings)
            assert path.stat().st_size == last, at
            journal.append(RECORDS[-1])

        assert reopen(path) == Recovery(RECORDS, [], len(data)), at


def test_every_single_bit_flip_in_the_last_record_is_caught() -> None:
    data = b"".join(encode(r) for r in RECORDS)
    last = len(data) - len(encode(RECORDS[-1]))

    for at in range(last, len(data)):
        for bit in range(8):
            damaged = bytearray(data)
            damaged[at] ^= 1 << bit
            if damaged[at] == ord("\n"):
                continue  # a new newline splits the record in two: see the test below
            if at < last + 8 and same_number(damaged[last : last + 8], data[last : last + 8]):
                continue  # "0A" for "0a", " a" for "0a": the same checksum, intact data
            recovery = scan(bytes(damaged), "j")
            assert recovery.records == RECORDS[:-1], (at, bit)
            assert recovery.valid_length == last, (at, bit)
            assert len(recovery.warnings) == 1, (at, bit)


def test_a_newline_corrupted_into_the_last_record_loses_no_whole_record() -> None:
    data = b"".join(encode(r) for r in RECORDS)
    last = len(data) - len(encode(RECORDS[-1]))

    for at in range(last, len(data) - 1):
        damaged = bytearray(data)
        damaged[at] = ord("\n")
        recovery = scan(bytes(damaged), "j")
        assert recovery.records == RECORDS[:-1], at
        assert recovery.warnings, at
        assert names_offset(recovery.warnings[0], last), (at, recovery.warnings)
        assert last <= recovery.valid_length <= len(data)


@pytest.mark.parametrize("damaged_index", range(len(RECORDS) - 1))
def test_a_damaged_record_before_the_end_is_skipped_and_the_rest_kept(
    tmp_path: Path, damaged_index: int
) -> None:
    path = tmp_path / "match.journal"
    starts = write_records(path, RECORDS)
    data = bytearray(path.read_bytes())
    data[starts[damaged_index] + 12] ^= 0xFF  # a byte of the JSON body
    path.write_bytes(bytes(data))
    kept = RECORDS[:damaged_index] + RECORDS[damaged_index + 1 :]

    journal, recovery = Journal.open(path)
    with journal:
        assert recovery.records == kept
        assert len(recovery.warnings) == 1
        warning = recovery.warnings[0]
        assert str(path) in warning and "damaged" in warning
        assert names_offset(warning, starts[damaged_index])
        assert path.stat().st_size == len(data)  # not cut: it is not a torn tail
        journal.append(RECORDS[0])

    again = reopen(path)
    assert again.records == [*kept, RECORDS[0]]
    assert len(again.warnings) == 1 and names_offset(again.warnings[0], starts[damaged_index])


def test_a_record_that_is_valid_json_but_not_an_object_counts_as_damaged() -> None:
    body = b"[1,2,3]"
    line = b"%08x " % zlib.crc32(body) + body + b"\n"
    data = encode(RECORDS[0]) + line + encode(RECORDS[1])

    recovery = scan(data, "j")

    assert recovery.records == RECORDS[:2]
    assert len(recovery.warnings) == 1 and "damaged" in recovery.warnings[0]


# ---------------------------------------------------------------- scan, generated

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                               max_size=4),
    max_leaves=12,
)
RECORD_LISTS = st.lists(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5),
                        max_size=8)


@settings(deadline=None, derandomize=True)
@given(records=RECORD_LISTS, data=st.data())
def test_scan_of_any_prefix_returns_a_prefix_of_the_records(
    records: list[Record], data: st.DataObject
) -> None:
    encoded = [encode(r) for r in records]
    whole = b"".join(encoded)
    cut = data.draw(st.integers(min_value=0, max_value=len(whole)), label="cut")
    prefix = whole[:cut]
    ends = [sum(len(e) for e in encoded[: i + 1]) for i in range(len(encoded))]
    complete = sum(1 for end in ends if end <= cut)

    recovery = scan(prefix, "generated")

    assert recovery.records == records[: len(recovery.records)]
    assert recovery.valid_length <= len(prefix)
    # and precisely: every whole record, nothing of the torn one
    assert recovery.records == records[:complete]
    assert recovery.valid_length == (ends[complete - 1] if complete else 0)
    assert len(recovery.warnings) == (0 if cut in (0, *ends) else 1)


@settings(deadline=None, derandomize=True)
@given(garbage=st.binary(max_size=200), records=RECORD_LISTS)
def test_scan_never_raises_on_garbage_and_keeps_the_whole_records_before_it(
    garbage: bytes, records: list[Record]
) -> None:
    head = b"".join(encode(r) for r in records)

    recovery = scan(head + garbage, "generated")

    assert recovery.records[: len(records)] == records
    assert len(head) <= recovery.valid_length <= len(head) + len(garbage)


# ---------------------------------------------------------------- failed appends


@pytest.mark.parametrize(
    "faults",
    [
        pytest.param({"write": half_write_then_fail}, id="half-written-then-error"),
        pytest.param({"write": short_write}, id="short-write"),
        pytest.param({"write": fail}, id="nothing-written"),
        pytest.param({"fsync": fail}, id="fsync-fails"),
    ],
)
def test_a_failed_append_raises_cuts_the_file_back_and_the_journal_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, faults: dict[str, Callable[..., Any]]
) -> None:
    path = tmp_path / "match.journal"
    journal, _ = Journal.open(path)
    with journal:
        journal.append(*RECORDS[:2])
        size = path.stat().st_size

        with monkeypatch.context() as patched:
            install_faults(patched, **faults)
            with pytest.raises(JournalError) as raised:
                journal.append(*RECORDS[2:])

        assert str(path) in str(raised.value)
        assert isinstance(raised.value.__cause__, OSError)
        assert path.stat().st_size == size
        assert reopen(path) == Recovery(RECORDS[:2], [], size)

        journal.append(*RECORDS[2:])

    assert reopen(path) == Recovery(RECORDS, [], path.stat().st_size)


def test_an_append_after_a_failed_cut_back_is_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The write fails half way and cutting the half record off fails too. The journal may
    # refuse further appends, but an append that returns must be readable afterwards:
    # it must not be glued onto the half record and read back as one damaged line.
    path = tmp_path / "match.journal"
    journal, _ = Journal.open(path)
    with journal:
        journal.append(RECORDS[0])
        with monkeypatch.context() as patched:
            install_faults(patched, write=half_write_then_fail, ftruncate=fail)
            with pytest.raises(JournalError):
                journal.append(RECORDS[1])

        try:
            journal.append(RECORDS[2])
        except JournalError:
            appended = False
        else:
            appended = True

    recovery = reopen(path)
    assert recovery.records[0] == RECORDS[0]
    if appended:
        assert RECORDS[2] in recovery.records, recovery


# ---------------------------------------------------------------- errors name the path


def test_opening_a_folder_raises_an_error_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-file"
    folder.mkdir()

    with pytest.raises(JournalError, match=re.escape(str(folder))):
        Journal.open(folder)


def test_opening_below_a_file_raises_an_error_naming_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    path = blocker / "match.journal"

    with pytest.raises(JournalError, match=re.escape(str(path))):
        Journal.open(path)


def test_a_failed_recovery_raises_an_error_naming_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "match.journal"
    write_records(path, RECORDS)
    install_faults(monkeypatch, pread=fail)

    with pytest.raises(JournalError, match=re.escape(str(path))) as raised:
        Journal.open(path)

    assert "recover" in str(raised.value)


def test_a_failed_append_raises_an_error_naming_the_path_and_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "match.journal"
    journal, _ = Journal.open(path)
    with journal:
        install_faults(monkeypatch, write=short_write)
        with pytest.raises(JournalError) as raised:
            journal.append(RECORDS[0])

    message = str(raised.value)
    assert str(path) in message
    assert "short write" in message


# ---------------------------------------------------------------- storage faults, damage


def test_a_damaged_middle_record_is_reported_by_offset_and_its_legible_seq_counts(
        tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    records = [*RECORDS[:2], {"type": "event", "seq": 7, "data": {}}, RECORDS[2]]
    starts = write_records(path, records)
    data = bytearray(path.read_bytes())
    data[starts[2] + 12] ^= 0x01  # the seq-7 event's body: its CRC no longer matches
    assert b'"seq":7' in bytes(data[starts[2]:starts[3]])

    recovery = scan(bytes(data), str(path))

    assert recovery.damaged == [starts[2]]
    assert recovery.max_seq == 7  # never given to another event, though the record is lost
    assert recovery.records == [*records[:2], records[3]]
    assert names_offset(recovery.warnings[0], starts[2])


def test_a_failed_append_lets_the_file_go_and_the_next_one_opens_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card that comes back is a new mount: the descriptor of the failed one is let go
    (so a read-only remount finds no writer), and the next append opens the file by its
    path, cuts off any fragment and goes on behind the last whole record."""
    path = tmp_path / "match.journal"
    journal, _ = Journal.open(path)
    with journal:
        journal.append(RECORDS[0])
        with monkeypatch.context() as patched:
            install_faults(patched, write=half_write_then_fail, ftruncate=fail)
            with pytest.raises(JournalError):
                journal.append(RECORDS[1])
            assert not journal.writable
            with pytest.raises(JournalError):  # still failing: the open itself is refused
                install_faults(patched, open=fail)
                journal.append(RECORDS[1])
        assert path.stat().st_size > len(encode(RECORDS[0]))  # the fragment is still there
        journal.append(RECORDS[1])
        assert journal.writable
    assert reopen(path) == Recovery(RECORDS[:2], [], path.stat().st_size)


def test_a_journal_opened_detached_reads_its_records_and_writes_once_it_can(
        tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    write_records(path, RECORDS[:2])
    with open(path, "ab") as f:
        f.write(encode(RECORDS[2])[:7])  # a torn tail a read-only start cannot cut

    journal, recovery = Journal.open_detached(path)
    with journal:
        assert recovery.records == RECORDS[:2] and not journal.writable
        journal.append(RECORDS[2])  # the disk is writable: opened, tail cut, appended
        assert journal.writable
    assert reopen(path) == Recovery(RECORDS[:3], [], path.stat().st_size)


def test_a_detached_journal_never_writes_behind_a_file_that_shrank(tmp_path: Path) -> None:
    path = tmp_path / "match.journal"
    write_records(path, RECORDS[:3])
    journal, _ = Journal.open_detached(path)
    with journal:
        path.write_bytes(b"")  # not what was read: appending would glue onto nothing known
        with pytest.raises(JournalError, match="shorter"):
            journal.append(RECORDS[3])
