"""The timekeeper's inputs: console buttons and keypad keys (the desktop keyboard stands in
for them in windowed mode; headless, USB keypads through evdev, each key at the kernel's edge
time), serial command lines and due replay-script lines, each applied through the Recorder at
its own edge time, and the outcome of a press told back to the timekeeper."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from arena.core.commands import Command, Next
from arena.core.entry import PickMatch
from arena.core.errors import Reason, because
from firmware_py.logfmt import kv
from firmware_py.loglines import seconds, seq_range
from firmware_py.script import ScriptLine
from firmware_py.session import CONFIRMING
from firmware_py.storage import WHILE_DAMAGED
from hardware import keymap

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon
    from firmware_py.parts import Console, Keyboard

log = logging.getLogger("firmware_py.daemon")

# The nap between looks at an input that cannot wake the loop itself (a window's keys, an
# open USB keypad): a press shows within ~10 ms. Serial lines and GPIO edges end a nap at
# once (their threads set the loop's wake event), so without those inputs a nap lasts up to
# NAP_NS: a stop signal and the office link's pump (acks, `next`) are taken within it. A
# nap is a sleep (arena/timesource.py sleep_until), never a spin.
SLICE_NS = 10_000_000
NAP_NS = 100_000_000
PRESSES = frozenset({"console", "serial"})  # sources whose outcome the timekeeper is shown


class Inputs:
    """Drains the inputs into the match, in the loop's thread."""

    def __init__(self, daemon: Daemon, wake: threading.Event) -> None:
        self._daemon = daemon
        self._wake = wake  # ends the loop's nap
        self._serial_input = False  # set by the serial reader's thread
        # Keypads lost and found in this turn, told after the presses (a held HORN's release
        # by the unplug is a press too, and its tick must not hide the loss).
        self._devices: list[keymap.DeviceChange] = []
        self._lost_one = False  # a keypad went in this run: its return is told as well

    def _console(self) -> tuple[Console, Keyboard]:
        console, keyboard = self._daemon.console, self._daemon.keyboard
        if console is None or keyboard is None:
            raise RuntimeError("the inputs are read after start()")
        return console, keyboard

    def serial_woke(self) -> None:
        # From the serial reader's thread: a plain flag for the loop, and its nap ended.
        self._serial_input = True
        self._wake.set()

    def nap_ns(self) -> int:
        """``SLICE_NS`` while an input must be looked at (a window's keys, an open USB
        keypad), else ``NAP_NS``: every other input wakes the loop itself."""
        keys = self._daemon.keys
        polled = (self._daemon.options.display_mode != "headless"
                  or (keys is not None and keys.watching()))
        return SLICE_NS if polled else NAP_NS

    def waiting(self) -> bool:
        console, keyboard = self._console()
        keys = self._daemon.keys
        return (console.pending() or self._serial_input or keyboard.pending()
                or (keys is not None and keys.pending()))

    def drain(self, now: int) -> None:
        """Everything that came in since the last turn, each at its own instant."""
        from display.keyboard import ButtonEdge, KeypadKey, QuitRequest  # noqa: PLC0415

        daemon = self._daemon
        console, keyboard = self._console()
        entry_before = console.entry()
        notice_before = daemon.feedback.current(now)
        for item in keyboard.poll():
            if isinstance(item, QuitRequest):
                daemon.request_stop("window closed")
            elif isinstance(item, ButtonEdge):
                console.button(item.action, now, item.active)
            elif isinstance(item, KeypadKey):
                console.key(item.name, now)
                daemon.dirty = True  # the operator line shows the entry
        self._usb_keys(console)
        # Through daemon._apply each time: a test or a bench wraps it to time applications.
        if daemon.script is not None:
            for line, command in daemon.script.due(now):
                daemon._apply(command, "script", line)
        if daemon.serial is not None:
            self._serial_input = False
            for command in daemon.serial.drain():
                daemon._apply(command, "serial")
        console.drain(now, daemon.match, lambda c: daemon.plan.pick(c) if isinstance(
            c, PickMatch) else daemon._apply(c, "console"))
        if console.entry() != entry_before:
            daemon.dirty = True
            if daemon.feedback.current(now) is notice_before:
                # Typing on (or cancelling) with no new outcome: the last one is old news,
                # and the operator line shows the entry instead.
                daemon.feedback.clear()
        self._tell_devices()

    def _tell_devices(self) -> None:
        """A keypad unplugged is shown on the table (``KEYPAD ✗ unplugged: plug it in
        again``), as its return is (``KEYPAD ✓``): the log alone reaches no timekeeper, and a
        dead keypad looks like presses being refused."""
        daemon = self._daemon
        changes, self._devices = self._devices, []
        for change in changes:
            at = daemon.timeline.from_real(change.at)
            if not change.plugged:
                self._lost_one = True
                reason = because("keypad_unplugged", "the USB keypad is gone: plug it in "
                                 "again", device=change.device)
                daemon.feedback.note("", reason, at, key="press.keypad")
                daemon.dirty = True
            elif self._lost_one:
                daemon.feedback.note("", None, at, key="press.keypad")
                daemon.dirty = True

    def _usb_keys(self, console: Console) -> None:
        """The USB keypad's keys, each at the kernel's stamp of its edge (real monotonic
        time) put on the match's timeline, never at the loop's ``now``."""
        daemon = self._daemon
        if daemon.keys is None:
            return
        items = daemon.keys.poll(daemon.time.monotonic_ns())
        self._devices += daemon.keys.changes()
        for item in items:
            at = daemon.timeline.from_real(item.at)
            if isinstance(item, keymap.ButtonEdge):
                if not console.button(item.action, at, item.active) and item.active:
                    kv(log, logging.DEBUG, "key without a button", action=item.action)
            else:
                console.key(item.name, at)
                daemon.dirty = True  # the operator line shows the entry

    def apply(self, command: Command, source: str, line: ScriptLine | None = None) -> None:
        """One command through the Recorder: journalled first, then it exists (and is
        logged: ``command applied`` / ``command refused``)."""
        daemon = self._daemon
        session = daemon.session_on_board()
        # A command's own "seq" (cancel, correct: the record it names) is logged as
        # "record", so it never clashes with the seq range of the events it made.
        fields: dict[str, object] = {"match": session.match_id, "do": command.name,
                                     **{("record" if k == "seq" else k): v
                                        for k, v in command.to_json().items() if k != "do"},
                                     "at": seconds(command.at), "source": source}
        if line is not None:
            fields["line"] = line.line
        if session.damaged:
            if command.name == Next.name:
                daemon.storage.damage_confirmed(command.at)
                self._told(command, source, None)
                return
            if command.name not in WHILE_DAMAGED:
                reason = because("journal_damaged", "the journal is damaged: hold NEXT to play "
                                 "on from what was read")
                kv(log, logging.WARNING, "command refused", **fields, reason=reason.text)
                self._told(command, source, reason)
                return
        fed = session.recorder.command(
            command, {"script": line.line} if line is not None else None)
        if line is not None and not fed.events and daemon.script is not None:
            try:
                daemon.script.played(line)
            except OSError as err:  # the same failing disk: the game goes on
                kv(log, logging.WARNING, "script progress not kept", line=line.line,
                   problem=str(err))
        self._told(command, source, None if fed.refused is None else fed.refused.why)
        if fed.refused is not None:
            kv(log, logging.WARNING, "command refused", **fields, reason=fed.refused.reason)
        else:
            applied = [e for e in fed.events if e.at >= command.at]
            kv(log, logging.INFO, "command applied", **fields,
               seq=seq_range(applied or fed.events))
            if command.name in CONFIRMING and session.restored:
                session.restored = False
                kv(log, logging.INFO, "clock confirmed by the timekeeper",
                   match=session.match_id)
        if fed.events:
            daemon.journalled()

    def _told(self, command: Command, source: str, refused: Reason | None) -> None:
        """The timekeeper sees what the press did in the next frame (docs/timekeeper.md, "The
        operator view"); a script line is no press."""
        if source not in PRESSES:
            return
        feedback = self._daemon.feedback
        # From when it is applied: a goal or penalty its timeout completed carries its
        # button's instant, seconds ago, and its answer would be over before it was shown.
        at = max(command.at, self._daemon.timeline.now())
        if refused is None:
            feedback.accepted(command, at)
        else:
            feedback.refused(command, refused, at)
        self._daemon.dirty = True
