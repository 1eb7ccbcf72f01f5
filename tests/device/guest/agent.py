"""The virtual Pi's agent: runs inside the guest, as root, from the host's share of the checkout.

Standard library only (it runs on the guest's own Python, beside the board, not in its venv).
The phase comes from the kernel command line:

- ``arena.vpi=update``: the hall updates itself to the checkout with no network at all (the
  guest has no network card): ``install.sh`` from the share, as a technician runs it after a
  ``git pull``; then power off.
- ``arena.vpi=check``: after a cold boot, the board is checked as a timekeeper and a
  technician would: the unit came up by itself, its first frame, the buttons through the GPIO
  simulator at their edge times, the horn relay line and the audio horn, the picture on the
  screen (the host takes the screendump when asked), a SIGKILL under systemd; then power off.

Everything goes to the host as JSON lines on the virtio serial port ``arena.ctl``; the host
answers the requests (a screendump) on the same port.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CTL = Path("/dev/virtio-ports/arena.ctl")
SRC = Path("/mnt/src")
OUT = Path("/mnt/out")
UNIT = "scoreboard.service"
STATE = Path("/run/scoreboard/state.json")
CONFIG = Path("/etc/scoreboard/scoreboard.toml")
VENV = Path("/opt/arena/.venv")
SIM = Path("/sys/kernel/config/gpio-sim/arena")
# The console's default pins (hardware/console.toml): BCM numbers, the sim chip's offsets.
START_STOP, HORN_BUTTON, HORN_RELAY = 17, 27, 26
BENCH_CAP_S = 420
HORN_HOLD_S = 8.0
PAIR = re.compile(r'([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|\S+)')


def now() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class Host:
    """The serial port to the host: JSON lines both ways."""

    def __init__(self, path: Path = CTL) -> None:
        for _ in range(300):
            if path.exists():
                break
            time.sleep(0.1)
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.buffer = b""

    def send(self, **message: Any) -> None:
        os.write(self.fd, (json.dumps(message) + "\n").encode())

    def ask(self, **message: Any) -> dict[str, Any]:
        self.send(**message)
        while b"\n" not in self.buffer:
            self.buffer += os.read(self.fd, 4096)
        line, _, self.buffer = self.buffer.partition(b"\n")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def note(self, text: str) -> None:
        self.send(note=text)


def run(*argv: str, timeout: float = 60, env: dict[str, str] | None = None,
        check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=check,
                          env={**os.environ, **(env or {})})


# --- the journal --------------------------------------------------------------------------


def journal(unit: str = UNIT) -> Iterator[tuple[float, dict[str, str]]]:
    """(monotonic seconds, key=value fields) of each line the unit logged this boot."""
    # A read of the whole boot's journal: over a minute on an emulated arm64 CPU whose host
    # is busy (the callers' own deadlines say how long to wait for a line).
    done = run("journalctl", "-b", "-u", unit, "-o", "json", "--no-pager", timeout=300)
    for line in done.stdout.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("MESSAGE")
        if not isinstance(message, str):
            continue
        fields = {k: (v[1:-1] if v.startswith('"') else v) for k, v in PAIR.findall(message)}
        fields.setdefault("text", message)
        yield int(entry["__MONOTONIC_TIMESTAMP"]) / 1e6, fields


def wait_log(match: dict[str, str], *, after: float = 0.0, timeout: float = 60
             ) -> tuple[float, dict[str, str]] | None:
    """The first line at or after ``after`` whose fields include ``match``."""
    deadline = now() + timeout
    while now() < deadline:
        for at, fields in journal():
            if at >= after and all(fields.get(k) == v for k, v in match.items()):
                return at, fields
        time.sleep(0.25)
    return None


def unit_show(*props: str) -> dict[str, str]:
    done = run("systemctl", "show", UNIT, "-p", ",".join(props))
    return dict(line.partition("=")[::2] for line in done.stdout.splitlines())


def wait_ready(restarts: int, timeout: float) -> float | None:
    """Monotonic time by which the unit was active (READY sent) after ``restarts``."""
    deadline = now() + timeout
    while now() < deadline:
        show = unit_show("ActiveState", "SubState", "NRestarts")
        if show.get("ActiveState") == "active" and int(show.get("NRestarts", "0")) >= restarts:
            return now()
        time.sleep(0.1)
    return None


# --- the GPIO simulator ---------------------------------------------------------------------


class Header:
    """The sim chip's lines: pull an input (a button) or read an output (the relay)."""

    def __init__(self) -> None:
        dev = (SIM / "dev_name").read_text().strip()
        chip = (SIM / "bank0" / "chip_name").read_text().strip()
        self.base = Path("/sys/devices/platform") / dev / chip
        self.written = 0.0

    def press(self, line: int) -> float:
        """Pull the line low, as a button to ground does; the time just before."""
        at = now()
        (self.base / f"sim_gpio{line}" / "pull").write_text("pull-down")
        self.written = now()  # the edge lies between the two (a starved agent: far apart)
        return at

    def release(self, line: int) -> float:
        at = now()
        (self.base / f"sim_gpio{line}" / "pull").write_text("pull-up")
        return at

    def value(self, line: int) -> int:
        return int((self.base / f"sim_gpio{line}" / "value").read_text())


def command_at(name: str, after: float, **fields: str) -> float | None:
    """The edge time the board stamped on its ``name`` command (``at=``, seconds)."""
    found = wait_log({"msg": "command applied", "do": name, **fields}, after=after - 1,
                     timeout=30)
    if found is None:
        return None
    return float(found[1]["at"])


def read_state() -> dict[str, Any] | None:
    try:
        doc: dict[str, Any] = json.loads(STATE.read_text())
    except (OSError, ValueError):
        return None
    return doc


# --- the phases ------------------------------------------------------------------------------


def update(host: Host) -> dict[str, Any]:
    started = now()
    done = run("/bin/bash", str(SRC / "install.sh"), timeout=1800)
    took = now() - started
    out = (done.stdout + done.stderr).strip().splitlines()
    (OUT / "update.log").write_text(done.stdout + done.stderr)
    return {"rc": done.returncode, "seconds": round(took, 1), "tail": out[-12:],
            "network": run("ip", "-o", "link").stdout.count("link/ether")}


class Told(dict[str, Any]):
    """The results, each sent to the host as soon as it is known: a boot that runs out of
    time still reports everything measured before."""

    def __init__(self, host: Host) -> None:
        super().__init__()
        self.host = host

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.host.send(part=key, value=value)


def check(host: Host) -> dict[str, Any]:
    r = Told(host)
    ready = wait_ready(0, timeout=300)
    show = unit_show("ActiveState", "NRestarts", "StatusText", "UnitFileState")
    r["unit"] = {"ready_mono": ready, **show}
    first = wait_log({"msg": "first frame"}, timeout=5)
    r["first_frame"] = {"mono": first[0], **first[1]} if first else None
    started_line = wait_log({"msg": "display"}, timeout=1)
    r["display_line"] = started_line[1] if started_line else None
    r["framebuffer"] = [f for _, f in journal() if "framebuffer" in f.get("text", "")][:3]

    # The audio horn: opened at boot, or as soon as the sound card is there.
    audio = wait_log({"msg": "audio horn on"}, timeout=90)
    r["audio"] = {"on_mono": audio[0] if audio else None, **(audio[1] if audio else {}),
                  "off_lines": [f["text"] for _, f in journal() if "audio horn off" in
                                f.get("text", "")][:3]}
    # The operator view follows the horn's status (it may show "opening" a moment longer).
    view: dict[str, Any] = {}
    for _ in range(40):
        try:
            with urllib.request.urlopen("http://127.0.0.1:8080/operator.json",
                                        timeout=10) as page:
                view = json.loads(page.read())
        except (OSError, ValueError) as err:
            view = {"error": str(err)}
        if (view.get("audio") or {}).get("state") == "on":
            break
        time.sleep(0.5)
    r["operator"] = view

    chips = sorted(Path("/dev").glob("gpiochip*"))
    r["gpiochips"] = [f"{c.name} {c.stat().st_mode & 0o777:o} {c.group()}" for c in chips]
    # The picture: the state document before and after the screendump must be the same one.
    time.sleep(2)  # let the frame that drew the last state reach the screen
    before = read_state()
    host.ask(ask="screendump", name="screen.png")
    after = read_state()
    # The same state, whatever instant each frame was computed for (at_ns).
    r["picture"] = {"same_state": before is not None and after is not None
                    and {k: v for k, v in before.items() if k != "at_ns"}
                    == {k: v for k, v in after.items() if k != "at_ns"}}
    if before is not None:
        (OUT / "state.json").write_text(json.dumps(before))
        size = (r["first_frame"] or {}).get("size", "1920x1080")
        between = STATE.with_name(STATE.stem + ".between.json")
        extra: list[str] = []
        if between.exists():
            shutil.copy(between, OUT / "between.json")
            extra = ["--between", str(OUT / "between.json")]
        snap = run(str(VENV / "bin" / "scoreboard"), "snapshot", "--state", str(OUT / "state.json"),
                   *extra, "--size", size, "--out", str(OUT / "snapshot.png"), timeout=120,
                   env={"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
        r["picture"]["snapshot_rc"] = snap.returncode
        r["picture"]["snapshot_err"] = snap.stderr[-500:]

    # START, the horn held 2 s, SIGKILL while running, STOP.
    header = Header()
    pressed = header.press(START_STOP)
    time.sleep(0.15)
    header.release(START_STOP)
    start_at = command_at("start", pressed)
    r["start"] = {"pressed": pressed, "written": header.written, "at": start_at}
    time.sleep(1.0)
    relay: list[tuple[float, int]] = []
    horn_down = header.press(HORN_BUTTON)
    horn_up = 0.0
    last = header.value(HORN_RELAY)
    relay.append((now(), last))
    # Held long enough that a board applying presses seconds late (an emulated CPU drawing
    # through software GL) still takes the press and the release in separate passes; then
    # watched until the relay has fallen (or 40 s; the figures say how late each came).
    while now() < horn_down + 40.0 and not (horn_up and last == 0 and len(relay) > 2):
        if horn_up == 0.0 and now() >= horn_down + HORN_HOLD_S:
            horn_up = header.release(HORN_BUTTON)
        value = header.value(HORN_RELAY)
        if value != last:
            relay.append((now(), value))
            last = value
        time.sleep(0.001)
    horn_on = wait_log({"msg": "command applied", "do": "horn", "on": "true"},
                       after=horn_down - 1, timeout=30)
    horn_off = wait_log({"msg": "command applied", "do": "horn", "on": "false"},
                        after=horn_down - 1, timeout=30)
    r["horn"] = {"pressed": horn_down, "released": horn_up, "relay": relay,
                 "on_at": float(horn_on[1]["at"]) if horn_on else None,
                 "off_at": float(horn_off[1]["at"]) if horn_off else None,
                 # when the board's loop applied them (the journal's stamp of its line)
                 "on_applied": horn_on[0] if horn_on else None,
                 "off_applied": horn_off[0] if horn_off else None}
    time.sleep(1.0)
    killed = now()
    run("systemctl", "kill", "-s", "KILL", UNIT)
    back = wait_ready(1, timeout=120)
    resumed = wait_log({"msg": "resumed in the same boot"}, after=killed, timeout=10)
    r["kill"] = {"killed": killed, "ready_again": back, "resumed": resumed[1] if resumed else None,
                 "stop_post": [f["text"] for at, f in journal() if at >= killed
                               and "horn relay" in f.get("text", "")][:2],
                 **unit_show("NRestarts", "ActiveState")}
    time.sleep(1.0)
    pressed = header.press(START_STOP)
    time.sleep(0.15)
    header.release(START_STOP)
    written = header.written
    stop_at = command_at("stop", pressed)
    doc = None
    for _ in range(100):
        doc = read_state()
        if doc is not None and doc.get("running") is False:
            break
        time.sleep(0.1)
    r["stop"] = {"pressed": pressed, "written": written, "at": stop_at,
                 "clock_ms": doc.get("clock_ms") if doc else None,
                 "preset": doc.get("preset") if doc else None}

    # The frame cost on this machine's display path, with the board stopped (it holds the
    # screen: KMSDRM has one master).
    run("systemctl", "stop", UNIT, timeout=60)
    # Few frames and short phases: on an emulated CPU a full frame through software GL takes
    # a good part of a second. Capped: what it printed by then is kept.
    with (OUT / "render.txt").open("w") as printed:
        bench = subprocess.Popen(
            [str(VENV / "bin" / "python"), "/opt/arena/bench/render.py", "--driver", "kmsdrm",
             "--seconds", "2", "--frames", "5"], stdout=printed, stderr=subprocess.STDOUT,
            env={**os.environ, "SDL_VIDEODRIVER": "kmsdrm", "SDL_AUDIODRIVER": "dummy",
                 "PYTHONUNBUFFERED": "1"})
        try:
            r["bench_rc"] = bench.wait(timeout=BENCH_CAP_S)
        except subprocess.TimeoutExpired:
            bench.kill()
            bench.wait()
            r["bench_rc"] = f"stopped after {BENCH_CAP_S} s"
    return dict(r)


def main() -> int:
    host = Host()
    cmdline = Path("/proc/cmdline").read_text()
    phase = next((w.split("=", 1)[1] for w in cmdline.split() if w.startswith("arena.vpi=")), "")
    host.send(hello=phase, mono=now())
    try:
        result = update(host) if phase == "update" else check(host)
    except Exception as err:  # the host must hear of any failure at all
        import traceback  # noqa: PLC0415

        host.send(error=f"{type(err).__name__}: {err}", trace=traceback.format_exc())
        result = {}
    host.send(result=result, mono=now())
    shutil.copy("/proc/cmdline", OUT / f"cmdline-{phase}.txt")
    subprocess.run(["journalctl", "-b", "--no-pager", "-o", "short-monotonic"],
                   stdout=(OUT / f"journal-{phase}.txt").open("w"), check=False)
    run("sync")
    subprocess.run(["systemctl", "poweroff"], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
