#!/usr/bin/env bash
# Arena Scoreboard quick start: set everything up on a fresh Debian / Raspberry Pi OS machine
# (a virtual environment in .venv with the project and its dev tools), then run one thing.
#
#   ./quickstart.sh demo [ARGS]   the scoreboard's demo (see `arena-demo --help`)
#   ./quickstart.sh test [ARGS]   the whole test suite (pytest ARGS), style and type checks included
#   ./quickstart.sh shell         a shell with the virtual environment active
#   ./quickstart.sh device [ARGS] the virtual Pi: install, cold-boot and check the board under
#                                 qemu (root; see `python -m tests.device --help`)
#
# Safe to run again: it installs only what is missing or changed.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${ARENA_VENV:-.venv}

say() { printf 'quickstart: %s\n' "$*" >&2; }

# --- Another apt or dpkg run (the same text in quickstart.sh and install.sh) ---------------
# A fresh Raspberry Pi OS runs unattended-upgrades soon after its first boot, and apt-get
# fails at once while that holds dpkg's or apt's lock. apt_get waits for them instead, up to
# ARENA_APT_WAIT_S seconds (default 600), and says so. fuser (Debian's psmisc) sees who holds
# a lock file open; apt-get's own DPkg::Lock::Timeout then covers a run that starts after the
# look (it waits for dpkg's lock only, not for the package lists' lock of `apt-get update`,
# hence the look first). Without fuser, apt-get's timeout alone. APT_SUDO: how to run as root.
APT_LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock
           /var/cache/apt/archives/lock)
APT_SUDO=()
apt_locked() {  # one of APT_LOCKS is open in another process
    local lock
    command -v fuser >/dev/null || return 1
    for lock in "${APT_LOCKS[@]}"; do
        if "${APT_SUDO[@]}" fuser -s "$lock" 2>/dev/null; then return 0; fi
    done
    return 1
}
apt_get() {  # apt_get ARGS...: apt-get ARGS once no other apt or dpkg run holds the locks
    local bound=${ARENA_APT_WAIT_S:-600} step=5 waited=0
    if apt_locked; then
        say "waiting for another apt/dpkg run (unattended-upgrades?) to finish: up to $bound s"
        while apt_locked; do
            if [ "$waited" -ge "$bound" ]; then
                say "another apt/dpkg run still holds the lock after $bound s (see: ps -C apt,apt-get,dpkg,unattended-upgr); run this again when it is done"
                return 1
            fi
            sleep "$step"
            waited=$((waited + step))
        done
        say "the other apt/dpkg run is done (waited $waited s)"
    fi
    # env: sudo would drop DEBIAN_FRONTEND from the environment (no questions: unattended).
    "${APT_SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get -o DPkg::Lock::Timeout="$((bound > waited ? bound - waited : 1))" "$@"
}
apt_install() {
    [ "$#" -gt 0 ] || return 0
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || { say "please install the Debian packages: $*"; exit 1; }
        APT_SUDO=(sudo)
    fi
    say "installing Debian packages: $*"
    apt_get update -qq
    apt_get install -y -qq "$@" >/dev/null
}

command -v python3 >/dev/null || apt_install python3
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { say "needs Python 3.11 or newer (Debian 12 / Raspberry Pi OS Bookworm have it)"; exit 1; }
# Debian splits venv/ensurepip into python3-venv; without it `python3 -m venv` fails.
python3 -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv

if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    # --system-site-packages: on a Pi, lgpio comes from Debian (python3-lgpio):
    # README "Dependency facts".
    python3 -m venv --system-site-packages "$VENV"
fi
stamp="$VENV/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    say "installing the project and its dev tools into $VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[dev]'
    rm -f "$VENV"/.installed-*
    touch "$stamp"
fi

what=${1:-}
[ "$#" -gt 0 ] && shift
# The demo starts a private mosquitto for the office when one is installed (it runs the
# halls without the office otherwise); install it here so the first demo shows everything.
if [ "$what" = demo ] && ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
    ( apt_install mosquitto ) || say "mosquitto could not be installed: the demo runs without the office"
fi
if [ "$what" = test ]; then
    need=()
    # The MQTT tests run a real mosquitto broker of their own on a free loopback port.
    command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
    # The office page is tested in a real headless browser (Debian's Chromium).
    command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
    # The systemd units are checked with systemd-analyze verify; install.sh with shellcheck.
    command -v systemd-analyze >/dev/null || need+=(systemd)
    command -v shellcheck >/dev/null || need+=(shellcheck)
    # The between screen's QR code is read back by ZBar, an independent decoder.
    command -v zbarimg >/dev/null || need+=(zbar-tools)
    # The printouts' PDF text is read with pdftotext (README "Printouts").
    command -v pdftotext >/dev/null || need+=(poppler-utils)
    apt_install "${need[@]}"
    # The spreadsheet exports are opened by LibreOffice headless: about 90 MB to fetch and
    # 280 MB installed without the recommended extras (the GUI, Java), which it never needs.
    command -v soffice >/dev/null || apt_install --no-install-recommends libreoffice-calc-nogui
fi
if [ "$what" = device ]; then
    need=()
    # The virtual Pi (docs/developer.md, "The virtual Pi"): qemu, its image tool, a fresh
    # Debian root, and an ext4 image made from a folder.
    command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
    command -v qemu-img >/dev/null || need+=(qemu-utils)
    command -v debootstrap >/dev/null || [ -x /usr/sbin/debootstrap ] || need+=(debootstrap)
    command -v mkfs.ext4 >/dev/null || [ -x /sbin/mkfs.ext4 ] || need+=(e2fsprogs)
    # An arm64 Pi: its qemu, and qemu-user through binfmt for the root's arm64 programs.
    for arg in "$@"; do
        if [ "$arg" = --arch=arm64 ] || { [ "${prev:-}" = --arch ] && [ "$arg" = arm64 ]; }; then
            command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
            command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
            command -v update-binfmts >/dev/null || [ -x /usr/sbin/update-binfmts ] || need+=(binfmt-support)
        fi
        prev=$arg
    done
    apt_install "${need[@]}"
fi
case "$what" in
    demo) exec "$VENV/bin/arena-demo" "$@" ;;
    test) exec "$VENV/bin/python" -m pytest "$@" ;;
    device)
        if [ "$(id -u)" = 0 ]; then exec "$VENV/bin/python" -m tests.device "$@"; fi
        exec sudo "$VENV/bin/python" -m tests.device "$@" ;;
    shell) say "virtual environment active; exit to leave"; PATH="$PWD/$VENV/bin:$PATH" exec "${SHELL:-bash}" ;;
    *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$what" ] || exit 2 ;;
esac
