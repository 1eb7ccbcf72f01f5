"""A board that keeps the game when storage fails, one daemon per state folder, and a
journal damaged in the middle (docs/developer.md, "The journal", "The scoreboard daemon").

In-process on a fake clock (tests/daemon/inprocess.py) with the real ``Journal``: on a small
real tmpfs that is filled up mid-game and then freed, or mounted read-only at start and then
read-write (mounting needs root: those tests skip otherwise; CI runs as root); a read-only
remount *mid-game* cannot be made while the journal is open for writing (the kernel refuses
with EBUSY), so there the journal's ``os`` is swapped for one that answers EROFS.
"""

from __future__ import annotations

import errno
import logging
import os
import subprocess
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.core.units import NS_PER_S
from arena.timesource import FakeClock
from firmware_py import journal as journal_module
from firmware_py.journal import scan
from firmware_py.statelock import LOCK_NAME, StateLocked
from tests.daemon.conftest import Hall, reference_state, script_origin
from tests.daemon.inprocess import InProcessHall
from tests.daemon.test_inprocess import (
    CONFIG,
    GAME,
    PRESET,
    SETUP,
    Reference,
    game_lines,
    records,
)
from tests.fixtures import wait_for

FLOORBALL = '[match]\npreset = "floorball-2x15"\n'
LINKED = FLOORBALL + '[mqtt]\nbroker = "mqtt://127.0.0.1:1883"\ntournament = "T1"\nhall = "H1"\n'
STRAIGHT_GOALS = FLOORBALL + "[console]\nkeypad = false\n"  # a GOAL press scores at once
MS = 1_000_000


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs of our own, unmounted afterwards whatever happened."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)],
                   check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> Path:
    """Fill the file system up to the last byte."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (65536, 4096, 512, 64, 1):
            try:
                while True:
                    f.write(b"x" * size)
            except OSError as err:
                assert err.errno == errno.ENOSPC
    return filler


def remount(folder: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(folder)], check=True)


def messages(caplog: pytest.LogCaptureFixture, start: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith(start)]


def press(hall: InProcessHall, action: str, at: int) -> None:
    console = hall.daemon.console if hall.daemon else None
    assert console is not None
    console.button(action, at, True)
    console.button(action, at + 60 * MS, False)


def check_journal_is_the_reference(hall: InProcessHall, last_at: int) -> None:
    """The journal holds exactly the reference's events: seqs gapless, none twice."""
    kept = records(hall)
    origin = script_origin(kept)
    _, events = reference_state(PRESET, SETUP, game_lines(), origin, last_at)
    journalled = [r for r in kept if r.get("type") == "event"]
    assert [(r["seq"], r["at"], r["event"], r["data"]) for r in journalled] == \
        [(e.seq, e.at, e.kind.value, dict(e.data)) for e in events]
    seqs = [r["seq"] for r in journalled]
    assert seqs == list(range(1, len(seqs) + 1))


# ---------------------------------------------------------------- storage fails mid-game


@pytest.mark.slow
def test_a_full_disk_mid_game_keeps_the_game_and_catches_up_when_space_is_freed(
        disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The disk fills at 5:00 of period 1 and is freed ten minutes into period 2: the
    period end and its horn come at their instants, every frame is the reference replay's,
    the board says NOT RECORDING the whole time, the loop naps (no busy loop) and logs a
    bounded few lines; then the journal catches up and holds exactly the game."""
    caplog.set_level(logging.INFO, logger="firmware_py.daemon")
    clock = FakeClock()
    hall = InProcessHall(disk, CONFIG, time=clock)
    daemon = hall.start(script=GAME)
    daemon.run_until(clock.now + NS_PER_S)
    origin = script_origin(records(hall))
    daemon.run_until(origin + 300 * NS_PER_S)
    assert daemon.status()["recording"]
    filler = fill(disk)
    # The journal's last page still has room: the writes that fit in it succeed, and the
    # first failed write is the first record past it (found once the journal caught up).
    journal_path = hall.state_dir / "M1.journal"
    filled_size = journal_path.stat().st_size
    room = -filled_size % os.sysconf("SC_PAGE_SIZE")
    naps, frames_before = clock.slept, len(hall.frames)
    down_from = clock.now
    # Past the period's end (20:00), the break and ten minutes into period 2.
    free_at = origin + 2500 * NS_PER_S
    daemon.run_until(free_at)
    down = hall.frames[frames_before:]
    assert not daemon.status()["recording"]
    assert daemon.session is not None and daemon.session.recorder.unwritten
    # The board says so on (nearly) every frame of the stretch: from the first failed write.
    first_down = next(i for i, f in enumerate(down) if f.status and not f.status["recording"])
    assert all(f.status is not None and not f.status["recording"] for f in down[first_down:])
    phases = {f.doc["phase"] for f in down[first_down:]}
    assert {"period", "intermission"} <= phases
    # The horn sounded at the end of period 1, at its instant, while nothing was recorded.
    _, events = reference_state(PRESET, SETUP, game_lines(), origin, free_at)
    ends = [e.at for e in events if e.kind.value == "period_ended"]
    assert ends and ends[0] > down[first_down].at
    assert ends[0] in [at for at, on in hall.horn.switched if on]
    # No busy loop: at most ~100 naps a second (10 ms each), as with a healthy disk.
    assert clock.slept - naps <= (free_at - down_from) // NS_PER_S * 110
    # Bounded logs: one line when it started, then at most one a minute.
    assert len(messages(caplog, "NOT RECORDING")) == 1
    minutes = (free_at - down_from) // (60 * NS_PER_S)
    assert len(messages(caplog, "still not recording")) <= minutes + 1
    assert not messages(caplog, "recording again")
    # Space comes back: within the longest retry gap, everything is written, in order.
    filler.unlink()
    daemon.run_until(free_at + 6 * NS_PER_S)
    assert daemon.status()["recording"] and not daemon.session.recorder.unwritten
    assert len(messages(caplog, "recording again")) == 1
    assert hall.frames[-1].status is not None and hall.frames[-1].status["recording"]
    daemon.run_until(origin + 4000 * NS_PER_S)
    assert hall.frames[-1].doc["phase"] == "final"
    reference = Reference(game_lines(), origin)
    for frame in hall.frames:
        reference.check(frame)
    check_journal_is_the_reference(hall, hall.frames[-1].at)
    # The board said so from the first failed write: the first record that did not fit in
    # the room left in the journal's last page (its size depends on the preset's text).
    end, failed_at = filled_size, None
    for line in journal_path.read_bytes()[filled_size:].splitlines(keepends=True):
        end += len(line)
        if end > filled_size + room:
            failed_at = scan(line, "first failed write").records[0]["at"]
            break
    assert failed_at is not None
    assert failed_at <= down[first_down].at <= failed_at + 2 * NS_PER_S
    # And it replays: a restart rebuilds exactly the final.
    final = hall.frames[-1].doc
    hall.crash()
    daemon = hall.start(script=GAME)
    daemon.run_until(clock.now + NS_PER_S)
    assert {k: v for k, v in hall.frames[-1].doc.items() if k != "restored"} == \
        {k: v for k, v in final.items() if k != "restored"}
    hall.stop()


class ReadOnlyOs(types.SimpleNamespace):
    """The journal's ``os`` on a card gone read-only: every write and every open for
    writing fails with EROFS; reading still works."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    @staticmethod
    def write(fd: int, data: bytes) -> int:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    @staticmethod
    def open(path: Any, flags: int, mode: int = 0o777) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return os.open(path, flags, mode)


def test_a_card_gone_read_only_mid_game_stop_start_and_the_period_end_still_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="firmware_py.daemon")
    clock = FakeClock()
    hall = InProcessHall(tmp_path, FLOORBALL, time=clock)
    daemon = hall.start()
    t0 = clock.now + NS_PER_S
    press(hall, "start_stop", t0)
    daemon.run_until(t0 + 60 * NS_PER_S)
    size = (hall.state_dir / "M1.journal").stat().st_size
    monkeypatch.setattr(journal_module, "os", ReadOnlyOs())
    stop_at = t0 + 61 * NS_PER_S + 123 * MS
    press(hall, "start_stop", stop_at)
    daemon.run_until(stop_at + 10 * NS_PER_S)
    doc, status = hall.frames[-1].doc, hall.frames[-1].status
    assert not doc["running"] and doc["clock_ms"] == 900_000 - (stop_at - t0) // MS
    assert status is not None and status["recording"] is False
    start_at = stop_at + 10 * NS_PER_S
    press(hall, "start_stop", start_at)
    naps = clock.slept
    period_end = start_at + (900_000 * MS - (stop_at - t0))
    daemon.run_until(period_end + 30 * NS_PER_S)
    # The period ended at its deadline and the horn sounded there, from memory.
    assert hall.frames[-1].doc["phase"] == "intermission"
    assert period_end in [at for at, on in hall.horn.switched if on]
    assert (hall.state_dir / "M1.journal").stat().st_size == size  # nothing written
    assert clock.slept - naps <= (period_end + 30 * NS_PER_S - start_at) // NS_PER_S * 110
    assert len(messages(caplog, "NOT RECORDING")) == 1
    assert len(messages(caplog, "still not recording")) <= 16
    # The card is writable again: caught up within the longest retry gap.
    monkeypatch.undo()
    daemon.run_until(clock.now + 6 * NS_PER_S)
    assert daemon.status()["recording"]
    kept = records(hall)
    commands = [r["command"]["do"] for r in kept if r.get("type") == "command"]
    assert commands == ["start", "stop", "start"]
    events = [r for r in kept if r.get("type") == "event"]
    assert [r["seq"] for r in events] == list(range(1, len(events) + 1))
    assert [r["at"] for r in events if r["event"] == "period_ended"] == [period_end]
    hall.stop()


@pytest.mark.slow
def test_a_read_only_state_folder_at_start_still_shows_a_board_and_records_once_writable(
        disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="firmware_py.daemon")
    clock = FakeClock()
    hall = InProcessHall(disk, LINKED, time=clock)
    hall.start()
    hall.stop()  # the folder, its journal and its lock file exist: a hall played before
    journal = hall.state_dir / "M1.journal"
    size = journal.stat().st_size
    remount(disk, "ro")
    daemon = hall.start()
    daemon.run_until(clock.now + 2 * NS_PER_S)
    assert hall.frames and hall.frames[-1].status is not None
    assert hall.frames[-1].status["recording"] is False
    problem = messages(caplog, "NOT RECORDING")[0].kv["problem"]  # type: ignore[attr-defined]
    assert "Read-only file system" in problem and str(journal) in problem
    # The office link starts all the same: it writes its side file (the office's stored
    # mark) only when the office acknowledges, and nothing is sent before it is journalled.
    assert daemon.link is not None and hall.link.started and hall.link.sent == []
    t0 = clock.now
    press(hall, "start_stop", t0)
    daemon.run_until(t0 + 20 * NS_PER_S)
    assert hall.frames[-1].doc["running"]  # played from memory
    assert hall.frames[-1].doc["clock_ms"] == 900_000 - 20_000
    remount(disk, "rw")
    daemon.run_until(clock.now + 6 * NS_PER_S)
    assert daemon.status()["recording"]
    assert journal.stat().st_size > size
    kept = records(hall)
    assert [r["command"]["do"] for r in kept if r.get("type") == "command"] == ["start"]
    # The office link started with the catch-up and got the events, in order.
    assert daemon.link is not None and hall.link.started
    events = [(r["match"], r["seq"]) for r in kept if r.get("type") == "event"]
    assert events and [(r["match"], r["seq"]) for r in hall.link.sent] == events
    hall.stop()


# ---------------------------------------------------------------- one daemon per folder


def test_a_second_daemon_on_the_same_state_folder_is_refused_naming_it_and_the_pid(
        tmp_path: Path) -> None:
    first = InProcessHall(tmp_path, FLOORBALL)
    first.start()
    second = InProcessHall(tmp_path, FLOORBALL)
    with pytest.raises(StateLocked) as refused:
        second.start()
    assert str(first.state_dir) in str(refused.value)
    assert f"pid {os.getpid()}" in str(refused.value)
    first.stop()
    second.start()  # the first one gone, the folder is free
    second.stop()


@pytest.mark.slow
def test_a_second_scoreboard_run_exits_with_a_clear_message(tmp_path: Path) -> None:
    hall = Hall(tmp_path / "a")
    proc = hall.start()
    wait_for(lambda: hall.doc() is not None or proc.poll() is not None, 60,
             "the first scoreboard's first frame")
    assert proc.poll() is None, hall.log_text()
    other = Hall(tmp_path / "b")
    other.state_dir = hall.state_dir
    second = other.start()
    assert second.wait(60) == 3
    text = other.log_text()
    assert f"state folder {hall.state_dir} is in use by another scoreboard " \
           f"(pid {proc.pid})" in text, text
    assert (hall.state_dir / LOCK_NAME).read_text().strip() == str(proc.pid)
    assert hall.signal() == 0


# ---------------------------------------------------------------- a damaged journal


def test_a_record_damaged_mid_journal_stops_and_asks_and_no_seq_is_used_twice(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="firmware_py.daemon")
    clock = FakeClock()
    hall = InProcessHall(tmp_path, STRAIGHT_GOALS, time=clock)
    daemon = hall.start()
    t0 = clock.now + NS_PER_S
    press(hall, "start_stop", t0)
    for n in range(3):  # three goals (no keypad: straight goals)
        press(hall, "goal_home", t0 + (10 + 10 * n) * NS_PER_S)
    daemon.run_until(t0 + 40 * NS_PER_S)
    hall.crash()
    # The disk lies: the record of the first goal's command, in the middle, gets one byte
    # wrong (its CRC no longer matches); the events behind it are whole.
    path = hall.state_dir / "M1.journal"
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines)
                 if b'"type":"command"' in line and b'"goal"' in line)
    offset = sum(len(line) for line in lines[:index])
    damaged = lines[index].replace(b'"team":"home"', b'"team":"hom3"')
    path.write_bytes(b"".join([*lines[:index], damaged, *lines[index + 1:]]))
    highest = scan(data, "x").max_seq
    daemon = hall.start()
    daemon.run_until(clock.now + 2 * NS_PER_S)
    status = hall.frames[-1].status
    assert status is not None and status["journal_damaged"] == offset
    found = messages(caplog, "JOURNAL DAMAGED")
    assert len(found) == 1
    assert found[0].kv["journal"] == path and found[0].kv["at_bytes"] == str(offset)  # type: ignore[attr-defined]
    assert f"damaged record at byte {offset}" in caplog.text
    # It stopped: the clock is not running, and START/STOP is refused until the NEXT hold.
    assert not hall.frames[-1].doc["running"]
    press(hall, "start_stop", clock.now)
    daemon.run_until(clock.now + 2 * NS_PER_S)
    assert not hall.frames[-1].doc["running"]
    assert messages(caplog, "command refused")[-1].kv["reason"].startswith(  # type: ignore[attr-defined]
        "the journal is damaged")
    # The timekeeper holds NEXT (1 s): the board plays on from what was read.
    console = daemon.console
    assert console is not None
    held = clock.now
    console.button("next", held, True)  # the hold completes with our clock, while held
    daemon.run_until(held + 1_200 * MS)
    console.button("next", held + 1_200 * MS, False)
    daemon.run_until(clock.now + 2 * NS_PER_S)
    assert hall.frames[-1].status is not None
    assert hall.frames[-1].status["journal_damaged"] is None
    assert messages(caplog, "damaged journal confirmed")
    press(hall, "goal_home", clock.now)  # a goal after it: numbered above every old seq
    daemon.run_until(clock.now + 2 * NS_PER_S)
    events = [r for r in scan(path.read_bytes(), "x").records if r.get("type") == "event"]
    old = [r["seq"] for r in events if r["seq"] <= highest]
    new = [r["seq"] for r in events if r["seq"] > highest]
    assert new and new[0] == highest + 1 and new == list(range(highest + 1, highest + 1 +
                                                                len(new)))
    assert len(old) == len(set(old))  # none twice
    # A restart: the confirmation is journalled, so it does not ask again, and the replay
    # numbers as the board did.
    seq = daemon.match.state.seq
    hall.crash()
    daemon = hall.start()
    daemon.run_until(clock.now + NS_PER_S)
    assert daemon.status()["journal_damaged"] is None
    assert daemon.match.state.seq == seq
    hall.stop()



@pytest.mark.slow
def test_a_read_only_folder_of_another_tournament_is_neither_used_nor_sent(
        disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Identity (issue [reliability]) on a card that cannot be written: last year's journals
    cannot be set aside, so the board plays this year's match from memory, says so, and
    sends nothing of theirs."""
    caplog.set_level(logging.INFO, logger="firmware_py.daemon")
    clock = FakeClock()
    last_year = InProcessHall(disk, LINKED.replace('"T1"', '"T0"'), time=clock)
    daemon = last_year.start()
    press(last_year, "start_stop", clock.now)
    daemon.run_until(clock.now + 5 * NS_PER_S)
    last_year.stop()
    remount(disk, "ro")
    hall = InProcessHall(disk, LINKED, time=clock)
    daemon = hall.start()
    daemon.run_until(clock.now + 2 * NS_PER_S)
    status = hall.frames[-1].status
    assert status is not None and status["recording"] is False
    assert hall.frames[-1].doc["phase"] == "pregame"  # not last year's running M1
    assert hall.link.sent == []
    assert messages(caplog, "journals of another tournament or hall cannot be set aside")
    hall.stop()
