"""The virtual Pi's disk: a fresh Debian 12 root with the board installed by ``install.sh``.

Built once and kept in the cache, keyed by what it is made of (this file, the guest files,
``install.sh`` and ``pyproject.toml``): a change to any of them builds a new one; a change to
the program alone reuses it, and the guest updates itself to the checkout with no network,
as a hall does after a ``git pull``.

The steps, in this order, because the order is what makes the install honest:
1. debootstrap: what a fresh Debian 12 has (systemd, udev, python3, a kernel), no compiler;
2. ``install.sh --no-start`` in the root, as root, with the package registries reachable:
   every hall dependency must come from a Debian package or a wheel. The root has no compiler,
   and pip's log is read afterwards: any dependency built from source fails the build;
3. only then what the emulated machine needs and a Pi has built in (the harness's shims): the
   gpio-sim kernel module (Debian's kernel lacks it) and lgpio (Raspberry Pi OS packages it;
   Debian does not), built with a compiler that is removed again; a Pi 4's board revision for
   gpiozero; the config a hall's technician writes (full screen, lgpio pins, the operator page);
4. ``mkfs.ext4 -d``: the tree becomes a raw ext4 image without mounting anything.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import tarfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .arches import Arch

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GUEST = HERE / "guest"
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
IMAGE_SIZE = "6G"
# What a fresh Debian 12 (or Raspberry Pi OS Lite) has before the board is installed: an init,
# udev, Python, certificates, ALSA's tools, 9p for the checkout. No compiler, no python3-pip.
BASE_PACKAGES = ("systemd-sysv", "udev", "kmod", "dbus", "python3", "ca-certificates",
                 "alsa-utils", "iproute2", "procps", "initramfs-tools", "sudo", "less")
# The shims' build tools, removed before the image is made.
BUILD_PACKAGES = ("linux-source-6.1", "xz-utils", "gcc", "make", "libc6-dev", "swig",
                  "python3-dev", "python3-setuptools", "python3-wheel")
LGPIO = "lgpio==0.2.2.0"
# Local certificate authorities of the machine that builds (a proxy's own, say): the root's
# apt and pip must trust what this machine trusts. Debian's standard place for them.
LOCAL_CAS = Path("/usr/local/share/ca-certificates")
# pip builds a wheel for anything it installs from source; the project itself is one.
BUILT_FROM_SOURCE = re.compile(r"Building wheel for (\S+)|Running setup\.py install for (\S+)")
OWN_PROJECT = "arena-scoreboard"


Say = Callable[[str], None]


class ImageError(RuntimeError):
    """A step of the build failed; the message says which and where its log is."""


@dataclass(frozen=True)
class Image:
    """A built disk and the kernel that boots it."""

    folder: Path

    @property
    def disk(self) -> Path:
        return self.folder / "root.img"

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.folder / "initrd.img"

    @property
    def report(self) -> Path:
        """The build's own facts (install time, what pip built), one ``key: value`` a line."""
        return self.folder / "build-report.txt"

    def facts(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.report.exists():
            for line in self.report.read_text().splitlines():
                key, _, value = line.partition(": ")
                out[key] = value
        return out


def cache_key(arch: Arch) -> str:
    """What the image is made of, hashed: the build's code, the guest's files, the installer
    and the project's dependencies (a change to the program alone reuses the image; so does
    one to the agent, which the guest runs from the host's share)."""
    h = hashlib.sha256(arch.name.encode())
    parts = [HERE / "image.py", HERE / "arches.py", *sorted((HERE / "shims").glob("*")),
             REPO / "install.sh", REPO / "pyproject.toml",
             *sorted(p for p in (GUEST / "files").rglob("*") if p.is_file()),
             *sorted(p for p in (REPO / "systemd").rglob("*") if p.is_file())]
    for p in parts:
        h.update(str(p.relative_to(REPO)).encode())
        h.update(p.read_bytes())
    h.update(" ".join(BASE_PACKAGES + BUILD_PACKAGES + (LGPIO, SUITE)).encode())
    return h.hexdigest()[:16]


def ensure_image(arch: Arch, cache: Path, *, rebuild: bool = False,
                 say: Say = print) -> tuple[Image, bool]:
    """The cached image for ``arch``, built first if missing: (image, built now)."""
    folder = cache / arch.name / cache_key(arch)
    image = Image(folder)
    if image.disk.exists() and not rebuild:
        return image, False
    if folder.exists():
        shutil.rmtree(folder)
    work = cache / arch.name / "work"
    if work.exists():
        _unmount_all(work)
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ensure_binfmt(arch)
    facts: dict[str, str] = {}
    started = time.monotonic()
    root = work / "root"
    base = base_tarball(arch, cache, work, say)
    say(f"image: unpacking the base root ({base.name})")
    root.mkdir()
    subprocess.run(["tar", "-xpf", str(base), "-C", str(root)], check=True)
    with chroot_mounts(root):
        facts.update(install_board(arch, root, work, say))
        facts.update(add_shims(arch, root, work, say))
    folder.mkdir(parents=True)
    say("image: making the ext4 disk")
    shutil.copy2(_newest(root / "boot", "vmlinuz-*"), image.kernel)
    shutil.copy2(_newest(root / "boot", "initrd.img-*"), image.initrd)
    _run(["mkfs.ext4", "-q", "-F", "-L", "arena-root", "-d", str(root), str(folder / "root.tmp"),
          IMAGE_SIZE], work / "mkfs.log")
    (folder / "root.tmp").rename(image.disk)
    facts["image build (s)"] = f"{time.monotonic() - started:.0f}"
    image.report.write_text("".join(f"{k}: {v}\n" for k, v in facts.items()))
    shutil.rmtree(work)
    for old in (cache / arch.name).iterdir():  # one image per arch is enough to keep
        if old.is_dir() and old != folder:
            shutil.rmtree(old, ignore_errors=True)
    return image, True


def base_tarball(arch: Arch, cache: Path, work: Path, say: Say) -> Path:
    """debootstrap's fresh Debian 12, kept as a tarball (the slowest step, a few minutes)."""
    name = hashlib.sha256(" ".join((arch.name, SUITE, *BASE_PACKAGES, arch.kernel_package,
                                    *arch.initrd_modules)).encode()).hexdigest()[:12]
    tarball = cache / arch.name / f"base-{name}.tar"
    if tarball.exists():
        return tarball
    say(f"image: debootstrap {SUITE} {arch.name} (a few minutes)")
    target = work / "debootstrap"
    started = time.monotonic()
    log = work / "debootstrap.log"
    # With a module list the kernel comes second: its initrd is packed once, already small.
    first = (arch.kernel_package,) if not arch.initrd_modules else ()
    _run(["debootstrap", "--variant=minbase", f"--arch={arch.debian}",
          "--include=" + ",".join((*BASE_PACKAGES, *first)),
          SUITE, str(target), MIRROR], log)
    if arch.initrd_modules:
        conf = target / "etc/initramfs-tools"
        (conf / "conf.d").mkdir(parents=True, exist_ok=True)
        (conf / "conf.d/arena-vpi.conf").write_text("MODULES=list\n")
        (conf / "modules").write_text("".join(f"{m}\n" for m in arch.initrd_modules))
        with chroot_mounts(target):
            _chroot(target, ["apt-get", "install", "-y", "-q", "--no-install-recommends",
                             arch.kernel_package], log,
                    env={"DEBIAN_FRONTEND": "noninteractive"})
        _chroot(target, ["apt-get", "clean"], log)
    say(f"image: debootstrap took {time.monotonic() - started:.0f} s")
    for old in tarball.parent.glob("base-*.tar"):
        old.unlink()
    with tarfile.open(tarball.with_suffix(".tmp"), "w") as tar:
        tar.add(target, arcname=".")
    tarball.with_suffix(".tmp").rename(tarball)
    shutil.rmtree(target)
    return tarball


def ensure_binfmt(arch: Arch) -> None:
    """A root of another architecture runs its programs (debootstrap's second stage, every
    chroot) through qemu-user: its binfmt_misc entry must be there and enabled. The entry
    qemu-user-static installs has the F flag: the emulator need not be copied into the root."""
    if arch.uname == platform.machine():
        return
    binfmt = Path("/proc/sys/fs/binfmt_misc")
    entry = binfmt / f"qemu-{arch.uname}"
    if not (binfmt / "register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(binfmt)], check=False)
    if not entry.exists() and shutil.which("update-binfmts"):
        subprocess.run(["update-binfmts", "--enable", f"qemu-{arch.uname}"], check=False)
    if not entry.exists() or "enabled" not in entry.read_text():
        raise ImageError(f"no enabled binfmt entry qemu-{arch.uname} for a {arch.name} root "
                         "(./quickstart.sh device --arch ARCH installs qemu-user-static)")


def install_board(arch: Arch, root: Path, work: Path, say: Say) -> dict[str, str]:
    """``install.sh`` from a copy of the checkout, in the root, as a Pi owner runs it."""
    assert not any((root / "usr/bin" / cc).exists() for cc in ("cc", "gcc")), \
        "the base root has a compiler: the install would not be checked"
    src = root / "root" / "arena-scoreboard"
    copy_checkout(REPO, src)
    # The image holds an older version than any checkout it will check: the update boot
    # then always has code of its own to install, with no network.
    with (src / "arena" / "__init__.py").open("a") as older:
        older.write("# (the virtual Pi's image: the version before the update)\n")
    say("image: install.sh in the fresh root (apt packages and wheels only)")
    started = time.monotonic()
    log = work / "install.log"
    env = {"PIP_LOG": "/root/pip-install.log", "PIP_CERT": "/etc/ssl/certs/ca-certificates.crt"}
    _chroot(root, ["/root/arena-scoreboard/install.sh", "--no-start"], log, env=env)
    took = time.monotonic() - started
    pip_log = root / "root" / "pip-install.log"
    built = sorted({m.group(1) or m.group(2) for m in BUILT_FROM_SOURCE.finditer(
        pip_log.read_text(errors="replace"))} - {OWN_PROJECT}) if pip_log.exists() else []
    if built:
        raise ImageError(f"install.sh built from source: {', '.join(built)} (see {log})")
    tail = log.read_text().strip().splitlines()[-20:]
    done = next((line for line in tail if line.startswith(("Done:", "Nothing to do"))), "")
    say(f"image: install.sh took {took:.0f} s: {done}")
    return {"first install (s)": f"{took:.0f}", "first install": done,
            "built from source": "nothing but the project itself"}


def add_shims(arch: Arch, root: Path, work: Path, say: Say) -> dict[str, str]:
    """What a Pi has and this emulated machine lacks, then the harness's own guest files."""
    kver = _newest(root / "boot", "vmlinuz-*").name.removeprefix("vmlinuz-")
    say(f"image: gpio-sim for {kver} and lgpio (build tools added, then removed)")
    started = time.monotonic()
    build = (*BUILD_PACKAGES, f"linux-headers-{kver}")
    # Removed again afterwards, but only what this step added: install.sh's own packages stay.
    added = [p for p in build if not _installed(root, p)]
    _chroot(root, ["apt-get", "install", "-y", "-q", "--no-install-recommends", *build],
            work / "build-tools.log", env={"DEBIAN_FRONTEND": "noninteractive"})
    shims = root / "root" / "shims"
    shutil.copytree(HERE / "shims", shims)
    _chroot(root, ["/root/shims/gpio-sim.sh", kver], work / "gpio-sim.log")
    # PyPI has lgpio as source only: PYPI=1 builds the C library into the extension (the
    # default links a system liblgpio, which Debian has not got).
    _chroot(root, ["/root/shims/lgpio.sh", LGPIO], work / "lgpio.log",
            env={"PIP_CERT": "/etc/ssl/certs/ca-certificates.crt", "PYPI": "1"})
    shutil.rmtree(shims)
    if added:
        _chroot(root, ["apt-get", "purge", "-y", "-q", "--autoremove", *added],
                work / "build-tools-purge.log", env={"DEBIAN_FRONTEND": "noninteractive"})
    _chroot(root, ["apt-get", "clean"], work / "apt-clean.log")
    took = time.monotonic() - started
    copy_guest_files(root, kver)
    configure_hall(root / "etc/scoreboard/scoreboard.toml")
    _chroot(root, ["systemctl", "enable", "arena-vpi-gpio.service", "arena-vpi-agent.service"],
            work / "enable.log")
    shutil.rmtree(root / "root" / "arena-scoreboard")
    return {"shims build (s)": f"{took:.0f}", "kernel": kver}


def _installed(root: Path, package: str) -> bool:
    done = subprocess.run(["chroot", str(root), "dpkg-query", "-W", "-f=${Status}", package],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() == "install ok installed"


def copy_guest_files(root: Path, kver: str) -> None:
    """The guest side: units, the gpio-sim setup, the Pi's board revision, the hall's config."""
    files = GUEST / "files"
    for src in sorted(files.rglob("*")):
        if src.is_file():
            dest = root / src.relative_to(files)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    for mount in ("mnt/src", "mnt/out"):
        (root / mount).mkdir(parents=True, exist_ok=True)
    (root / "etc/hostname").write_text("arena-vpi\n")


# What a hall's technician sets in the config install.sh wrote: "auto" decides by the Pi's
# device tree, which an emulated machine has not got; the operator page on its port (then
# the hall display carries no operator line, as in a hall with a phone or a second screen).
HALL_SETTINGS = (('mode = "auto"', 'mode = "fullscreen"'),
                 ('pin_factory = "auto"', 'pin_factory = "lgpio"'),
                 ("# port = 8080", "port = 8080"))


def configure_hall(config: Path) -> None:
    text = config.read_text()
    for old, new in HALL_SETTINGS:
        if text.count(old) != 1:
            raise ImageError(f"{config}: expected one line {old!r} to change, found "
                             f"{text.count(old)} (examples/scoreboard.toml changed?)")
        text = text.replace(old, new)
    config.write_text(text)


def copy_checkout(src: Path, dest: Path) -> None:
    """The checkout's files as ``git ls-files`` has them (tracked and new, not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=src, check=True, capture_output=True).stdout.split(b"\0")
    for name in filter(None, listed):
        path = src / os.fsdecode(name)
        if not path.is_file():
            continue  # deleted in the work tree
        target = dest / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


@contextmanager
def chroot_mounts(root: Path) -> Iterator[None]:
    """/proc, /sys, /dev of this machine in the root, its DNS and its local CAs."""
    mounted: list[Path] = []
    try:
        for what, args in (("proc", ["-t", "proc", "proc"]), ("sys", ["-t", "sysfs", "sys"]),
                           ("dev", ["--bind", "/dev"]), ("dev/pts", ["--bind", "/dev/pts"])):
            target = root / what
            target.mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", *args, str(target)], check=True)
            mounted.append(target)
        resolv = root / "etc/resolv.conf"
        if resolv.is_symlink() or resolv.exists():
            resolv.unlink()
        shutil.copy2("/etc/resolv.conf", resolv)
        if LOCAL_CAS.is_dir() and any(LOCAL_CAS.glob("*.crt")):
            dest = root / LOCAL_CAS.relative_to("/")
            dest.mkdir(parents=True, exist_ok=True)
            for crt in LOCAL_CAS.glob("*.crt"):
                shutil.copy2(crt, dest / crt.name)
            subprocess.run(["chroot", str(root), "update-ca-certificates"], check=True,
                           capture_output=True)
        # No service may start inside the build (Debian's policy-rc.d convention).
        policy = root / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
        yield
    finally:
        (root / "usr/sbin/policy-rc.d").unlink(missing_ok=True)
        for target in reversed(mounted):
            subprocess.run(["umount", "-l", str(target)], check=False)


def _unmount_all(work: Path) -> None:
    """A build that was interrupted may have left its mounts behind."""
    mounts = Path("/proc/mounts").read_text().splitlines()
    for line in reversed(mounts):
        point = line.split()[1]
        if point.startswith(str(work) + "/"):
            subprocess.run(["umount", "-l", point], check=False)


def _chroot(root: Path, argv: Sequence[str], log: Path, *,
            env: dict[str, str] | None = None) -> None:
    base = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": "/root", "LANG": "C.UTF-8"}
    _run(["chroot", str(root), *argv], log, env={**base, **(env or {})})


def _run(argv: Sequence[str], log: Path, *, env: dict[str, str] | None = None) -> None:
    with log.open("ab") as out:
        out.write(("$ " + " ".join(argv) + "\n").encode())
        out.flush()
        done = subprocess.run(list(argv), stdout=out, stderr=subprocess.STDOUT,
                              env=env if env is not None else None, check=False)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise ImageError(f"{' '.join(argv[:4])} ... failed (exit {done.returncode}); "
                         f"the end of {log}:\n{tail}")


def _newest(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if not found:
        raise ImageError(f"no {pattern} in {folder}")
    return found[-1]
