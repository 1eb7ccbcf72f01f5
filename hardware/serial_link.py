"""The serial link (pyserial): state documents out, timekeeper commands in.

Out: the state document (docs/developer.md 4.3) as one compact JSON line, on every change and again
at least every ``resend_every`` seconds while ``doc["running"]`` is true, so an LED board or
a graphics machine that is plugged in mid-game has the clock within 100 ms.

In: the replay script's command lines without ``t`` (``{"do": "goal", "team": "home"}``),
so a serial keypad or a laptop can drive the board. A serial command acts when it arrives:
each line is stamped with the injected clock the moment its bytes were read.

Threads: the daemon's loop must never wait on a serial port, so a reader thread owns the
port (opens it, reads it, reopens it with back-off when it vanishes) and a writer thread
writes from a latest-wins slot. Both only stamp, parse and enqueue; the loop calls
``drain()``. Bad input is counted, logged with its line number and reason, and dropped.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import serial  # type: ignore[import-untyped]  # pyserial ships no type hints

from arena.core.commands import Command, parse_command
from arena.core.errors import CommandError
from arena.core.units import NS_PER_S, Nanos
from arena.safejson import JsonError, load_object

log = logging.getLogger(__name__)

Clock = Callable[[], Nanos]
# Called like serial.serial_for_url(url, baudrate=..., timeout=..., write_timeout=...).
Opener = Callable[..., serial.SerialBase]
Counter = Literal["lines_in", "commands_in", "bad_lines", "lines_out", "reopen_count"]

_READ_CHUNK = 4096  # bytes per read: bounds memory whatever a sender throws at us
_EXCERPT = 40  # bytes of a bad line quoted in its message
_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "true/false", type(None): "null"}


@dataclass(frozen=True, slots=True)
class LinkStats:
    """A snapshot of the link's counters.

    ``lines_in`` counts every line received (blank and bad ones too, so it is also the
    number of the last line); ``reopen_count`` counts successful reopens after a loss.
    """

    lines_in: int = 0
    commands_in: int = 0
    bad_lines: int = 0
    lines_out: int = 0
    reopen_count: int = 0
    connected: bool = False
    last_error: str | None = None


def backoff_delay(failures: int, base: float, ceiling: float) -> float:
    """Seconds to wait after the ``failures``-th failure in a row: base, 2x base, ... ceiling."""
    return min(base * 2.0 ** min(failures - 1, 32), ceiling)  # min(): no float overflow


def encode_state(doc: dict[str, object]) -> bytes:
    """One state document as one compact ASCII JSON line (non-ASCII escaped as \\uXXXX).

    ``allow_nan=False``: NaN is not JSON and would break every receiver's parser.
    """
    return (json.dumps(doc, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")


class LineTooLong:
    """Marker yielded by ``LineSplitter`` for a line cut off at the length limit."""


TOO_LONG = LineTooLong()


class LineSplitter:
    """Bytes in, lines out (without ``\\n`` or ``\\r\\n``), holding at most ``limit`` bytes.

    A line longer than ``limit`` (not counting its line end) is reported once, as soon as it
    is too long (a sender that never sends a newline must not eat the memory), and skipped
    up to its newline.
    """

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, chunk: bytes) -> Iterator[bytes | LineTooLong]:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            piece = chunk[start:end]
            start = end + 1
            line = bytes(self._buffer + piece).removesuffix(b"\r")
            self._buffer.clear()
            if self._skipping:
                self._skipping = False  # the newline that ends the over-long line
            else:
                yield TOO_LONG if len(line) > self._limit else line
        if not self._skipping:
            self._buffer += chunk[start:]
            if len(self._buffer) > self._limit + 1:  # + 1: room for the \r of a \r\n
                self._buffer.clear()
                self._skipping = True
                yield TOO_LONG


def _excerpt(raw: bytes) -> str:
    return repr(raw[:_EXCERPT]) + ("..." if len(raw) > _EXCERPT else "")


def parse_line(raw: bytes, at: Nanos) -> Command | None:
    """A received line (without its line end) as a command; None for a blank line.

    Raises ``CommandError`` saying what is wrong with the line.
    """
    if not raw.strip():
        return None
    try:
        obj = load_object(raw)
    except JsonError as err:
        if err.kind == "not_object":
            kind = _JSON_TYPES.get(type(err.value), type(err.value).__name__)
            raise CommandError(f'must be a JSON object like {{"do": "start"}}, got {kind}'
                               ) from None
        # the line itself, where it helps to see it (its bytes as received)
        shown = f": {_excerpt(raw)}" if err.kind in ("not_utf8", "syntax") else ""
        raise CommandError(f"{err.problem}{shown}") from None
    if "t" in obj:
        raise CommandError("'t' is not allowed on the serial link: a serial command acts "
                           "when it arrives")
    return parse_command(obj, at)


@dataclass(slots=True)
class _Sent:
    """What the writer last put on the wire, and where (writer thread only)."""

    line: bytes | None = None
    at: Nanos = 0
    port: serial.SerialBase | None = None


class SerialLink:
    """State documents out and commands in over one serial port; see the module docstring.

    ``url`` is a device path (``/dev/ttyUSB0``) or a pyserial URL (``loop://``).
    ``clock`` returns monotonic nanoseconds; it stamps arriving lines and paces re-sends.
    ``on_input`` (optional) is called from the reader thread after incoming lines were
    handled, e.g. to set the Event the daemon's loop waits on; it must not block.
    """

    def __init__(
        self,
        url: str,
        baudrate: int = 115200,
        *,
        clock: Clock,
        opener: Opener | None = None,
        on_input: Callable[[], None] | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 10.0,
        # 0.09, not 0.1: a wait overshoots a little and "at least 10 a second" must hold.
        resend_every: float = 0.09,
        max_line: int = 4096,
        read_timeout: float = 0.05,
        write_timeout: float = 1.0,
    ) -> None:
        if baudrate <= 0:
            raise ValueError(f"serial {url}: baud rate must be positive, got {baudrate}")
        if not 0 < backoff_base <= backoff_max:
            raise ValueError(f"serial {url}: need 0 < backoff_base <= backoff_max, got "
                             f"{backoff_base} and {backoff_max}")
        if resend_every <= 0 or max_line <= 0 or read_timeout <= 0 or write_timeout <= 0:
            raise ValueError(f"serial {url}: resend_every, max_line and the timeouts must be "
                             "positive")
        self._url = url
        self._baudrate = baudrate
        self._clock = clock
        self._opener: Opener = opener or serial.serial_for_url
        self._on_input = on_input
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._resend_ns = round(resend_every * NS_PER_S)
        self._max_line = max_line
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout

        self._stopping = threading.Event()  # the reader's: stop reading, close the port
        self._closing = threading.Event()  # the writer's: write the latest once more, end
        self._wake = threading.Event()  # the writer's doorbell: new state, new port, closing
        self._slot_lock = threading.Lock()
        self._latest: tuple[bytes, bool] | None = None  # (line, running): latest wins
        # The usable port, or None. Writes happen under this lock and the reader closes the
        # port under it, so a write never lands on a closed (or reused) file descriptor.
        self._port_lock = threading.Lock()
        self._port: serial.SerialBase | None = None
        self._inbox: deque[Command] = deque()  # appends and pops are thread-safe
        self._stats_lock = threading.Lock()
        self._counts: dict[Counter, int] = {}
        self._connected = False
        self._last_error: str | None = None
        self._threads: list[threading.Thread] = []

    # -- the daemon's side ------------------------------------------------------------------

    def start(self) -> None:
        """Start the reader (which opens the port) and the writer; returns at once."""
        if self._threads:
            raise RuntimeError(f"serial {self._url}: already started")
        self._threads = [
            threading.Thread(target=self._run_reader, name=f"serial-reader {self._url}",
                             daemon=True),
            threading.Thread(target=self._run_writer, name=f"serial-writer {self._url}",
                             daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        """Stop both threads (also during a back-off wait) and close the port.

        The writer stops first, after writing the latest state if it is not out yet (the
        daemon's last state is handed over just before ``close``), and only then does the
        reader close the port: else the last state could be dropped on the way out.
        """
        self._closing.set()
        self._wake.set()
        self._join(self._threads[1:])  # the writer ([] if never started)
        self._stopping.set()
        self._join(self._threads[:1])  # the reader

    def _join(self, threads: list[threading.Thread]) -> None:
        # A thread can be inside a read (read_timeout) or a write (write_timeout), no longer.
        grace = self._read_timeout + self._write_timeout + 1.0
        for thread in threads:
            thread.join(grace)
            if thread.is_alive():
                log.error("serial %s: %s did not stop within %.1f s", self._url, thread.name,
                          grace)

    def __enter__(self) -> SerialLink:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def send_state(self, doc: dict[str, object]) -> None:
        """Hand the writer the latest state document; never blocks on the port.

        Encoded here, in the caller's thread, so the writer never reads a dict the caller
        may be changing. Raises ``TypeError``/``ValueError`` if ``doc`` is not JSON.
        """
        line = encode_state(doc)
        with self._slot_lock:
            self._latest = (line, doc.get("running") is True)
        self._wake.set()

    def drain(self) -> list[Command]:
        """The commands received since the last drain, in arrival order."""
        commands: list[Command] = []
        while True:
            try:
                commands.append(self._inbox.popleft())
            except IndexError:
                return commands

    @property
    def stats(self) -> LinkStats:
        with self._stats_lock:
            count = self._counts.get
            return LinkStats(
                lines_in=count("lines_in", 0), commands_in=count("commands_in", 0),
                bad_lines=count("bad_lines", 0), lines_out=count("lines_out", 0),
                reopen_count=count("reopen_count", 0), connected=self._connected,
                last_error=self._last_error)

    # -- bookkeeping --------------------------------------------------------------------------

    def _bump(self, counter: Counter, error: str | None = None) -> int:
        """Add one to ``counter`` (and note ``error``); returns the new count."""
        with self._stats_lock:
            value = self._counts[counter] = self._counts.get(counter, 0) + 1
            if error is not None:
                self._last_error = error
            return value

    def _set_connected(self, connected: bool, error: str | None = None) -> None:
        with self._stats_lock:
            self._connected = connected
            if error is not None:
                self._last_error = error

    # -- the reader thread: owns the port -----------------------------------------------------

    def _run_reader(self) -> None:
        failures = 0  # in a row; a lost port counts as one, so the first reopen waits too
        opened_before = False
        while True:
            if failures and self._stopping.wait(
                    backoff_delay(failures, self._backoff_base, self._backoff_max)):
                return
            if self._stopping.is_set():
                return
            port = self._try_open(failures)
            if port is None:
                failures += 1
                continue
            if opened_before:
                self._bump("reopen_count")
                log.info("serial %s: reopened", self._url)
            opened_before = True
            try:
                self._serve(port)
            except Exception:  # a driver's or on_input's surprise must not end the link
                log.exception("serial %s: unexpected error; reopening", self._url)
                self._set_connected(False, f"serial {self._url}: unexpected error (see log)")
            failures = 1

    def _try_open(self, failures: int) -> serial.SerialBase | None:
        try:
            return self._opener(self._url, baudrate=self._baudrate,
                                timeout=self._read_timeout, write_timeout=self._write_timeout)
        except (serial.SerialException, OSError, ValueError) as err:
            message = f"serial {self._url}: cannot open ({err})"
            self._set_connected(False, message)
            # The first failure is news; the retries every few seconds are not.
            log.log(logging.WARNING if failures <= 1 else logging.DEBUG, "%s; retrying",
                    message)
            return None

    def _serve(self, port: serial.SerialBase) -> None:
        """Publish ``port`` to the writer and read it until it fails or the link closes."""
        with self._port_lock:
            self._port = port
        self._set_connected(True)
        self._wake.set()  # the writer sends the latest state to the new port at once
        try:
            error = self._pump(port)
        finally:
            with self._port_lock:
                if self._port is port:
                    self._port = None
                try:
                    port.close()
                except (serial.SerialException, OSError) as err:
                    log.debug("serial %s: close failed: %s", self._url, err)
        if error is None and not self._stopping.is_set():
            error = "write failed"  # the writer dropped the port and has logged why
        if error is not None:
            message = f"serial {self._url}: port lost ({error}); reopening"
            self._set_connected(False, message)
            log.warning("%s", message)
        else:
            self._set_connected(False)

    def _pump(self, port: serial.SerialBase) -> str | None:
        """Read lines until the port fails (returns why), the writer drops it or we close."""
        lines = LineSplitter(self._max_line)  # a new port starts clean: a torn line is gone
        while not self._stopping.is_set() and self._serving(port):
            try:
                chunk = port.read(min(port.in_waiting, _READ_CHUNK) or 1)
            except (serial.SerialException, OSError) as err:
                return str(err)
            if not chunk:
                continue  # read timeout: look at the stop flag again
            at = self._clock()  # arrival, before any parsing delays it
            handled = False
            for line in lines.feed(chunk):
                self._take(line, at)
                handled = True
            if handled and self._on_input is not None:
                self._on_input()
        return None

    def _serving(self, port: serial.SerialBase) -> bool:
        return self._port is port  # None once the writer dropped it

    def _take(self, line: bytes | LineTooLong, at: Nanos) -> None:
        number = self._bump("lines_in")
        where = f"serial {self._url} line {number}"
        try:
            if isinstance(line, LineTooLong):
                raise CommandError(f"longer than {self._max_line} bytes; dropped up to its "
                                   "newline")
            command = parse_line(line, at)
        except CommandError as err:
            self._refuse(f"{where}: {err}")
            return
        except Exception:  # a bug in parsing must not kill the link; say so loudly
            log.exception("%s: unexpected error", where)
            self._refuse(f"{where}: unexpected error (see log)")
            return
        if command is not None:
            self._inbox.append(command)
            self._bump("commands_in")

    def _refuse(self, message: str) -> None:
        self._bump("bad_lines", message)
        log.warning("%s", message)

    # -- the writer thread ------------------------------------------------------------------

    def _run_writer(self) -> None:
        sent = _Sent()
        while True:
            closing = self._closing.is_set()  # before the write: a last pass after close()
            self._wake.clear()  # before looking, so a ring during the write is not lost
            try:
                timeout = self._write_due(sent)
            except Exception:  # a surprise must not end the link: log it, wait for news
                log.exception("serial %s: unexpected error in the writer", self._url)
                timeout = None
            if closing:
                return
            self._wake.wait(timeout)

    def _write_due(self, sent: _Sent) -> float | None:
        """Write the latest state if it is new, the port is new or a re-send is due.

        Returns the seconds until the next re-send, or None to sleep until woken.
        """
        with self._slot_lock:
            latest = self._latest
        if latest is None:
            return None
        line, running = latest
        with self._port_lock:
            port = self._port
            if port is None:
                return None  # the reader rings when a port is open
            now = self._clock()
            new_port = port is not sent.port
            if line != sent.line or new_port or (running and now - sent.at >= self._resend_ns):
                # After a reconnect, a newline first ends any half line the receiver kept
                # from before the loss, so our first full line is not glued to it.
                data = b"\n" + line if new_port and sent.port is not None else line
                try:
                    port.write(data)
                except (serial.SerialException, OSError) as err:
                    self._port = None  # the reader sees this, closes the port and reopens
                    sent.line, sent.port = None, port  # maybe half written: newline first
                    message = f"serial {self._url}: write failed ({err})"
                    self._set_connected(False, message)
                    log.warning("%s", message)
                    return None
                sent.line, sent.at, sent.port = line, now, port
                self._bump("lines_out")
        if not running:
            return None
        return max(0, sent.at + self._resend_ns - self._clock()) / NS_PER_S
