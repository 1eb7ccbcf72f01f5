"""The emulated machines: what differs between the amd64 and the arm64 virtual Pi."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Arch:
    """One architecture's root, kernel and qemu machine."""

    name: str
    debian: str  # debootstrap's --arch
    kernel_package: str
    qemu: str
    machine: tuple[str, ...]  # -machine/-cpu and the devices that differ
    console: str  # the kernel's serial console
    display: tuple[str, ...]  # the DRM device


# No usable KVM on the machines this runs on (software virtualisation only): TCG, two
# vCPUs on their own host threads.
AMD64 = Arch(
    name="amd64", debian="amd64", kernel_package="linux-image-amd64",
    qemu="qemu-system-x86_64",
    machine=("-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max"),
    console="ttyS0",
    # virtio-gpu: a DRM/KMS device with no GL of its own, so SDL's KMSDRM renders through
    # Mesa's software GL (llvmpipe), as a hall PC without a GPU driver would. A 720p screen:
    # each frame goes through software GL on an emulated CPU, and at 1920x1080 one costs
    # about 7 s there (bench/render.py in the guest); at 1280x720 less than half of that.
    display=("-vga", "none", "-device", "virtio-gpu-pci,xres=1280,yres=720"),
)

ARCHES = {a.name: a for a in (AMD64,)}
