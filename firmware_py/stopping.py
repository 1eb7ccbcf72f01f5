"""Stopping the hall daemon in order (SIGTERM, SIGINT, the window closed,
``--exit-when-done``): STOPPING=1, inputs closed, horn off, the last state and ``offline``
published, journal closed, operator view and display closed. Each step runs even if an
earlier one failed: a board that stops must at least leave its horn off."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from firmware_py.logfmt import kv
from firmware_py.outputs import write_state_file

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon

log = logging.getLogger("firmware_py.daemon")


def stop_in_order(daemon: Daemon) -> None:
    """Stop ``daemon``'s parts in order, whatever ``start()`` got to set up."""
    reason = daemon.stopping or "error"
    daemon.notifier.stopping()
    kv(log, logging.INFO, "stopping", reason=reason)
    steps: list[tuple[str, Callable[[Daemon], None]]] = [
        ("inputs", _close_inputs),
        ("horn", _horn_off),
        ("publish", _publish_last),
        ("journal", _close_journal),
        ("operator view", lambda d: d.screen.close_operator_view()),
        ("display", _close_display),
    ]
    for name, step in steps:
        try:
            step(daemon)
        except Exception:
            log.exception("while stopping", extra={"kv": {"step": name}})
    daemon.notifier.close()
    daemon.lock.release()
    kv(log, logging.INFO, "stopped", reason=reason)


def _close_inputs(daemon: Daemon) -> None:
    if daemon.keys is not None:
        daemon.keys.close()
    if daemon.console is not None:
        daemon.console.close()


def _horn_off(daemon: Daemon) -> None:
    if daemon.horn is not None:
        daemon.horn.stop()
    if daemon.relay is not None:
        daemon.relay.close()
        kv(log, logging.INFO, "horn relay off", pin=daemon.relay.pin)


def _publish_last(daemon: Daemon) -> None:
    doc, now = None, None
    if daemon.session is not None and daemon.console is not None:
        now = daemon.timeline.now()
        doc = daemon.document(now)
        write_state_file(daemon.options.state_file, doc, now)
    if daemon.serial is not None:
        if doc is not None:
            daemon.serial.send_state(doc)
        daemon.serial.close()
    # With its anchor, as every state on the wire: a second board keeps the clock from it.
    daemon.office.close(None if doc is None or now is None
                        else {**doc, "anchor": daemon.screen.anchor(now)})


def _close_journal(daemon: Daemon) -> None:
    if daemon.script is not None:
        daemon.script.close()
    daemon.storage.close()


def _close_display(daemon: Daemon) -> None:
    daemon.frame_log.close()
    if daemon.screen.display is not None:
        daemon.screen.display.close()
    if daemon.pins is not None:
        with contextlib.suppress(Exception):
            daemon.pins.close()
