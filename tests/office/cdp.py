"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

No new dependency: Chromium reads commands from fd 3 and writes answers and events to fd 4,
each message one JSON object ended by a NUL byte. We only need a handful of methods (open a
tab, navigate, evaluate, screenshot), so a small synchronous client is enough.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
    "--remote-debugging-pipe",
)

# Puts the pipe ends on fds 3 and 4, then becomes Chromium (same pid, same process group).
# A helper program instead of preexec_fn: preexec_fn is unsafe once the test process has
# threads (the HTTP server), and pass_fds alone cannot choose the child's fd numbers.
_EXEC_ON_3_4 = (
    "import os, sys\n"
    "r, w = int(sys.argv[1]), int(sys.argv[2])\n"
    "os.dup2(r, 3); os.dup2(w, 4); os.close(r); os.close(w)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(RuntimeError):
    pass


class Chromium:
    """A headless Chromium we started, in its own process group, driven over the pipe."""

    def __init__(self, executable: str, *, width: int = 1920, height: int = 1080) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="office-cdp-")
        # Our ends of the pipes stay close-on-exec; the child's ends are moved above 4 so
        # the dup2 onto 3 and 4 in the helper can never clobber one of them.
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        child_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 5)
        child_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 5)
        os.close(to_child_r)
        os.close(from_child_w)
        args = [sys.executable, "-c", _EXEC_ON_3_4, str(child_r), str(child_w), executable,
                *FLAGS, f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}", "about:blank"]
        try:
            self.proc = subprocess.Popen(
                args, pass_fds=(child_r, child_w), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                # Its own process group: stop() kills Chromium's helpers (zygote, renderer,
                # GPU) too, and nothing else.
                start_new_session=True)
        finally:
            os.close(child_r)
            os.close(child_w)
        self._next_id = 0
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self._answers: dict[int, dict[str, Any]] = {}
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name="cdp-reader", daemon=True)
        self._reader.start()

    # -- transport --------------------------------------------------------------------

    def _read_loop(self) -> None:
        buf = b""
        try:
            while True:
                chunk = os.read(self._from_child, 1 << 16)
                if not chunk:
                    break
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    msg = json.loads(raw)
                    if "id" in msg:  # events (no id) are not needed by these tests
                        with self._cond:
                            self._answers[msg["id"]] = msg
                            self._cond.notify_all()
        except OSError:
            pass
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
        """Send one command and wait (bounded) for its answer; returns its ``result``."""
        with self._lock:
            self._next_id += 1
            msg_id = self._next_id
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session is not None:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self._answers:
                remaining = deadline - time.monotonic()
                if self._closed:
                    raise CdpError(f"chromium closed the pipe during {method}")
                if remaining <= 0:
                    raise CdpError(f"no answer to {method} within {timeout} s")
                self._cond.wait(remaining)
            answer = self._answers.pop(msg_id)
        if "error" in answer:
            raise CdpError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    # -- a tab ------------------------------------------------------------------------

    def open_tab(self, url: str) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, target, session)
        tab.send("Page.enable")
        tab.send("Runtime.enable")
        tab.send("Page.navigate", {"url": url})
        # Page.navigate answers before the new document exists: wait until it does, so
        # the caller's first evaluate never runs against about:blank.
        tab.wait_for(f"location.href === {json.dumps(url)} && document.readyState !== 'loading'")
        return tab

    def close(self) -> None:
        """Ask Chromium to quit, then make sure its whole process group is gone."""
        with contextlib.suppress(CdpError, OSError):
            self.send("Browser.close", timeout=5.0)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5.0)
        # Helpers may outlive the browser process for a moment; the group is ours alone.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5.0)
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._reader.join(timeout=5.0)
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Tab:
    def __init__(self, browser: Chromium, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})

    def send(self, method: str, params: dict[str, Any] | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values only; a
        Promise is awaited)."""
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise CdpError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15.0) -> Any:
        """Poll ``expression`` until it is truthy (bounded); returns its value."""
        deadline = time.monotonic() + timeout
        value: Any = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            # Pace the polling inside the page (10 ms) rather than spin the CPU against it.
            self.evaluate("new Promise(r => setTimeout(r, 10))")
        raise AssertionError(f"{expression!r} still {value!r} after {timeout} s")

    def screenshot(self, path: Path, width: int = 1920, height: int = 1080) -> Path:
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def print_pdf(self, path: Path) -> Path:
        """Print the page to PDF as a person would (the print stylesheet, the page's own
        ``@page`` size and margins, no header or footer)."""
        data = self.send("Page.printToPDF", {"preferCSSPageSize": True,
                                             "displayHeaderFooter": False,
                                             "printBackground": False})["data"]
        path.write_bytes(base64.b64decode(data))
        return path
