"""One boot of the virtual Pi under qemu, and the host's side of the talk with its agent.

The machine: the cached disk behind the run's overlay (nothing a boot writes reaches the
cache), the kernel booted directly, a DRM display, a sound card captured to a wav file, the
checkout and a results folder shared over 9p, no network card (a hall without internet),
QMP for screendumps, and the agent's serial port.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .arches import Arch
from .image import Image


class BootError(RuntimeError):
    """The machine did not get through its phase; the message names what and its console."""


@dataclass
class Boot:
    """What one boot said: the agent's messages, the host times they arrived."""

    phase: str
    started: float  # host monotonic at qemu's start
    hello: tuple[float, float] | None = None  # (host time, guest monotonic) of the agent's hello
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    notes: list[str] = field(default_factory=list)
    ended: float = 0.0
    screendumps: list[Path] = field(default_factory=list)
    parts: dict[str, Any] = field(default_factory=dict)  # results as the agent sent them

    def host_time(self, guest_mono: float) -> float:
        """A guest monotonic instant on the host's clock, seconds after qemu started."""
        assert self.hello is not None
        host, guest = self.hello
        return host - self.started - (guest - guest_mono)


def command_line(arch: Arch, image: Image, run: Path, *, phase: str, src: Path, out: Path,
                 wav: Path) -> list[str]:
    overlay = disk_of(run)
    drive = f"file={overlay},format=qcow2,cache=unsafe"
    disk = (["-drive", f"{drive},if=none,id=root", "-device", f"{arch.disk_device},drive=root"]
            if arch.disk_device else ["-drive", f"{drive},if=virtio"])
    return [
        arch.qemu, *arch.machine, "-smp", "2", "-m", "2048", "-nodefaults", "-no-user-config",
        "-display", "none", *arch.display,
        "-kernel", str(image.kernel), "-initrd", str(image.initrd),
        "-append", f"root=/dev/vda rw console={arch.console} quiet loglevel=4 "
                   f"systemd.show_status=0 arena.vpi={phase}"
                   + "".join(f" {arg}" for arg in arch.kernel_args),
        *disk,
        "-nic", "none",
        "-audiodev", f"wav,id=horn,path={wav}",
        "-device", "intel-hda", "-device", "hda-output,audiodev=horn",
        "-virtfs", f"local,path={src},mount_tag=src,security_model=none,readonly=on",
        "-virtfs", f"local,path={out},mount_tag=out,security_model=none",
        "-device", "virtio-serial-pci",
        "-chardev", f"socket,id=ctl,path={run / 'ctl.sock'},server=on,wait=off",
        "-device", "virtserialport,chardev=ctl,name=arena.ctl",
        "-qmp", f"unix:{run / 'qmp.sock'},server=on,wait=off",
        "-serial", f"file:{run / (phase + '-console.log')}",
    ]


def disk_of(run: Path) -> Path:
    return run / "disk.qcow2"


def new_disk(image: Image, run: Path) -> Path:
    """The run's disk: an overlay on the cached image, the same for every boot of the run
    (the check boot runs what the update boot installed; the cache is never written)."""
    overlay = disk_of(run)
    overlay.unlink(missing_ok=True)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
                    str(image.disk), str(overlay)], check=True)
    return overlay


class Qmp:
    """QEMU's machine protocol: JSON commands on a unix socket."""

    def __init__(self, path: Path) -> None:
        self.sock = _connect(path)
        self.file = self.sock.makefile("rwb")
        self._read()  # the greeting
        self.execute("qmp_capabilities")

    def _read(self) -> dict[str, Any]:
        while True:
            line = self.file.readline()
            if not line:
                raise BootError("qemu closed its QMP socket")
            message: dict[str, Any] = json.loads(line)
            if "event" not in message:
                return message

    def execute(self, command: str, **arguments: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"execute": command}
        if arguments:
            body["arguments"] = arguments
        self.file.write(json.dumps(body).encode() + b"\n")
        self.file.flush()
        answer = self._read()
        if "error" in answer:
            raise BootError(f"QMP {command}: {answer['error']}")
        return answer


def _connect(path: Path, timeout: float = 30) -> socket.socket:
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(path))
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise BootError(f"qemu never opened {path.name}") from None
            time.sleep(0.05)


def boot(arch: Arch, image: Image, run: Path, *, phase: str, src: Path, out: Path,
         timeout: float, say: Callable[[str], None]) -> Boot:
    """Boot once in ``phase``; return when the guest powers off (or fail after ``timeout``)."""
    overlay = disk_of(run)
    if not overlay.exists():
        raise BootError(f"no disk for this run: new_disk({run}) first")
    for sock in ("ctl.sock", "qmp.sock"):
        (run / sock).unlink(missing_ok=True)
    wav = out / f"{phase}-audio.wav"
    argv = command_line(arch, image, run, phase=phase, src=src, out=out, wav=wav)
    (run / f"{phase}-qemu.txt").write_text(" ".join(argv) + "\n")
    record = Boot(phase=phase, started=time.monotonic())
    qemu = subprocess.Popen(argv, stdout=(run / f"{phase}-qemu.log").open("wb"),
                            stderr=subprocess.STDOUT)
    try:
        qmp = Qmp(run / "qmp.sock")
        ctl = _connect(run / "ctl.sock")
        ctl.settimeout(1.0)
        buffer = b""
        deadline = record.started + timeout
        while not record.result and not record.error:
            if time.monotonic() > deadline:
                if not record.parts:
                    raise BootError(f"{phase}: no result from the guest in {timeout:.0f} s "
                                    f"(console: {run / (phase + '-console.log')})")
                # What was measured stands; the rest is missing from the table.
                record.notes.append(f"timed out after {timeout:.0f} s")
                record.result = dict(record.parts)
                qmp.execute("quit")
                break
            if qemu.poll() is not None:
                raise BootError(f"{phase}: qemu exited ({qemu.returncode}) before the agent "
                                f"reported (see {run / (phase + '-qemu.log')})")
            try:
                chunk = ctl.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                continue
            buffer += chunk
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                _handle(json.loads(line), record, qmp, ctl, out=out, say=say)
        record.ended = time.monotonic()
        try:
            qemu.wait(timeout=120)
        except subprocess.TimeoutExpired:
            qmp.execute("quit")
            qemu.wait(timeout=30)
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
    return record


def _handle(message: dict[str, Any], record: Boot, qmp: Qmp, ctl: socket.socket, *,
            out: Path, say: Callable[[str], None]) -> None:
    if "hello" in message:
        record.hello = (time.monotonic(), float(message["mono"]))
        say(f"{record.phase}: the agent is up, {record.hello[0] - record.started:.1f} s after "
            "power-on")
    elif "note" in message:
        record.notes.append(str(message["note"]))
        say(f"{record.phase}: {message['note']}")
    elif message.get("ask") == "screendump":
        target = out / str(message["name"])
        qmp.execute("screendump", filename=str(target), format="png")
        record.screendumps.append(target)
        ctl.sendall(json.dumps({"ok": True, "file": target.name}).encode() + b"\n")
    elif "part" in message:
        record.parts[str(message["part"])] = message["value"]
    elif "error" in message:
        record.error = f"{message['error']}\n{message.get('trace', '')}"
    elif "result" in message:
        record.result = message["result"] or {"empty": True}


def clean_share(path: Path) -> None:
    """The results folder, emptied for a new run (the guest writes into it as root)."""
    path.mkdir(parents=True, exist_ok=True)
    for child in path.iterdir():
        if child.is_file() or child.is_symlink():
            child.unlink()
    os.chmod(path, 0o777)
