#!/usr/bin/env bash
# Install Arena Scoreboard as a service on Raspberry Pi OS / Debian 12 (Bookworm).
#
#   sudo ./install.sh            a hall: the scoreboard daemon (clock, horn, display)
#   sudo ./install.sh --office   the office machine: mosquitto and the standings service
#   sudo ./install.sh --venue NAME --event-broker HOST[:PORT] --halls HALL,HALL...
#                                a venue's broker, bridged to the event's (docs/technician.md, "Several
#                                venues"): only mosquitto, no program
#
# Options:
#   --office       install the office (broker + `office serve`) instead of a hall
#   --venue NAME   install a venue broker: its halls log in here (the event broker's
#                  configuration and ACL, one user and a generated password each), and a
#                  bridge carries their topics to the event broker as the user NAME; prints
#                  the user and ACL lines to add at the event broker (also written to
#                  /etc/arena/event-side/NAME.acl). NAME: letters, digits, '_', '.', '-'
#   --event-broker HOST[:PORT]
#                  the event broker the venue bridges to (port default 1883); --venue only
#   --halls LIST   the venue's hall ids, comma-separated (hall-1,hall-2); --venue only
#   --prefix DIR   where the program goes (default /opt/arena; a venv in DIR/.venv)
#   --no-start     install and enable the service, but do not start it now
#   --dry-run      print every action, change nothing
#   --root DIR     install the files under DIR instead of / (for tests and image builds):
#                  system paths are prefixed with DIR, and what would change the machine
#                  itself (apt-get, users, chown, the venv, systemctl) is printed, not run
#   -h, --help     this help
#
# Safe to run again: it changes only what is missing or out of date, says what it changed,
# and says so when there was nothing to do. It never overwrites a configuration file that
# exists (/etc/scoreboard/scoreboard.toml, /etc/arena/*, the mosquitto files); the unit
# files are ours and are replaced (local changes belong in `systemctl edit` drop-ins).
set -euo pipefail

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }

ROLE=hall
PREFIX=/opt/arena
START=1
DRY=0
ROOT=""
VENUE=""
EVENT_BROKER=""
HALLS=""
need() {  # need OPTION COUNT [VALUE]: the option's value is there (and not an option)
    if [ "$2" -lt 2 ] || [[ "${3:-}" == -* ]]; then
        echo "install.sh: $1 needs a value (see --help)" >&2; exit 2
    fi
}
while [ "$#" -gt 0 ]; do
    case "$1" in
        --office) ROLE=office ;;
        --venue) need "$1" "$#" "${2:-}"; VENUE=$2; shift ;;
        --venue=*) VENUE=${1#--venue=} ;;
        --event-broker) need "$1" "$#" "${2:-}"; EVENT_BROKER=$2; shift ;;
        --event-broker=*) EVENT_BROKER=${1#--event-broker=} ;;
        --halls) need "$1" "$#" "${2:-}"; HALLS=$2; shift ;;
        --halls=*) HALLS=${1#--halls=} ;;
        --prefix) [ "$#" -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
                  PREFIX=$2; shift ;;
        --prefix=*) PREFIX=${1#--prefix=} ;;
        --no-start) START=0 ;;
        --dry-run) DRY=1 ;;
        --root) [ "$#" -ge 2 ] || { echo "install.sh: --root needs a directory" >&2; exit 2; }
                ROOT=$2; shift ;;
        --root=*) ROOT=${1#--root=} ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
# A venue: its name, the event broker and the halls, checked before anything is done.
bad() { echo "install.sh: $*" >&2; exit 2; }
# One topic level, as arena/wire/ checks hall ids (no '/', '+', '#', ':').
is_name() { [[ "$1" =~ ^[A-Za-z0-9_.-]{1,64}$ ]]; }
if [ -n "$VENUE" ] || [ -n "$EVENT_BROKER" ] || [ -n "$HALLS" ]; then
    [ -n "$VENUE" ] || bad "--event-broker and --halls go with --venue NAME"
    [ "$ROLE" != office ] || bad "--venue and --office are two machines: choose one"
    ROLE=venue
    is_name "$VENUE" || bad "--venue '$VENUE': use 1-64 letters, digits, '_', '.', '-'"
    case "$VENUE" in
        office|display|standings) bad "--venue '$VENUE': that name is the event broker's own user or level" ;;
    esac
    [ -n "$EVENT_BROKER" ] || bad "--venue needs --event-broker HOST[:PORT] (the event's broker)"
    [ -n "$HALLS" ] || bad "--venue needs --halls HALL,HALL... (the venue's hall ids)"
    if [[ "$EVENT_BROKER" =~ ^([A-Za-z0-9.-]+)(:([0-9]+))?$ ]]; then
        EVENT_HOST=${BASH_REMATCH[1]}
        EVENT_PORT=${BASH_REMATCH[3]:-1883}
    else
        bad "--event-broker '$EVENT_BROKER': give HOST or HOST:PORT (e.g. event.local:1883)"
    fi
    # 10# : a leading zero is not octal; more than 5 digits is out of range anyway.
    if [ "${#EVENT_PORT}" -gt 5 ] || [ $((10#$EVENT_PORT)) -lt 1 ] || [ $((10#$EVENT_PORT)) -gt 65535 ]; then
        bad "--event-broker '$EVENT_BROKER': port $EVENT_PORT is not 1-65535"
    fi
    IFS=, read -r -a HALL_IDS <<<"$HALLS"
    [ "${#HALL_IDS[@]}" -gt 0 ] || bad "--halls '$HALLS': no hall id in it"
    seen=" "
    for h in "${HALL_IDS[@]}"; do
        is_name "$h" || bad "--halls '$HALLS': hall id '$h': use 1-64 letters, digits, '_', '.', '-'"
        case "$h" in
            office|display|standings) bad "--halls '$HALLS': '$h' is not a hall id (the broker's own user or level)" ;;
            mirror-*) bad "--halls '$HALLS': '$h': ids beginning with 'mirror-' are second boards' broker users (mirror-HALL)" ;;
        esac
        [ "$h" != "$VENUE" ] || bad "--halls '$HALLS': '$h' is the venue's own user name; name the venue otherwise"
        [[ "$seen" != *" $h "* ]] || bad "--halls '$HALLS': '$h' twice"
        seen="$seen$h "
    done
fi
case "$PREFIX" in
    /*) PREFIX=${PREFIX%/} ;;
    *) echo "install.sh: --prefix must be an absolute path, got '$PREFIX'" >&2; exit 2 ;;
esac
if [ -n "$ROOT" ]; then
    [ "$DRY" = 1 ] || mkdir -p "$ROOT"
    if [ -d "$ROOT" ]; then ROOT=$(cd "$ROOT" && pwd -P); else ROOT=${ROOT%/}; fi
    [ "$ROOT" != / ] || ROOT=""
fi

SRC=$(cd "$(dirname "$0")" && pwd -P)
PYTHON=/usr/bin/python3
CHANGES=0

say() { printf '%s\n' "$*"; }
# One change to the machine: counted, printed, and done unless --dry-run.
change() {
    local what=$1; shift
    CHANGES=$((CHANGES + 1))
    if [ "$DRY" = 1 ]; then say "  would: $what"; return 0; fi
    say "  $what"
    "$@"
}
# A change to the machine itself (packages, users, ownership, services): with --root it is
# only printed, neither checked nor counted.
system() {
    if [ -n "$ROOT" ]; then say "  skipped (--root): $1"; return 0; fi
    change "$@"
}
is_real() { [ -z "$ROOT" ]; }
# systemd_running: this machine was booted with systemd (sd_booted()), not a chroot or a
# container without it, where systemctl can enable units but neither reload nor start them.
systemd_running() { [ -d /run/systemd/system ]; }
enable_restart_mosquitto() { systemctl enable --quiet mosquitto; systemctl restart mosquitto; }
# restart_mosquitto: the broker with its new configuration (enabled for the boot in any case).
restart_mosquitto() {
    if ! is_real; then
        say "  skipped (--root): enable mosquitto and restart it with the new configuration"
    elif ! systemd_running; then
        change "enable mosquitto" systemctl enable --quiet mosquitto
        say "  not restarted: systemd is not running here; mosquitto starts with the new configuration at the next boot"
    else
        change "enable mosquitto and restart it with the new configuration" enable_restart_mosquitto
    fi
}

if [ "$DRY" = 0 ] && is_real && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root: sudo $0 $*" >&2
    exit 1
fi
if [ ! -f "$SRC/pyproject.toml" ] || [ ! -d "$SRC/systemd" ]; then
    echo "install.sh: run it from an Arena Scoreboard checkout ($SRC has no pyproject.toml)" >&2
    exit 1
fi

if [ "$ROLE" = hall ]; then
    USER_NAME=scoreboard
    GROUPS_WANTED=(gpio video render input dialout audio)
    UNIT=scoreboard.service
elif [ "$ROLE" = office ]; then
    USER_NAME=office
    GROUPS_WANTED=()
    UNIT=office.service
else
    USER_NAME=""  # a venue runs mosquitto only, as the package's own user
    GROUPS_WANTED=()
    UNIT=""
fi

if [ "$ROLE" = venue ]; then
    say "Arena Scoreboard: installing the broker of venue $VENUE into ${ROOT:-/}$([ "$DRY" = 1 ] && printf ' (dry run)')"
else
    say "Arena Scoreboard: installing the $ROLE into ${ROOT}${PREFIX}$([ "$DRY" = 1 ] && printf ' (dry run)')"
fi

# --- Debian packages -------------------------------------------------------------------
say "Debian packages"
# The venv's ensurepip comes with python3-venv. Every Python dependency comes as a Debian
# package or a wheel, never built here (a fresh Debian has no compiler): setuptools and wheel
# from Debian build the program itself without a download (pip's --no-build-isolation);
# evdev from Debian (PyPI has it as source only); a hall's lgpio from Raspberry Pi OS (it has
# no aarch64 wheel on PyPI: docs/developer.md, "Dependency facts"), and the libraries SDL's
# KMSDRM driver loads at run time (GBM, EGL, GLES and Mesa's GPU driver; the pygame-ce wheel
# does not bundle them). The office: the broker and its mosquitto_passwd. A venue: those only.
BUILD_PACKAGES=(python3-venv python3-setuptools python3-wheel)
if [ "$ROLE" = hall ]; then
    PACKAGES=("${BUILD_PACKAGES[@]}" python3-evdev python3-lgpio
              libgbm1 libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri)
elif [ "$ROLE" = venue ]; then
    PACKAGES=(mosquitto mosquitto-clients)
else
    PACKAGES=("${BUILD_PACKAGES[@]}" mosquitto mosquitto-clients)
fi
apt_install() {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}
if is_real; then
    missing=()
    for p in "${PACKAGES[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        [ "$status" = "install ok installed" ] || missing+=("$p")
    done
    # Only Raspberry Pi OS has python3-lgpio; elsewhere lgpio may come another way (see the
    # GPIO check below), so its absence from the package lists is no error.
    if [[ " ${missing[*]} " == *" python3-lgpio "* ]] && ! apt-cache show python3-lgpio >/dev/null 2>&1; then
        say "  note: python3-lgpio is not in this machine's package lists (not Raspberry Pi OS?): not installed"
        missing=("${missing[@]/python3-lgpio/}")
        read -r -a missing <<<"${missing[*]}"
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
        change "apt-get install ${missing[*]}" apt_install "${missing[@]}"
    fi
else
    say "  skipped (--root): apt-get install (if missing) ${PACKAGES[*]}"
fi

# gpio_report PYTHON DEV MODEL: what a hall's pins have here, said as found: whether lgpio
# imports in PYTHON (the venv sees Debian's python3 packages), whether DEV has gpiochip
# nodes, and what the config's [gpio] pin_factory = "auto" means on this machine (lgpio
# where MODEL, the device tree's model, names a Raspberry Pi: firmware_py/runconfig.py).
# Only reads.
gpio_report() {
    local python=$1 dev=$2 model_file=$3 chips=() c lgpio=0 model=""
    for c in "$dev"/gpiochip*; do
        [ -e "$c" ] && chips+=("$c")
    done
    if "$python" -c 'import lgpio' >/dev/null 2>&1; then lgpio=1; fi
    [ -r "$model_file" ] && model=$(tr -d '\0' <"$model_file")
    if [ "$lgpio" = 1 ]; then
        printf '  lgpio: imports in %s\n' "$python"
    else
        printf '  lgpio: does not import in %s (Raspberry Pi OS: apt-get install python3-lgpio)\n' "$python"
    fi
    if [ "${#chips[@]}" -gt 0 ]; then
        printf '  GPIO chips: %s\n' "${chips[*]}"
    else
        printf '  GPIO chips: none (no %s/gpiochip*: no GPIO driver loaded here)\n' "$dev"
    fi
    if [[ "$model" == *"Raspberry Pi"* ]]; then
        printf '  model: %s: [gpio] pin_factory = "auto" means lgpio\n' "$model"
        if [ "$lgpio" = 1 ] && [ "${#chips[@]}" -gt 0 ]; then
            printf '  the buttons and the horn relay can use the pins\n'
        else
            printf '  the pins cannot open without both; [gpio] pin_factory = "mock" runs the board without them\n'
        fi
    else
        printf '  model: not a Raspberry Pi (%s): [gpio] pin_factory = "auto" means mock pins\n' \
            "${model:-no $model_file}"
        if [ "$lgpio" = 1 ] && [ "${#chips[@]}" -gt 0 ]; then
            printf '  [gpio] pin_factory = "lgpio" in the config would use these chips\n'
        fi
    fi
}
if [ "$ROLE" = hall ]; then
    say "GPIO"
    if is_real; then
        gpio_report "$PYTHON" /dev /proc/device-tree/model
    else
        say "  skipped (--root): the check of lgpio ($PYTHON) and /dev/gpiochip*"
    fi
fi

# --- The service user --------------------------------------------------------------------
if [ -n "$USER_NAME" ]; then
say "User $USER_NAME"
for g in "${GROUPS_WANTED[@]}"; do
    # Raspberry Pi OS has them all; elsewhere the unit would not start without them.
    if is_real && getent group "$g" >/dev/null; then continue; fi
    system "create group $g" groupadd --system "$g"
done
if is_real && id -u "$USER_NAME" >/dev/null 2>&1; then
    if [ "${#GROUPS_WANTED[@]}" -gt 0 ]; then
        have=" $(id -nG "$USER_NAME") "
        for g in "${GROUPS_WANTED[@]}"; do
            [[ "$have" == *" $g "* ]] || change "add $USER_NAME to group $g" usermod -a -G "$g" "$USER_NAME"
        done
    fi
else
    groups_csv=$(IFS=,; printf '%s' "${GROUPS_WANTED[*]}")
    system "create system user $USER_NAME${groups_csv:+ (groups $groups_csv)}" \
        useradd --system --user-group --home-dir "/var/lib/$USER_NAME" --no-create-home \
        --shell /usr/sbin/nologin ${groups_csv:+--groups "$groups_csv"} \
        --comment "Arena Scoreboard ($ROLE)" "$USER_NAME"
fi
fi

# --- Files -------------------------------------------------------------------------------
# ensure_dir DIR MODE [OWNER:GROUP]   (DIR without the --root prefix)
ensure_dir() {
    local d=$ROOT$1 mode=$2 owner=${3:-}
    if [ ! -d "$d" ]; then
        change "create $d" install -d -m "$mode" "$d"
    elif [ "$(stat -c %a "$d")" != "${mode#0}" ]; then
        change "chmod $mode $d" chmod "$mode" "$d"
    fi
    set_owner "$1" "$owner"
}
# set_owner PATH OWNER:GROUP: only on the real machine (with --root the users do not exist).
set_owner() {
    local p=$ROOT$1 owner=$2
    [ -n "$owner" ] || return 0
    if is_real; then
        if [ ! -e "$p" ] || [ "$(stat -c %U:%G "$p")" != "$owner" ]; then
            change "chown $owner $p" chown "$owner" "$p"
        fi
    else
        say "  skipped (--root): chown $owner $p"
    fi
}
# The helpers below set WROTE=1 when they wrote the file, else 0, and return 0: called in
# an if or && list, a function would run with `set -e` off (bash), hiding its errors.
WROTE=0
# put_file SRC DEST MODE [OWNER:GROUP]: ours; replaced when it differs.
put_file() {
    local src=$1 dest=$ROOT$2 mode=$3 owner=${4:-}
    WROTE=0
    if [ ! -f "$dest" ] || ! cmp -s "$src" "$dest"; then
        change "install $dest" install -D -m "$mode" "$src" "$dest"
        WROTE=1
    elif [ "$(stat -c %a "$dest")" != "${mode#0}" ]; then
        change "chmod $mode $dest" chmod "$mode" "$dest"
    fi
    set_owner "$2" "$owner"
}
# put_config SRC DEST MODE [OWNER:GROUP [ORIGIN]]: the administrator's; written only when
# absent. ORIGIN names where the text comes from (default: SRC in the checkout).
put_config() {
    local src=$1 dest=$ROOT$2 mode=$3 owner=${4:-} origin=${5:-${1#"$SRC"/}}
    WROTE=0
    if [ ! -e "$dest" ]; then
        change "write $dest (from $origin)" install -D -m "$mode" "$src" "$dest"
        set_owner "$2" "$owner"
        WROTE=1
    elif ! cmp -s "$src" "$dest"; then
        say "  kept $dest (yours; it differs from $origin)"
    fi
}

# tree_plan SRC DEST: what to copy from SRC to DEST and what is stale in DEST, as records
# "c ./NAME" and "r ./NAME" (NUL-terminated), skipping the venv, git and caches (the same
# names are left alone in the prefix, so that pip's in-tree build there survives a re-run).
# One Python process, not a cmp per file: on a Pi's SD card or an emulated machine thousands
# of forks take minutes.
tree_plan() {
    "$PYTHON" - "$1" "$2" <<'PLAN'
import filecmp, os, stat, sys

SKIP = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
        ".hypothesis"}
TOP_SKIP = {"build", "dist"}


def entries(top):
    found = set()
    for folder, dirs, files in os.walk(top):
        rel = os.path.relpath(folder, top)
        keep, links = [], []
        for d in dirs:
            if os.path.islink(os.path.join(folder, d)):
                links.append(d)  # a link to a folder is an entry, not walked
            elif not (d in SKIP or d.endswith(".egg-info") or (rel == "." and d in TOP_SKIP)):
                keep.append(d)
        dirs[:] = keep
        for name in files + links:
            found.add(os.path.normpath(os.path.join(rel, name)))
    return found


def same(a, b):
    if os.path.islink(a) or os.path.islink(b):
        return os.path.islink(a) and os.path.islink(b) and os.readlink(a) == os.readlink(b)
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (stat.S_ISREG(sb.st_mode) and stat.S_IMODE(sa.st_mode) == stat.S_IMODE(sb.st_mode)
            and filecmp.cmp(a, b, shallow=False))


src, dest = sys.argv[1], sys.argv[2]
have = entries(src)
out = sys.stdout.buffer
for name in sorted(have):
    if not same(os.path.join(src, name), os.path.join(dest, name)):
        out.write(b"c ./" + os.fsencode(name) + b"\0")
if os.path.isdir(dest):
    for name in sorted(entries(dest) - have):
        out.write(b"r ./" + os.fsencode(name) + b"\0")
PLAN
}
copy_tree() {
    local dest=$ROOT$PREFIX f n_copy=0 n_remove=0
    local -a to_copy=() to_remove=()
    WROTE=0
    if [ -d "$dest" ] && [ "$(cd "$dest" && pwd -P)" = "$SRC" ]; then
        say "  running from $dest itself: nothing to copy"
        return 0
    fi
    while IFS= read -r -d '' f; do
        case $f in
            "c "*) to_copy+=("${f#c }") ;;
            "r "*) to_remove+=("${f#r }") ;;
        esac
    done < <(tree_plan "$SRC" "$dest")
    n_copy=${#to_copy[@]}
    n_remove=${#to_remove[@]}
    [ "$n_copy" -gt 0 ] || [ "$n_remove" -gt 0 ] || return 0
    change "copy $n_copy file(s) to $dest, remove $n_remove stale one(s)" \
        copy_files "$dest" "$n_copy" "${to_copy[@]}" "${to_remove[@]}"
    WROTE=1
}
copy_files() {  # copy_files DEST N COPY... REMOVE...
    local dest=$1 n=$2 f; shift 2
    mkdir -p "$dest"
    while [ "$n" -gt 0 ]; do
        f=${1#./}
        mkdir -p "$dest/$(dirname "$f")"
        rm -f "$dest/$f"
        cp -P --preserve=mode,timestamps "$SRC/$f" "$dest/$f"
        n=$((n - 1)); shift
    done
    for f in "$@"; do  # stale files, and the directories they leave empty
        f=$dest/${f#./}
        rm -f "$f"
        f=$(dirname "$f")
        while [ "$f" != "$dest" ] && rmdir "$f" 2>/dev/null; do f=$(dirname "$f"); done
    done
}

tree_changed=0
if [ "$ROLE" != venue ]; then
say "Program in $PREFIX"
ensure_dir "$PREFIX" 755
copy_tree
tree_changed=$WROTE

# --- The virtual environment ---------------------------------------------------------------
say "Virtual environment $PREFIX/.venv"
# --system-site-packages: lgpio, evdev, setuptools and wheel come from Debian. Debian's
# python3, not whatever python3 comes first on root's PATH.
# Reinstalled when the program's sources changed (a stamp named by their hash).
source_hash() {
    (cd "$1" && { find pyproject.toml arena firmware_py display hardware office demo -name __pycache__ \
        -prune -o -type f -print0 2>/dev/null || true; } | LC_ALL=C sort -z | xargs -0 -r sha256sum) \
        | sha256sum | cut -c1-16
}
# The shared package with the role's extra: a hall does not install what only the office
# needs, and the office needs no GPIO or SDL.
case $ROLE in
    office) EXTRA="[office]" ;;
    venue) EXTRA="" ;;
    *) EXTRA="[hall]" ;;
esac
# deps_hash PYPROJECT EXTRA: what pip fetches for this role (Python's version, the
# project's requires-python, dependencies and the extra's list), hashed. A second stamp
# named by it says those are installed: then an update of our own code needs no network.
deps_hash() {
    "$PYTHON" - "$1" "$2" <<'EOF' | sha256sum | cut -c1-16
import json, sys, tomllib
with open(sys.argv[1], "rb") as f:
    project = tomllib.load(f)["project"]
extra = sys.argv[2].strip("[]")
print(json.dumps([list(sys.version_info[:2]), project.get("requires-python"),
                  project.get("dependencies", []),
                  project.get("optional-dependencies", {}).get(extra, []) if extra else []]))
EOF
}
# pip never builds a dependency from source (no compiler on a fresh Debian): wheels only
# (--only-binary :all:; the program itself is a local folder, which pip still builds), and
# the program is built with Debian's setuptools and wheel, not ones fetched for an isolated
# build (--no-build-isolation).
pip_cmd() {  # pip_cmd VENV: the pip install command line, without what it installs
    PIP=("$1/bin/python" -m pip install -q --disable-pip-version-check --no-cache-dir --progress-bar off
         --no-build-isolation)
}
# pip_update VENV STAMP DEPS_STAMP: the program alone, from the local folder, with no
# index (--no-index: pip cannot download; it still checks that every dependency is
# installed, so the dependency stamp is true afterwards). A missing one after all: the
# full install below.
pip_update() {
    pip_cmd "$1"
    if ! "${PIP[@]}" --no-index "$PREFIX$EXTRA"; then
        say "  a dependency is missing from $1 after all: installing with the internet (PyPI)"
        pip_install "$@"
        return 0
    fi
    rm -f "$1"/.arena-installed-* "$1"/.arena-deps-*
    touch "$2" "$3"
}
# pip_install VENV STAMP DEPS_STAMP: the program and its dependencies (wheels from PyPI).
# pip downloads before it changes anything: when it fails, what was installed stays.
pip_install() {
    pip_cmd "$1"
    if ! "${PIP[@]}" --only-binary :all: "$PREFIX$EXTRA"; then
        if compgen -G "$1/.arena-installed-*" >/dev/null; then
            say "install.sh: pip could not install the new dependencies (above: no internet, or no wheel" >&2
            say "            for this machine). The version installed before is still in $1" >&2
            say "            and a running $UNIT keeps running it; run install.sh again with the internet." >&2
        else
            say "install.sh: pip could not install the dependencies (above: no internet, or no wheel for" >&2
            say "            this machine); run install.sh again with the internet." >&2
        fi
        exit 1
    fi
    rm -f "$1"/.arena-installed-* "$1"/.arena-deps-*
    touch "$2" "$3"
}
# venv_install VENV STAMP DEPS_STAMP: the program into the venv, with no network when the
# dependencies are the ones installed last time (DEPS_STAMP), or when an install.sh that
# kept no dependency stamp installed them (pip then checks they are all there).
venv_install() {
    local installed=0 recorded=0
    compgen -G "$1/.arena-installed-*" >/dev/null && installed=1
    compgen -G "$1/.arena-deps-*" >/dev/null && recorded=1
    if [ -f "$3" ]; then
        change "install Arena Scoreboard into $1 (pip, no network: its dependencies are installed)" \
            pip_update "$@"
    elif [ "$installed" = 1 ] && [ "$recorded" = 0 ]; then
        change "install Arena Scoreboard into $1 (pip, no network if its dependencies are all installed)" \
            pip_update "$@"
    else
        [ "$installed" = 0 ] || say "  the dependencies in pyproject.toml changed: this update needs the internet (PyPI)"
        change "install Arena Scoreboard and its dependencies into $1 (pip, wheels from PyPI)" \
            pip_install "$@"
    fi
}
if is_real; then
    venv=$PREFIX/.venv
    if [ ! -x "$venv/bin/python" ]; then
        change "create $venv" "$PYTHON" -m venv --system-site-packages "$venv"
    fi
    if [ "$DRY" = 1 ] && [ "$tree_changed" = 1 ]; then
        stamp=$venv/.arena-installed-pending
    else
        stamp=$venv/.arena-installed-$(source_hash "$PREFIX")
    fi
    # From the checkout: the same file as the prefix's once copied (also in a dry run).
    deps=$(deps_hash "$SRC/pyproject.toml" "$EXTRA") || deps=unknown
    deps_stamp=$venv/.arena-deps-$deps
    [ -f "$stamp" ] || venv_install "$venv" "$stamp" "$deps_stamp"
else
    say "  skipped (--root): $PYTHON -m venv --system-site-packages $PREFIX/.venv; pip install --no-build-isolation --only-binary :all: $PREFIX$EXTRA"
fi
fi

# --- A venue's bridge --------------------------------------------------------------------
# Bash 5.2 would put the matched text for '&' in ${var//pattern/replacement}.
shopt -u patsub_replacement 2>/dev/null || true
# venue_conf PASSWORD: systemd/mosquitto/venue.conf filled in for this venue.
venue_conf() {
    local text topics="" h
    text=$(<"$SRC/systemd/mosquitto/venue.conf")
    for h in "${HALL_IDS[@]}"; do
        topics+="# $h"$'\n'
        topics+="topic arena/v1/+/$h/events out 1"$'\n'
        topics+="topic arena/v1/+/$h/state out 1"$'\n'
        topics+="topic arena/v1/+/$h/status out 1"$'\n'
        topics+="topic arena/v1/+/$h/next in 1"$'\n'
        topics+="topic arena/v1/+/$h/acks in 1"$'\n'
    done
    text=${text//@HALL_TOPICS@/${topics%$'\n'}}
    text=${text//@VENUE@/$VENUE}
    text=${text//@EVENT_HOST@/$EVENT_HOST}
    text=${text//@EVENT_PORT@/$EVENT_PORT}
    text=${text//@PASSWORD@/$1}
    printf '# Written by install.sh --venue %s --event-broker %s:%s --halls %s\n' \
        "$VENUE" "$EVENT_HOST" "$EVENT_PORT" "$(IFS=,; printf '%s' "${HALL_IDS[*]}")"
    printf '# (re-run it to change this file: it is replaced).\n'
    printf '%s\n' "$text"
}
# event_acl: the venue's block for the event broker's arena.acl.
event_acl() {
    local h
    printf '\n# Venue %s (install.sh --venue %s): its bridge logs in as %s and writes only\n' \
        "$VENUE" "$VENUE" "$VENUE"
    printf "# these halls' events, state and status; it reads their next and acks and the tables.\n"
    printf 'user %s\n' "$VENUE"
    for h in "${HALL_IDS[@]}"; do
        printf 'topic write arena/v1/+/%s/%s\n' "$h" events "$h" state "$h" status
        printf 'topic read arena/v1/+/%s/%s\n' "$h" next "$h" acks
    done
    printf 'topic read arena/v1/+/standings/#\n'
    printf '# the link up (1) or down (0): the bridge'"'"'s notification, its last will\n'
    printf 'topic write arena/bridge/%s/state\n' "$VENUE"
}

# --- Configuration -------------------------------------------------------------------------
say "Configuration"
unit_text() {  # the unit with the program's prefix
    sed "s#/opt/arena#$PREFIX#g" "$SRC/systemd/$1"
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ "$ROLE" = hall ]; then
    ensure_dir /etc/scoreboard 755
    if [ -f "$SRC/examples/scoreboard.toml" ]; then
        put_config "$SRC/examples/scoreboard.toml" /etc/scoreboard/scoreboard.toml 644
    else
        cat >"$TMP/scoreboard.toml" <<'EOF'
# Arena Scoreboard hall daemon configuration (`scoreboard run --config THIS`).
# Written by install.sh; every key and its default: docs/technician.md.

[match]
preset = "ice-hockey-2x20"      # `scoreboard presets` lists them

[state]
dir = "/var/lib/scoreboard"     # the match journals (the service's StateDirectory)

[display]
mode = "auto"                   # auto | fullscreen | windowed | headless

[gpio]
pin_factory = "auto"            # auto | lgpio | mock (the service sets lgpio)

[log]
level = "info"                  # debug | info | warning | error

# Results to the tournament office: uncomment and fill in.
# [mqtt]
# broker = "mqtt://office.local:1883"
# tournament = "example-cup"
# hall = "hall-1"
# username = "hall-1"
# password_file = "/etc/scoreboard/mqtt-password"
EOF
        put_config "$TMP/scoreboard.toml" /etc/scoreboard/scoreboard.toml 644 "" \
            "a minimal default: examples/scoreboard.toml is missing"
    fi
elif [ "$ROLE" = office ]; then
    ensure_dir /etc/arena 755
    put_config "$SRC/examples/tournaments/000-ice-hockey.toml" /etc/arena/tournament.toml 644
    # The office's broker password: generated once, kept in its own file.
    new_password=0
    if [ ! -e "$ROOT/etc/arena/office-password" ]; then
        (umask 077; head -c 18 /dev/urandom | base64 | tr -d '\n=+/' >"$TMP/office-password"; echo >>"$TMP/office-password")
        change "write $ROOT/etc/arena/office-password (a new random password)" \
            install -m 640 "$TMP/office-password" "$ROOT/etc/arena/office-password"
        new_password=1
    fi
    set_owner /etc/arena/office-password root:office
    mosquitto_changed=0
    ensure_dir /etc/mosquitto/conf.d 755
    put_config "$SRC/systemd/mosquitto/arena.conf" /etc/mosquitto/conf.d/arena.conf 644
    [ "$WROTE" = 0 ] || mosquitto_changed=1
    put_config "$SRC/systemd/mosquitto/arena.acl" /etc/mosquitto/arena.acl 644
    [ "$WROTE" = 0 ] || mosquitto_changed=1
    # The password file (systemd/mosquitto/README.md): the office user now, the halls later.
    # arena.conf makes every user name the client id: the office's persistent session is the
    # user `office`'s, one `office serve` per user (a second tournament on this broker needs a
    # user of its own: systemd/mosquitto/README.md, "Identity").
    passwd=/etc/mosquitto/arena.passwd
    add_office_user() {  # add_office_user FILE: the password goes in on standard input
        local create=()
        [ -f "$1" ] || create=(-c)
        head -n1 /etc/arena/office-password | sed p | mosquitto_passwd "${create[@]}" "$1" office >/dev/null
    }
    restrict_passwd() { chown root:mosquitto "$1"; chmod 640 "$1"; }
    if is_real; then
        if [ ! -f "$passwd" ] || ! grep -q '^office:' "$passwd" || [ "$new_password" = 1 ]; then
            change "add user office to $passwd" add_office_user "$passwd"
            mosquitto_changed=1
        fi
        if [ ! -f "$passwd" ] || [ "$(stat -c %U:%G:%a "$passwd")" != root:mosquitto:640 ]; then
            change "chown root:mosquitto, chmod 640 $passwd" restrict_passwd "$passwd"
        fi
    else
        say "  skipped (--root): mosquitto_passwd $passwd office (from /etc/arena/office-password)"
    fi
    if [ "$mosquitto_changed" = 1 ]; then restart_mosquitto; fi
else
    # A venue's broker (docs/technician.md, "Several venues"): the event broker's arena.conf and arena.acl,
    # one user per hall, and the bridge to the event broker as the venue's own user.
    # A password each, generated once and kept in its own file (mode 600): the venue's for
    # the bridge (it also goes into the event broker's password file), a hall's for its board.
    new_password() {  # new_password NAME: a fresh random one in $TMP/NAME
        (umask 077; head -c 18 /dev/urandom | base64 | tr -d '\n=+/' >"$TMP/$1"; echo >>"$TMP/$1")
    }
    # keep_password FILE NAME: FILE's password, written once; sets NEW=1 when new. With
    # --dry-run the new one is only in $TMP, and the rest reads it there (PASSWORD_AT).
    keep_password() {
        NEW=0
        PASSWORD_AT=$ROOT$1
        if [ ! -e "$ROOT$1" ]; then
            new_password "$2"
            change "write $ROOT$1 (a new random password)" install -m 600 "$TMP/$2" "$ROOT$1"
            NEW=1
            [ "$DRY" = 0 ] || PASSWORD_AT=$TMP/$2
        fi
    }
    ensure_dir /etc/arena 755
    ensure_dir /etc/arena/hall-passwords 700
    ensure_dir /etc/arena/event-side 755
    keep_password /etc/arena/venue-password venue
    venue_password=$(head -n1 "$PASSWORD_AT")
    declare -A hall_new=() hall_password=()
    for h in "${HALL_IDS[@]}"; do
        keep_password "/etc/arena/hall-passwords/$h" "hall-$h"
        hall_new[$h]=$NEW
        hall_password[$h]=$PASSWORD_AT
    done
    mosquitto_changed=0
    ensure_dir /etc/mosquitto/conf.d 755
    put_config "$SRC/systemd/mosquitto/arena.conf" /etc/mosquitto/conf.d/arena.conf 644
    [ "$WROTE" = 0 ] || mosquitto_changed=1
    put_config "$SRC/systemd/mosquitto/arena.acl" /etc/mosquitto/arena.acl 644
    [ "$WROTE" = 0 ] || mosquitto_changed=1
    # The bridge and the event side's lines follow from the command line: ours, replaced
    # when a re-run changes them (another hall, another event broker).
    venue_conf "$venue_password" >"$TMP/arena-venue.conf"
    put_file "$TMP/arena-venue.conf" /etc/mosquitto/conf.d/arena-venue.conf 640 root:mosquitto
    [ "$WROTE" = 0 ] || mosquitto_changed=1
    event_acl >"$TMP/event.acl"
    put_file "$TMP/event.acl" "/etc/arena/event-side/$VENUE.acl" 644
    passwd=/etc/mosquitto/arena.passwd
    add_hall_user() {  # add_hall_user FILE HALL PASSWORD-FILE
        local create=()
        [ -f "$1" ] || create=(-c)
        head -n1 "$3" | sed p | mosquitto_passwd "${create[@]}" "$1" "$2" >/dev/null
    }
    restrict_passwd() { chown root:mosquitto "$1"; chmod 640 "$1"; }
    if is_real; then
        for h in "${HALL_IDS[@]}"; do
            if [ ! -f "$passwd" ] || ! grep -q "^$h:" "$passwd" || [ "${hall_new[$h]}" = 1 ]; then
                change "add user $h to $passwd" add_hall_user "$passwd" "$h" "${hall_password[$h]}"
                mosquitto_changed=1
            fi
        done
        if [ ! -f "$passwd" ] || [ "$(stat -c %U:%G:%a "$passwd")" != root:mosquitto:640 ]; then
            change "chown root:mosquitto, chmod 640 $passwd" restrict_passwd "$passwd"
        fi
    else
        say "  skipped (--root): mosquitto_passwd $passwd ${HALL_IDS[*]} (from /etc/arena/hall-passwords/)"
    fi
    # A bridge is read at start only (not on reload): restart. The halls reconnect and send
    # again whatever the office has not stored.
    if [ "$mosquitto_changed" = 1 ]; then restart_mosquitto; fi
fi

# --- Device permissions -------------------------------------------------------------------
# A hall: /dev/gpiochip* for the group gpio. Debian's own udev rules already give /dev/dri
# to video and render, /dev/input to input, serial ttys to dialout and /dev/snd to audio;
# only Raspberry Pi OS gives the GPIO chips to gpio, so the rule is ours (systemd/udev/).
# udev_running: the udev daemon answers here (not in a chroot or an image build).
udev_running() { [ -S /run/udev/control ] && udevadm control --ping >/dev/null 2>&1; }
apply_gpio_rule() {
    udevadm control --reload-rules
    udevadm trigger --settle --subsystem-match=gpio --action=add
}
if [ "$ROLE" = hall ]; then
    say "Device permissions"
    put_file "$SRC/systemd/udev/90-arena-gpio.rules" /etc/udev/rules.d/90-arena-gpio.rules 644
    if [ "$WROTE" = 1 ]; then
        if ! is_real; then
            say "  skipped (--root): udevadm control --reload-rules; udevadm trigger --subsystem-match=gpio"
        elif [ "$DRY" = 0 ] && ! udev_running; then
            say "  udev is not running here (a chroot or an image build): the rule applies at the next boot"
        else
            change "reload the udev rules and apply them to /dev/gpiochip*" apply_gpio_rule
        fi
    fi
fi

# --- The service -------------------------------------------------------------------------
if [ -n "$UNIT" ]; then
say "Service $UNIT"
unit_text "$UNIT" >"$TMP/$UNIT"
put_file "$TMP/$UNIT" "/etc/systemd/system/$UNIT" 644
unit_changed=$WROTE
if ! is_real; then
    [ "$unit_changed" = 0 ] || say "  skipped (--root): systemctl daemon-reload"
    say "  skipped (--root): systemctl enable$([ "$START" = 1 ] && printf ' --now') $UNIT"
elif ! systemd_running; then
    # A chroot or an image build: enabling only writes the links, which works offline;
    # reloading and starting need the running systemd, so the next boot does them.
    if ! systemctl is-enabled --quiet "$UNIT" 2>/dev/null; then
        change "enable $UNIT" systemctl enable --quiet "$UNIT"
    fi
    say "  not started: systemd is not running here (a chroot or an image build); $UNIT starts at the next boot"
else
    if [ "$unit_changed" = 1 ]; then
        change "systemctl daemon-reload" systemctl daemon-reload
    fi
    if ! systemctl is-enabled --quiet "$UNIT" 2>/dev/null; then
        if [ "$START" = 1 ]; then
            change "enable and start $UNIT" systemctl enable --now "$UNIT"
        else
            change "enable $UNIT (not started: --no-start)" systemctl enable "$UNIT"
        fi
    elif [ "$START" = 1 ] && ! systemctl is-active --quiet "$UNIT"; then
        change "start $UNIT" systemctl start "$UNIT"
    elif [ "$unit_changed" = 1 ] || [ "$tree_changed" = 1 ]; then
        # Never restarted behind the timekeeper's back: a game may be running.
        say "  $UNIT is running the old version: sudo systemctl restart ${UNIT%.service} when no game is on"
    fi
fi
fi

# --- Done ----------------------------------------------------------------------------------
say ""
if [ "$CHANGES" = 0 ]; then
    say "Nothing to do: the $ROLE is installed and up to date (no changes)."
elif [ "$DRY" = 1 ]; then
    say "Dry run: $CHANGES change(s) would be made; nothing was changed."
else
    say "Done: $CHANGES change(s)."
fi
[ "$DRY" = 1 ] && exit 0
say ""
if [ "$ROLE" = hall ]; then
    cat <<EOF
Next (docs/technician.md, "Running a hall"):
  1. The office link: in /etc/scoreboard/scoreboard.toml set [mqtt] broker, tournament, hall,
     username and password_file; put the hall's broker password in that file:
       sudo install -m 640 -g scoreboard /dev/null /etc/scoreboard/mqtt-password
       sudo nano /etc/scoreboard/mqtt-password
  2. sudo systemctl restart scoreboard     (after any change to the config)
  3. systemctl status scoreboard           journalctl -u scoreboard -f
EOF
elif [ "$ROLE" = venue ]; then
    cat <<EOF
Next (docs/technician.md, "Several venues"):
  1. At the event broker ($EVENT_HOST): the venue's user, with the password in
     $ROOT/etc/arena/venue-password here, and its ACL lines: copy
     $ROOT/etc/arena/event-side/$VENUE.acl there, then
       sudo mosquitto_passwd /etc/mosquitto/arena.passwd $VENUE
       sudo tee -a /etc/mosquitto/arena.acl <$VENUE.acl
       sudo systemctl reload mosquitto
     The lines:
$(sed '/^$/d; s/^/       /' "$ROOT/etc/arena/event-side/$VENUE.acl")
  2. Each hall of this venue: broker = "mqtt://$(hostname 2>/dev/null || echo THIS-MACHINE):1883" and
     username = its hall id in [mqtt]; its password is in $ROOT/etc/arena/hall-passwords/HALL here.
  3. The link: arena/bridge/$VENUE/state is 1 while it is up, 0 while down (retained, on
     both brokers); journalctl -u mosquitto here says why it cannot connect.
EOF
else
    cat <<EOF
Next (docs/technician.md, "Running a hall", the office machine):
  1. Your tournament: edit /etc/arena/tournament.toml (examples/tournaments/README.md), then
     sudo systemctl restart office
  2. One broker user per hall (its hall id), then give that password to the hall:
       sudo mosquitto_passwd /etc/mosquitto/arena.passwd hall-1
       sudo systemctl reload mosquitto
     A user name is also the client id: one connection each. Never log in as office or as a
     hall for anything else; to watch the broker add a display user the same way.
  3. The office page: http://$(hostname 2>/dev/null || echo THIS-MACHINE):8080/
     systemctl status office mosquitto     journalctl -u office -f
EOF
fi
