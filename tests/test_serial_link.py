"""The serial link against a real pseudo-terminal pair (and pyserial's loop://).

The link opens the pty's slave side by name, as it would open /dev/ttyUSB0; the test plays
the keypad or the LED board on the master side. Nothing here sleeps to let time pass: the
link's clock is a fake, and every wait is for an event (a line on the master, a doorbell the
link rings after handling input) with a generous deadline that only a hang would reach.
"""

from __future__ import annotations

import json
import logging
import os
import select
import threading
import time
import tty
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import serial

from arena.core.commands import Goal, Horn, Start, Stop
from arena.core.phase import Team
from arena.core.units import NS_PER_S, ms, seconds
from arena.timesource import FakeClock
from hardware.serial_link import (
    TOO_LONG,
    LineSplitter,
    SerialLink,
    backoff_delay,
    encode_state,
)

DEADLINE = 5.0  # seconds; reached only if the link hangs
LOGGER = "hardware.serial_link"


class Doorbell:
    """The link's ``on_input``: lets a test wait for input to have been handled."""

    def __init__(self) -> None:
        self._rung = threading.Event()

    def __call__(self) -> None:
        self._rung.set()

    def wait_for(self, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + DEADLINE
        while True:
            self._rung.clear()  # before looking, so a ring in between is not lost
            if condition():
                return
            remaining = deadline - time.monotonic()
            assert remaining > 0, "the link did not handle the input"
            self._rung.wait(remaining)


class Pty:
    """A pseudo-terminal pair; the master fd is the far end of the cable."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        # Raw at once: no echo, no CR/LF rewriting, even before the link configures it.
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.name = os.ttyname(self.slave)
        self._pending = bytearray()
        self._master_open = True

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + DEADLINE
        while view:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "the link stopped reading"
            _, writable, _ = select.select([], [self.master], [], remaining)
            if writable:
                try:
                    view = view[os.write(self.master, view):]
                except BlockingIOError:
                    continue

    def readline(self) -> bytes:
        """The next line the link wrote, without its newline."""
        deadline = time.monotonic() + DEADLINE
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no line from the link; got {bytes(self._pending)!r}"
            readable, _, _ = select.select([self.master], [], [], remaining)
            if readable:
                self._pending += os.read(self.master, 65536)
        line, _, rest = self._pending.partition(b"\n")
        self._pending = bytearray(rest)
        return bytes(line)

    def pull_cable(self) -> None:
        os.close(self.master)
        self._master_open = False

    def close(self) -> None:
        if self._master_open:
            self.pull_cable()
        os.close(self.slave)


@pytest.fixture
def make_pty() -> Iterator[Callable[[], Pty]]:
    made: list[Pty] = []

    def make() -> Pty:
        made.append(Pty())
        return made[-1]

    yield make
    for pty in made:
        pty.close()


@pytest.fixture
def make_link() -> Iterator[Callable[..., SerialLink]]:
    """Links built with fast test settings, closed even if the test fails."""
    made: list[SerialLink] = []

    def make(url: str, *, start: bool = True, **options: Any) -> SerialLink:
        options.setdefault("clock", FakeClock(5 * NS_PER_S))
        options.setdefault("backoff_base", 0.01)
        options.setdefault("backoff_max", 0.05)
        link = SerialLink(url, **options)
        made.append(link)
        if start:
            link.start()
        return link

    yield make
    for link in made:
        link.close()


@pytest.fixture(autouse=True)
def no_thread_leaks() -> Iterator[None]:
    yield
    leaked = [t.name for t in threading.enumerate() if t.name.startswith("serial-")]
    assert not leaked


def state(**changes: object) -> dict[str, object]:
    doc: dict[str, object] = {
        "preset": "ice-hockey-2x20", "stage": "group", "match": "A3",
        "teams": {"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
                  "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}},
        "phase": "period", "period": 1, "clock_ms": 1200000, "running": False,
        "score": {"home": 0, "away": 0},
    }
    doc.update(changes)
    return doc


def compact(doc: dict[str, object]) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def logged_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == LOGGER and r.levelno == logging.WARNING]


def wait_until_open(link: SerialLink, pty: Pty) -> None:
    """Return once the link has opened the pty: pyserial flushes the input when it opens a
    port, so bytes the test wrote before would be lost. The writer sends the latest state
    to a port as soon as it is open, so its first line is the signal."""
    link.send_state(state())
    assert pty.readline() == compact(state())


# -- commands in ----------------------------------------------------------------------------


def test_a_command_is_stamped_with_the_clock_when_its_line_arrives(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink]) -> None:
    pty, clock, bell = make_pty(), FakeClock(seconds(5)), Doorbell()
    link = make_link(pty.name, clock=clock, on_input=bell)
    wait_until_open(link, pty)

    pty.write(b'{"do": "goal", "team": "home", "player": 7}\n')
    bell.wait_for(lambda: link.stats.commands_in == 1)
    clock.advance_ns(seconds(1))  # the daemon drains later: the arrival time still counts
    assert link.drain() == [Goal(at=seconds(5), team=Team.HOME, player=7)]

    pty.write(b'{"do": "start"}\n{"do": "stop"}\n')
    bell.wait_for(lambda: link.stats.commands_in == 3)
    assert link.drain() == [Start(at=seconds(6)), Stop(at=seconds(6))]
    assert link.drain() == []


def test_commands_also_come_in_through_a_pyserial_url(
        make_link: Callable[..., SerialLink]) -> None:
    ports: list[serial.SerialBase] = []
    opened, bell = threading.Event(), Doorbell()

    def opener(url: str, **options: Any) -> serial.SerialBase:
        ports.append(serial.serial_for_url(url, **options))
        opened.set()
        return ports[-1]

    link = make_link("loop://", opener=opener, on_input=bell)
    assert opened.wait(DEADLINE)
    ports[0].write(b'{"do": "horn", "on": true}\r\n')  # loop:// hands it to the link's read
    bell.wait_for(lambda: link.stats.commands_in == 1)
    assert link.drain() == [Horn(at=seconds(5), on=True)]


def test_bad_lines_are_counted_and_logged_with_their_reason_and_the_link_goes_on(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    pty, bell = make_pty(), Doorbell()
    link = make_link(pty.name, on_input=bell)
    wait_until_open(link, pty)

    pty.write(b"".join([
        b"not json\n",
        b"[1, 2]\n",
        b'{"do": "jump"}\n',
        b'{"do": "goal", "team": 5}\n',
        b'{"t": 1.5, "do": "start"}\n',
        b"\xff\xfe\n",
        b"\n",  # blank: ignored, but it is still line 7
        b"[" * 3000 + b"\n",
        b'{"do": "set_clock", "ms": "ten"}\n',
        b'{"do": "goal", "team": "away"}\r\n',
    ]))
    bell.wait_for(lambda: link.stats.lines_in == 10)

    assert link.drain() == [Goal(at=seconds(5), team=Team.AWAY)]
    where = f"serial {pty.name} line"
    assert logged_warnings(caplog) == [
        f"{where} 1: not JSON (Expecting value at column 1): b'not json'",
        f'{where} 2: must be a JSON object like {{"do": "start"}}, got an array',
        f"{where} 3: unknown command 'jump' (one of start, stop, goal, penalty, timeout, "
        "shot, next, set_clock, horn, undo, forfeit, end, cancel, correct)",
        f"{where} 4: 'team' must be \"home\" or \"away\", got 5",
        f"{where} 5: 't' is not allowed on the serial link: a serial command acts when it "
        "arrives",
        f"{where} 6: not UTF-8 text (byte 1): b'\\xff\\xfe'",
        f"{where} 8: not JSON (nested too deeply)",
        f"{where} 9: 'ms' must be whole milliseconds 0..86400000, got 'ten'",
    ]
    stats = link.stats
    assert (stats.lines_in, stats.commands_in, stats.bad_lines) == (10, 1, 8)
    assert stats.last_error == logged_warnings(caplog)[-1]


def test_a_line_of_a_megabyte_is_reported_once_and_skipped(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    pty, bell = make_pty(), Doorbell()
    link = make_link(pty.name, on_input=bell)
    wait_until_open(link, pty)

    pty.write(b"x" * 1_000_000)  # no newline yet: reported as soon as it is too long
    bell.wait_for(lambda: link.stats.bad_lines == 1)
    pty.write(b"x" * 1000 + b'\n{"do": "start"}\n')
    bell.wait_for(lambda: link.stats.commands_in == 1)

    assert link.drain() == [Start(at=seconds(5))]
    assert logged_warnings(caplog) == [
        f"serial {pty.name} line 1: longer than 4096 bytes; dropped up to its newline"]
    assert (link.stats.lines_in, link.stats.bad_lines) == (2, 1)


def test_the_line_splitter_holds_no_more_than_its_limit() -> None:
    lines = LineSplitter(limit=4)
    assert list(lines.feed(b"abcd\nab")) == [b"abcd"]
    assert list(lines.feed(b"cd\r")) == []  # the \r may be the start of a \r\n
    assert list(lines.feed(b"\n\r\n")) == [b"abcd", b""]
    assert list(lines.feed(b"abcde\n")) == [TOO_LONG]  # too long, newline in the same chunk
    assert list(lines.feed(b"abc")) == []
    assert list(lines.feed(b"def")) == [TOO_LONG]  # too long, reported before its newline
    assert list(lines.feed(b"fghij" * 100)) == []  # skipped, not reported again
    assert list(lines.feed(b"xyz\nok\n")) == [b"ok"]


# -- state out ------------------------------------------------------------------------------


def test_the_state_goes_out_as_one_compact_json_line_per_change(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink]) -> None:
    pty = make_pty()
    link = make_link(pty.name)
    first, second = state(), state(score={"home": 1, "away": 0})

    link.send_state(first)
    line = pty.readline()
    assert line == compact(first)
    assert b", " not in line and b": " not in line
    assert json.loads(line) == first

    link.send_state(state())  # equal to what went out: not a change, nothing sent
    link.send_state(second)
    assert pty.readline() == compact(second)

    link.close()
    assert link.stats.lines_out == 2


def test_the_latest_state_wins_over_states_not_yet_written(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink]) -> None:
    pty = make_pty()
    link = make_link(pty.name, start=False)
    for goals in range(3):
        link.send_state(state(score={"home": goals, "away": 0}))
    link.start()
    assert pty.readline() == compact(state(score={"home": 2, "away": 0}))


def test_non_ascii_is_escaped_and_a_document_that_is_not_json_is_refused() -> None:
    assert encode_state({"name": "Kärpät"}) == b'{"name":"K\\u00e4rp\\u00e4t"}\n'
    with pytest.raises(ValueError, match="not JSON compliant"):
        encode_state({"clock_ms": float("nan")})


def test_a_running_clock_is_resent_on_the_injected_clocks_cadence(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink]) -> None:
    # The writer waits until the next re-send is due by the injected clock. The fake clock
    # stands still unless the test moves it, so each move by one period gives exactly one
    # re-send (20 ms of real time at most is spent waiting for the writer to look again).
    pty, clock = make_pty(), FakeClock(5 * NS_PER_S)
    link = make_link(pty.name, clock=clock, resend_every=0.02)
    running = state(running=True)

    link.send_state(running)
    assert pty.readline() == compact(running)
    for _ in range(3):
        clock.advance_ns(ms(20))
        assert pty.readline() == compact(running)

    stopped, corrected = state(clock_ms=1190000), state(clock_ms=1190500)
    link.send_state(stopped)
    assert pty.readline() == compact(stopped)
    clock.advance_ns(seconds(10))  # a stopped clock is not re-sent, however long it stands
    link.send_state(corrected)
    assert pty.readline() == compact(corrected)

    link.close()
    assert link.stats.lines_out == 6


# -- a vanishing port -----------------------------------------------------------------------


def test_a_pulled_cable_is_reopened_with_backoff_and_the_link_works_again(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    before, after, bell = make_pty(), make_pty(), Doorbell()
    attempts: list[str] = []

    def opener(url: str, **options: Any) -> serial.SerialBase:
        attempts.append(url)
        if len(attempts) == 1:
            return serial.serial_for_url(before.name, **options)
        if len(attempts) <= 3:  # the adapter takes a while to come back
            raise serial.SerialException(f"could not open port {url}: No such file")
        return serial.serial_for_url(after.name, **options)

    link = make_link("usb-adapter", opener=opener, on_input=bell)
    doc = state(score={"home": 2, "away": 1})
    link.send_state(doc)
    assert before.readline() == compact(doc)

    before.pull_cable()
    # The latest state goes to the new port at once, after a newline that ends any half
    # line the receiver kept from before.
    assert after.readline() == b""
    assert after.readline() == compact(doc)
    after.write(b'{"do": "goal", "team": "home"}\n')
    bell.wait_for(lambda: link.stats.commands_in == 1)

    assert link.drain() == [Goal(at=seconds(5), team=Team.HOME)]
    assert len(attempts) == 4
    assert (link.stats.reopen_count, link.stats.connected) == (1, True)
    lost, cannot_open = logged_warnings(caplog)
    # pyserial words a vanished tty as EIO or as "readiness to read but returned no data".
    assert lost.startswith("serial usb-adapter: port lost (")
    assert lost.endswith("); reopening")
    assert cannot_open == ("serial usb-adapter: cannot open (could not open port usb-adapter: "
                           "No such file); retrying")  # logged once, not on every retry


def test_a_port_that_fails_on_write_is_reopened(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    pty = make_pty()
    attempts: list[str] = []

    def broken_write(data: bytes) -> int:
        raise serial.SerialTimeoutException("Write timeout")

    def opener(url: str, **options: Any) -> serial.SerialBase:
        attempts.append(url)
        if len(attempts) == 1:
            port = serial.serial_for_url("loop://", **options)
            port.write = broken_write
            return port
        return serial.serial_for_url(pty.name, **options)

    link = make_link("board", opener=opener)
    doc = state(running=True)
    link.send_state(doc)

    assert pty.readline() == b""  # the failed write may have left half a line out there
    assert pty.readline() == compact(doc)
    assert len(attempts) == 2
    assert link.stats.reopen_count == 1
    assert "serial board: write failed (Write timeout)" in logged_warnings(caplog)


def test_close_is_prompt_during_a_long_backoff(make_link: Callable[..., SerialLink]) -> None:
    tried = threading.Event()

    def opener(url: str, **options: Any) -> serial.SerialBase:
        tried.set()
        raise serial.SerialException(f"could not open port {url}")

    link = make_link("absent", opener=opener, backoff_base=60.0, backoff_max=60.0)
    assert tried.wait(DEADLINE)
    started = time.monotonic()
    link.close()
    assert time.monotonic() - started < DEADLINE  # not the 60 s back-off
    assert link.stats.connected is False
    assert link.stats.last_error == "serial absent: cannot open (could not open port absent)"


def test_backoff_doubles_up_to_its_ceiling() -> None:
    delays = [backoff_delay(n, 0.5, 10.0) for n in range(1, 8)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert backoff_delay(100_000, 0.5, 10.0) == 10.0  # a week of failures: no overflow


def test_no_thread_outlives_close(make_pty: Callable[[], Pty]) -> None:
    baseline = threading.active_count()
    for _ in range(3):
        pty = make_pty()
        with SerialLink(pty.name, clock=FakeClock(5 * NS_PER_S)) as link:
            link.send_state(state())
            assert pty.readline() == compact(state())
            assert threading.active_count() == baseline + 2
        assert threading.active_count() == baseline
    SerialLink("never-started", clock=FakeClock(5 * NS_PER_S)).close()  # harmless


# -- ordering: a re-send never carries an older state than one already written ------------


def test_resends_never_go_back_to_an_older_state_and_the_last_one_stays(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink]) -> None:
    """The daemon's thread hands over states as fast as it can while the writer re-sends
    every millisecond by the real clock: the lines on the wire only ever move forward, and
    once the stopped state is out no running one follows it, however long the writer runs."""
    pty = make_pty()
    link = make_link(pty.name, clock=time.monotonic_ns, resend_every=0.001)
    wait_until_open(link, pty)
    count = 300
    stopped = state(clock_ms=0, running=False, score={"home": count, "away": 0})

    def daemon_thread() -> None:
        for goals in range(1, count):
            link.send_state(state(running=True, score={"home": goals, "away": 0}))
        link.send_state(stopped)

    sender = threading.Thread(target=daemon_thread, name="test-sender")
    sender.start()
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1] != stopped:
        seen.append(json.loads(pty.readline()))
    sender.join(DEADLINE)
    # The writer goes on (a stopped clock is not re-sent) until close, which writes the
    # latest once more only if it is not out yet: nothing more may follow.
    link.close()
    assert not select.select([pty.master], [], [], 0)[0], "a line after the stopped state"
    goals = [doc["score"]["home"] for doc in seen]  # type: ignore[index]
    assert goals == sorted(goals)
    assert goals[-1] == count and seen[-1]["running"] is False


def test_close_writes_the_state_handed_over_just_before(
        make_pty: Callable[[], Pty], make_link: Callable[..., SerialLink]) -> None:
    """The daemon's last state (on SIGTERM) is handed over and the link closed at once: the
    writer writes it before the port is closed."""
    pty = make_pty()
    link = make_link(pty.name)
    wait_until_open(link, pty)
    last = state(score={"home": 3, "away": 1})
    link.send_state(last)
    link.close()
    assert pty.readline() == compact(last)
