"""The emulated machines: what differs between the amd64 and the arm64 virtual Pi."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Arch:
    """One architecture's root, kernel and qemu machine."""

    name: str
    debian: str  # debootstrap's --arch
    uname: str  # `uname -m` of its programs: a root of another arch than this machine's
    #             runs them through qemu-user (binfmt entry qemu-UNAME)
    kernel_package: str
    qemu: str
    machine: tuple[str, ...]  # -machine/-cpu and the devices that differ
    console: str  # the kernel's serial console
    display: tuple[str, ...]  # the DRM device
    kernel_args: tuple[str, ...] = ()  # added to the kernel's command line
    # The root disk's device: "" is qemu's board default (-drive if=virtio); a machine
    # without one (arm64's virt) names its device (-drive if=none + -device).
    disk_device: str = ""
    # The initrd's modules (MODULES=list, set before the kernel is installed); () keeps
    # Debian's MODULES=most, which under qemu-user takes more than 15 minutes to pack.
    initrd_modules: tuple[str, ...] = ()


# No usable KVM on the machines this runs on (software virtualisation only): TCG, two
# vCPUs on their own host threads.
AMD64 = Arch(
    name="amd64", debian="amd64", uname="x86_64", kernel_package="linux-image-amd64",
    qemu="qemu-system-x86_64",
    machine=("-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max"),
    console="ttyS0",
    # virtio-gpu: a DRM/KMS device with no GL of its own, so SDL's KMSDRM renders through
    # Mesa's software GL (llvmpipe), as a hall PC without a GPU driver would. A 720p screen:
    # each frame goes through software GL on an emulated CPU, and at 1920x1080 one costs
    # about 7 s there (bench/render.py in the guest); at 1280x720 less than half of that.
    display=("-vga", "none", "-device", "virtio-gpu-pci,xres=1280,yres=720"),
)

# A Pi's architecture on qemu's generic arm64 board. pauth-impdef: with -cpu max, TCG
# otherwise emulates the architected pointer-authentication hash (QARMA), which is slow.
ARM64 = Arch(
    name="arm64", debian="arm64", uname="aarch64", kernel_package="linux-image-arm64",
    qemu="qemu-system-aarch64",
    machine=("-machine", "virt", "-accel", "tcg,thread=multi", "-cpu", "max,pauth-impdef=on"),
    console="ttyAMA0",
    display=("-device", "virtio-gpu-pci,xres=1920,yres=1080"),
    # The virt board's PL061 GPIO (it carries only the power button) would take gpiochip0;
    # kept off, gpio-sim is chip 0, where gpiozero's lgpio factory opens a Pi 4's header.
    # (QMP system_powerdown then no longer reaches the guest: it powers itself off.)
    kernel_args=("initcall_blacklist=pl061_gpio_driver_init",),
    disk_device="virtio-blk-pci",
    # Debian's arm64 kernel has these as modules; 9p and virtio-serial load later, from the root.
    initrd_modules=("virtio_pci", "virtio_blk", "ext4"),
)

ARCHES = {a.name: a for a in (AMD64, ARM64)}
