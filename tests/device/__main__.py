"""``python -m tests.device``: the virtual Pi run (``./quickstart.sh device`` sets it up).

Builds the cached image if needed (debootstrap, ``install.sh`` in the fresh root), then boots
it twice under qemu: once to update the hall to this checkout with no network, once cold to
check the board. Prints a table; exits 1 if any check fails, 2 if the run could not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from . import checks
from .arches import ARCHES
from .image import ImageError, copy_checkout, ensure_image
from .machine import BootError, boot, clean_share, new_disk

DEFAULT_CACHE = Path(os.environ.get("ARENA_VPI_CACHE", "/var/cache/arena-virtual-pi"))


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m tests.device",
        description="Install, cold-boot and check the hall board on a virtual Pi (qemu). "
        "Needs root (debootstrap, chroot, mounts), qemu, debootstrap and e2fsprogs: "
        "./quickstart.sh device installs them.")
    p.add_argument("--arch", choices=sorted(ARCHES), default="amd64",
                   help="the emulated machine (default amd64)")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, metavar="DIR",
                   help=f"where images are kept between runs (default {DEFAULT_CACHE}, or "
                   "$ARENA_VPI_CACHE)")
    p.add_argument("--rebuild", action="store_true", help="build the image even if cached")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="keep the run's files here (screendump, snapshot, wav, journals, "
                   "consoles); default: a folder in the cache, replaced each run")
    p.add_argument("--timeout", type=float, default=1200, metavar="S",
                   help="give up on a boot after this long (default 1200 s)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    arch = ARCHES[args.arch]
    for tool in (arch.qemu, "qemu-img", "debootstrap", "mkfs.ext4", "chroot"):
        if shutil.which(tool) is None:
            print(f"virtual Pi: {tool} is missing (./quickstart.sh device installs it)",
                  file=sys.stderr)
            return 2
    if os.geteuid() != 0:
        print("virtual Pi: run it as root (debootstrap, chroot and mounts need it)",
              file=sys.stderr)
        return 2

    def say(text: str) -> None:
        print(f"virtual Pi: {text}", flush=True)

    started = time.monotonic()
    try:
        image, built = ensure_image(arch, args.cache, rebuild=args.rebuild, say=say)
    except ImageError as err:
        print(f"virtual Pi: the image could not be built: {err}", file=sys.stderr)
        return 2
    image_s = time.monotonic() - started
    say(f"image {'built' if built else 'reused'} in {image_s:.0f} s: {image.folder}")
    run = args.out or args.cache / arch.name / "last-run"
    if run.exists():
        shutil.rmtree(run)
    run.mkdir(parents=True)
    src, out = run / "src", run / "out"
    copy_checkout(Path(__file__).resolve().parent.parent.parent, src)
    clean_share(out)
    new_disk(image, run)
    boots = {}
    try:
        for phase in ("update", "check"):
            say(f"{phase}: booting")
            boots[phase] = boot(arch, image, run, phase=phase, src=src, out=out,
                                timeout=args.timeout, say=say)
            b = boots[phase]
            if b.error:
                raise BootError(f"{phase}: the agent failed: {b.error}")
            say(f"{phase}: done in {b.ended - b.started:.0f} s")
    except BootError as err:
        print(f"virtual Pi: {err}", file=sys.stderr)
        return 2
    (run / "result.json").write_text(json.dumps({p: b.result for p, b in boots.items()},
                                                indent=1))
    check = boots["check"]
    first = check.result.get("first_frame") or {}
    first_s = check.host_time(first["mono"]) if first.get("mono") and check.hello else None
    rows = checks.rows_for(boots["update"].result, check.result, first_frame_s=first_s, out=out)
    facts = image.facts()
    print()
    print(f"virtual Pi ({arch.name}, qemu TCG): image {'built' if built else 'cached'} "
          f"{image_s:.0f} s (first install {facts.get('first install (s)', '?')} s: "
          f"{facts.get('first install', '?')}), update boot "
          f"{boots['update'].ended - boots['update'].started:.0f} s, check boot "
          f"{check.ended - check.started:.0f} s, all {time.monotonic() - started:.0f} s")
    print(checks.table(rows))
    render = out / "render.txt"
    if render.exists():
        print()
        print("bench/render.py on the virtual Pi's display path:")
        print(render.read_text().rstrip())
    print(f"\nthe run's files: {run}")
    return 0 if all(r.ok is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
