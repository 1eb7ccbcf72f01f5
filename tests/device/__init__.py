"""The virtual Pi: the hall board installed, cold-booted and played on an emulated machine.

A Debian 12 root made with debootstrap, with the checkout installed by its own ``install.sh``
(as a Pi owner would), is booted under qemu with a DRM display, a gpio-sim GPIO chip wired
as the console's pins, and a sound card captured to a wav file; a guest agent presses the
buttons through the GPIO character device's simulator and the host checks what the board did.
``python -m tests.device --help`` runs it; docs/developer.md, "The virtual Pi", explains it.
"""
