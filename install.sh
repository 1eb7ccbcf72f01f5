#!/usr/bin/env bash
# Install Arena Scoreboard as a service on Raspberry Pi OS / Debian 12 (Bookworm).
#
#   sudo ./install.sh            a hall: the scoreboard daemon (clock, horn, display)
#   sudo ./install.sh --hall HALL --broker URL --tournament ID --password-file FILE
#                                a hall linked to the office: the command --office prints
#   sudo ./install.sh --office [--halls HALL,HALL...]
#                                the office machine: mosquitto and the standings service,
#                                a broker user and password per hall
#   sudo ./install.sh --venue NAME --event-broker HOST[:PORT] --halls HALL,HALL...
#                                a venue's broker, bridged to the event's (docs/technician.md, "Several
#                                venues"): only mosquitto, no program
#
# Options:
#   --office       install the office (broker + `office serve`) instead of a hall
#   --halls LIST   with --office: the hall ids, comma-separated (hall-1,hall-2): a broker user
#                  each with a password generated once into /etc/arena/hall-passwords/HALL
#                  (root only; a re-run keeps them and adds new halls), and the command to
#                  run on each hall's Pi is printed. With --venue: the venue's halls
#   --hall HALL    a hall: its id, the broker user it logs in as; with --broker,
#                  --tournament and --password-file the [mqtt] table is written into
#                  /etc/scoreboard/scoreboard.toml (added to one that has none) and the
#                  password into /etc/scoreboard/mqtt-password: the board connects as is
#   --broker URL   a hall: the office's broker, mqtt://HOST:1883 (or mqtts://HOST:8883,
#                  which needs --ca-file)
#   --tournament ID
#                  a hall: the tournament id (the `id` of the office's tournament file)
#   --password-file FILE
#                  a hall: a file whose first line is the hall's broker password (the
#                  office's /etc/arena/hall-passwords/HALL, copied here)
#   --ca-file FILE a hall with mqtts://: the CA certificate of the broker's TLS listener,
#                  installed as /etc/scoreboard/office-ca.crt
#   --venue NAME   install a venue broker: its halls log in here (the event broker's
#                  configuration and ACL, one user and a generated password each), and a
#                  bridge carries their topics to the event broker as the user NAME; prints
#                  the user and ACL lines to add at the event broker (also written to
#                  /etc/arena/event-side/NAME.acl). NAME: letters, digits, '_', '.', '-'
#   --event-broker HOST[:PORT]
#                  the event broker the venue bridges to (port default 1883); --venue only
#   --prefix DIR   where the program goes (default /opt/arena; a venv in DIR/.venv)
#   --no-start     install and enable the service, but do not start it now
#   --dry-run      print every action, change nothing
#   --root DIR     install the files under DIR instead of / (for tests and image builds):
#                  system paths are prefixed with DIR, and what would change the machine
#                  itself (apt-get, users, chown, the venv, systemctl) is printed, not run
#                  (the broker's password file under DIR is made with this machine's
#                  mosquitto_passwd when it has one)
#   -h, --help     this help
#
# Another apt or dpkg run (unattended-upgrades after a first boot) is waited for, saying
# so, up to ARENA_APT_WAIT_S seconds (default 600); then it stops with a message.
#
# Safe to run again: it changes only what is missing or out of date, says what it changed,
# and says so when there was nothing to do. It never overwrites a configuration file that
# exists (/etc/scoreboard/scoreboard.toml, /etc/arena/*, the mosquitto files), except that
# --hall adds an [mqtt] table to a scoreboard.toml that has none, and users are added to
# the broker's password file; the unit files, and the hall's password and CA certificate
# given with --hall, are ours and are replaced (local unit changes belong in drop-ins).
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
HALL=""
BROKER=""
TOURNAMENT=""
PASSWORD_FILE=""
CA_FILE=""
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
        --hall) need "$1" "$#" "${2:-}"; HALL=$2; shift ;;
        --hall=*) HALL=${1#--hall=} ;;
        --broker) need "$1" "$#" "${2:-}"; BROKER=$2; shift ;;
        --broker=*) BROKER=${1#--broker=} ;;
        --tournament) need "$1" "$#" "${2:-}"; TOURNAMENT=$2; shift ;;
        --tournament=*) TOURNAMENT=${1#--tournament=} ;;
        --password-file) need "$1" "$#" "${2:-}"; PASSWORD_FILE=$2; shift ;;
        --password-file=*) PASSWORD_FILE=${1#--password-file=} ;;
        --ca-file) need "$1" "$#" "${2:-}"; CA_FILE=$2; shift ;;
        --ca-file=*) CA_FILE=${1#--ca-file=} ;;
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
# check_halls OPTION_VALUE: the hall ids of --halls into HALL_IDS, each checked.
check_halls() {
    local h seen=" "
    IFS=, read -r -a HALL_IDS <<<"$1"
    [ "${#HALL_IDS[@]}" -gt 0 ] || bad "--halls '$1': no hall id in it"
    for h in "${HALL_IDS[@]}"; do
        is_name "$h" || bad "--halls '$1': hall id '$h': use 1-64 letters, digits, '_', '.', '-'"
        case "$h" in
            office|display|standings) bad "--halls '$1': '$h' is not a hall id (the broker's own user or level)" ;;
            mirror-*) bad "--halls '$1': '$h': ids beginning with 'mirror-' are second boards' broker users (mirror-HALL)" ;;
        esac
        [ "$h" != "$VENUE" ] || bad "--halls '$1': '$h' is the venue's own user name; name the venue otherwise"
        [[ "$seen" != *" $h "* ]] || bad "--halls '$1': '$h' twice"
        seen="$seen$h "
    done
}
HALL_IDS=()
LINK=0
if [ -n "$HALL" ] || [ -n "$BROKER" ] || [ -n "$TOURNAMENT" ] || [ -n "$PASSWORD_FILE" ] \
        || [ -n "$CA_FILE" ]; then
    { [ "$ROLE" = hall ] && [ -z "$VENUE" ]; } \
        || bad "--hall, --broker, --tournament, --password-file and --ca-file are a hall's (not with --office or --venue)"
    [ -z "$HALLS" ] || bad "--halls is the office's or a venue's; a hall takes --hall HALL"
    LINK=1
fi
if [ "$ROLE" = office ] && [ -n "$HALLS" ] && [ -z "$VENUE" ] && [ -z "$EVENT_BROKER" ]; then
    check_halls "$HALLS"
elif [ -n "$VENUE" ] || [ -n "$EVENT_BROKER" ] || [ -n "$HALLS" ]; then
    [ -n "$VENUE" ] || bad "--event-broker goes with --venue NAME, --halls with --office or --venue NAME"
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
    check_halls "$HALLS"
fi
# A hall's office link: all four together, each checked as the daemon checks its [mqtt]
# table (firmware_py/linkconfig.py), so that the board starts with what is written.
if [ "$LINK" = 1 ]; then
    [ -n "$HALL" ] || bad "the office link needs --hall HALL (the hall id the office gave you)"
    is_name "$HALL" || bad "--hall '$HALL': use 1-64 letters, digits, '_', '.', '-'"
    case "$HALL" in
        office|display|standings) bad "--hall '$HALL': that is the broker's own user or level, not a hall id" ;;
        mirror-*) bad "--hall '$HALL': ids beginning with 'mirror-' are second boards' broker users (mirror-HALL)" ;;
    esac
    [ -n "$BROKER" ] || bad "--hall needs --broker mqtt://HOST:PORT (the office's broker)"
    if [[ "$BROKER" =~ ^(mqtts?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:([0-9]{1,5}))?/?$ ]]; then
        BROKER_TLS=0
        [ "${BASH_REMATCH[1]}" = mqtt ] || BROKER_TLS=1
        port=${BASH_REMATCH[4]:-1}
        if [ $((10#$port)) -lt 1 ] || [ $((10#$port)) -gt 65535 ]; then
            bad "--broker '$BROKER': port $port is not 1-65535"
        fi
    else
        bad "--broker '$BROKER': give mqtt://HOST:PORT or mqtts://HOST:PORT (e.g. mqtt://office.local:1883)"
    fi
    if [ "$BROKER_TLS" = 1 ] && [ -z "$CA_FILE" ]; then
        bad "--broker '$BROKER': mqtts:// needs --ca-file FILE (the broker's CA certificate)"
    fi
    if [ "$BROKER_TLS" = 0 ] && [ -n "$CA_FILE" ]; then
        bad "--ca-file goes with an mqtts:// broker, not '$BROKER'"
    fi
    [ -n "$TOURNAMENT" ] || bad "--hall needs --tournament ID (the id in the office's tournament file)"
    is_name "$TOURNAMENT" || bad "--tournament '$TOURNAMENT': use 1-64 letters, digits, '_', '.', '-'"
    [ -n "$PASSWORD_FILE" ] || bad "--hall needs --password-file FILE (the hall's broker password from the office)"
    { [ -f "$PASSWORD_FILE" ] && [ -r "$PASSWORD_FILE" ]; } \
        || bad "--password-file '$PASSWORD_FILE': no such readable file"
    HALL_PASSWORD=$(head -n1 "$PASSWORD_FILE" | tr -d '\r')
    [ -n "$HALL_PASSWORD" ] || bad "--password-file '$PASSWORD_FILE': its first line is empty (it holds the password)"
    if [ -n "$CA_FILE" ]; then
        { [ -f "$CA_FILE" ] && [ -r "$CA_FILE" ]; } || bad "--ca-file '$CA_FILE': no such readable file"
    fi
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
    apt_get update -qq
    apt_get install -y -qq "$@"
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
# mqtt_table CONFIG OUT: the hall config with the office link of the command line. Says
# "same" (its [mqtt] table is that already), "add" (it has none: OUT is CONFIG with the
# table appended, CONFIG's text untouched) or the keys in which its own [mqtt] differs.
mqtt_table() {
    HALL=$HALL BROKER=$BROKER TOURNAMENT=$TOURNAMENT CA_FILE=$CA_FILE \
        "$PYTHON" - "$1" "$2" <<'MQTT'
import json, os, sys, tomllib

config, out = sys.argv[1], sys.argv[2]
with open(config, "rb") as f:
    text = f.read().decode("utf-8")
want = {"broker": os.environ["BROKER"], "tournament": os.environ["TOURNAMENT"],
        "hall": os.environ["HALL"], "username": os.environ["HALL"],
        "password_file": "/etc/scoreboard/mqtt-password"}
if os.environ["CA_FILE"]:
    want["ca_file"] = "/etc/scoreboard/office-ca.crt"
try:
    have = tomllib.loads(text).get("mqtt")
except tomllib.TOMLDecodeError as err:
    sys.exit(f"install.sh: {config}: not valid TOML ({err}): fix it, then run this again")
if have is None:
    lines = ["", "# The office link, written by install.sh --hall (docs/technician.md, \"The broker\").",
             "[mqtt]"] + [f"{k} = {json.dumps(v)}" for k, v in want.items()]
    with open(out, "w", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")
    print("add")
elif have == want:
    print("same")
else:
    print(", ".join(sorted(k for k in want.keys() | have.keys() if have.get(k) != want.get(k))))
MQTT
}

say "Configuration"
unit_text() {  # the unit with the program's prefix
    sed "s#/opt/arena#$PREFIX#g" "$SRC/systemd/$1"
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Broker passwords (the office's halls, a venue's halls and its bridge): generated once,
# each in its own file (mode 600), and never printed.
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
# Mosquitto's password file, /etc/mosquitto/arena.passwd: a user is added (or its password
# replaced) with mosquitto_passwd, the password twice on its standard input (never on a
# command line, where `ps` would show it). With --root the file under DIR is written too
# when this machine has mosquitto_passwd (an image build, the tests), else it is skipped.
PASSWD=/etc/mosquitto/arena.passwd
has_user() {  # has_user FILE USER
    [ -f "$1" ] && cut -d: -f1 "$1" | grep -qxF -- "$2"
}
add_user() {  # add_user FILE USER PASSWORD-FILE
    local create=()
    [ -f "$1" ] || create=(-c)
    head -n1 "$3" | sed p | mosquitto_passwd "${create[@]}" "$1" "$2" >/dev/null
}
# passwd_user USER PASSWORD-FILE NEW: USER in the password file, from PASSWORD-FILE (its
# first line), when it is not there yet or NEW=1 (a new password). Sets MOSQUITTO_CHANGED=1.
passwd_user() {
    if ! is_real && ! command -v mosquitto_passwd >/dev/null; then
        say "  skipped (--root, no mosquitto_passwd here): add user $1 to $ROOT$PASSWD (from $2)"
        return 0
    fi
    if ! has_user "$ROOT$PASSWD" "$1" || [ "$3" = 1 ]; then
        change "add user $1 to $ROOT$PASSWD (mosquitto_passwd)" add_user "$ROOT$PASSWD" "$1" "$2"
        MOSQUITTO_CHANGED=1
    fi
}
restrict_passwd() { chown root:mosquitto "$1"; chmod 640 "$1"; }
# passwd_mode: the password file readable by mosquitto only (with --root: the mode only).
passwd_mode() {
    local f=$ROOT$PASSWD
    if is_real; then
        if [ ! -f "$f" ] || [ "$(stat -c %U:%G:%a "$f")" != root:mosquitto:640 ]; then
            change "chown root:mosquitto, chmod 640 $f" restrict_passwd "$f"
        fi
    elif [ -f "$f" ]; then
        [ "$(stat -c %a "$f")" = 640 ] || change "chmod 640 $f" chmod 640 "$f"
        say "  skipped (--root): chown root:mosquitto $f"
    fi
}

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
    config_changed=$WROTE
    # The office link (--hall ...): the password in its own file, readable by the service
    # only, the CA certificate for mqtts://, and the [mqtt] table. Both files come from the
    # command line and are replaced when they differ (a new password from the office).
    if [ "$LINK" = 1 ]; then
        printf '%s\n' "$HALL_PASSWORD" >"$TMP/mqtt-password"
        put_file "$TMP/mqtt-password" /etc/scoreboard/mqtt-password 640 root:scoreboard
        [ "$WROTE" = 0 ] || config_changed=1
        if [ -n "$CA_FILE" ]; then
            put_file "$CA_FILE" /etc/scoreboard/office-ca.crt 644
            [ "$WROTE" = 0 ] || config_changed=1
        fi
        config=/etc/scoreboard/scoreboard.toml
        from=$ROOT$config
        [ -e "$from" ] || from=$SRC/examples/scoreboard.toml  # --dry-run: not written
        link=$(mqtt_table "$from" "$TMP/scoreboard-link.toml")
        case $link in
            same) ;;
            add)
                change "add the [mqtt] table to $ROOT$config (hall $HALL at $BROKER)" \
                    install -m 644 "$TMP/scoreboard-link.toml" "$ROOT$config"
                config_changed=1 ;;
            *)
                say "  kept [mqtt] in $ROOT$config (yours): it differs from the command line in"
                say "    $link; edit it, or delete the table and run this again" ;;
        esac
    fi
elif [ "$ROLE" = office ]; then
    ensure_dir /etc/arena 755
    put_config "$SRC/examples/tournaments/000-ice-hockey.toml" /etc/arena/tournament.toml 644
    # The office's broker password: generated once, kept in its own file.
    office_new=0
    if [ ! -e "$ROOT/etc/arena/office-password" ]; then
        (umask 077; head -c 18 /dev/urandom | base64 | tr -d '\n=+/' >"$TMP/office-password"; echo >>"$TMP/office-password")
        change "write $ROOT/etc/arena/office-password (a new random password)" \
            install -m 640 "$TMP/office-password" "$ROOT/etc/arena/office-password"
        office_new=1
    fi
    set_owner /etc/arena/office-password root:office
    MOSQUITTO_CHANGED=0
    ensure_dir /etc/mosquitto/conf.d 755
    put_config "$SRC/systemd/mosquitto/arena.conf" /etc/mosquitto/conf.d/arena.conf 644
    [ "$WROTE" = 0 ] || MOSQUITTO_CHANGED=1
    put_config "$SRC/systemd/mosquitto/arena.acl" /etc/mosquitto/arena.acl 644
    [ "$WROTE" = 0 ] || MOSQUITTO_CHANGED=1
    # The password file (systemd/mosquitto/README.md): the office user, and one user per
    # hall of --halls, named by its hall id (arena.acl's pattern block gives each its own
    # topics), its password generated once into /etc/arena/hall-passwords/HALL, the
    # layout of a venue's. A re-run keeps every password and adds the halls that are new.
    # arena.conf makes every user name the client id: the office's persistent session is the
    # user `office`'s, one `office serve` per user (a second tournament on this broker needs a
    # user of its own: systemd/mosquitto/README.md, "Identity").
    HAND_MADE=()
    office_at=$ROOT/etc/arena/office-password
    [ -e "$office_at" ] || office_at=$TMP/office-password  # --dry-run: not written
    passwd_user office "$office_at" "$office_new"
    if [ "${#HALL_IDS[@]}" -gt 0 ]; then
        ensure_dir /etc/arena/hall-passwords 700
        for h in "${HALL_IDS[@]}"; do
            # A user made by hand before (mosquitto_passwd) has a password install.sh does
            # not know: kept, and a board that uses it keeps working.
            if [ ! -e "$ROOT/etc/arena/hall-passwords/$h" ] && has_user "$ROOT$PASSWD" "$h"; then
                say "  kept user $h in $ROOT$PASSWD (made by hand: its password is yours, not in"
                say "    /etc/arena/hall-passwords/$h); for a generated one: sudo mosquitto_passwd -D $PASSWD $h, then run this again"
                HAND_MADE+=("$h")
                continue
            fi
            keep_password "/etc/arena/hall-passwords/$h" "hall-$h"
            passwd_user "$h" "$PASSWORD_AT" "$NEW"
        done
    fi
    passwd_mode
    mosquitto_changed=$MOSQUITTO_CHANGED
    if [ "$mosquitto_changed" = 1 ]; then restart_mosquitto; fi
else
    # A venue's broker (docs/technician.md, "Several venues"): the event broker's arena.conf and arena.acl,
    # one user per hall, and the bridge to the event broker as the venue's own user.
    # A password each, generated once and kept in its own file (mode 600): the venue's for
    # the bridge (it also goes into the event broker's password file), a hall's for its board.
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
    MOSQUITTO_CHANGED=$mosquitto_changed
    for h in "${HALL_IDS[@]}"; do
        passwd_user "$h" "${hall_password[$h]}" "${hall_new[$h]}"
    done
    passwd_mode
    mosquitto_changed=$MOSQUITTO_CHANGED
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
    elif [ "${config_changed:-0}" = 1 ]; then
        say "  $UNIT is running with the old configuration: sudo systemctl restart ${UNIT%.service} when no game is on"
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
if [ "$ROLE" = hall ] && [ "$LINK" = 1 ]; then
    cat <<EOF
Next (docs/technician.md, "Running a hall"):
  1. The office link is set: hall $HALL of tournament $TOURNAMENT at $BROKER
     ([mqtt] in /etc/scoreboard/scoreboard.toml, the password in /etc/scoreboard/mqtt-password).
  2. systemctl status scoreboard           journalctl -u scoreboard -f
     (the office page shows the hall online once it connects; the log says why not)
EOF
elif [ "$ROLE" = hall ]; then
    cat <<EOF
Next (docs/technician.md, "Running a hall"):
  1. The office link: run the command the office's install printed for this hall,
       sudo ./install.sh --hall HALL --broker mqtt://OFFICE-HOST:1883 --tournament ID --password-file HALL.password
     (or set [mqtt] in /etc/scoreboard/scoreboard.toml by hand: docs/technician.md, "The broker")
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
    # The office's address for the halls: its host name, on the hall network through mDNS
    # (NAME.local: Raspberry Pi OS and Debian with avahi answer it).
    office_host=$(hostname 2>/dev/null || echo OFFICE-HOST)
    [[ "$office_host" == *.* ]] || office_host=$office_host.local
    # The halls' broker: plain MQTT on 1883 as arena.conf ships; mqtts:// on 8883 once its
    # TLS listener is enabled there (docs/technician.md, "The broker").
    hall_broker=mqtt://$office_host:1883
    tls_args=""
    tls_note=""
    if grep -q '^listener 8883' "$ROOT/etc/mosquitto/conf.d/arena.conf" 2>/dev/null; then
        hall_broker=mqtts://$office_host:8883
        tls_args=" --ca-file office-ca.crt"
        tls_note=$',\n     with the CA certificate of the TLS listener copied there as office-ca.crt'
    fi
    tournament_id=$("$PYTHON" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["id"])' \
        "$ROOT/etc/arena/tournament.toml" 2>/dev/null) || tournament_id="TOURNAMENT-ID"
    cat <<EOF
Next (docs/technician.md, "Running a hall", the office machine):
  1. Your tournament: edit /etc/arena/tournament.toml (examples/tournaments/README.md), then
     sudo systemctl restart office
EOF
    if [ "${#HALL_IDS[@]}" -gt 0 ]; then
        cat <<EOF
  2. Each hall's Pi: copy its password file there (a USB stick, or over SSH:
       sudo cat /etc/arena/hall-passwords/HALL | ssh PI 'cat >HALL.password'),
     then in the Arena Scoreboard checkout on that Pi run the line printed for it
     (tournament $tournament_id: the id in /etc/arena/tournament.toml now; another
     tournament file, another id: run this again to print the lines anew)$tls_note:
EOF
        for h in "${HALL_IDS[@]}"; do
            if [[ " ${HAND_MADE[*]} " == *" $h "* ]]; then
                say "       $h: (its broker user was made by hand: write its password into $h.password yourself)"
            fi
            say "       $h: sudo ./install.sh --hall $h --broker $hall_broker --tournament $tournament_id --password-file $h.password$tls_args"
        done
    else
        cat <<EOF
  2. The halls: run this again with their ids, e.g. sudo ./install.sh --office --halls hall-1,hall-2:
     a broker user and password each, and the line to run on each hall's Pi.
EOF
    fi
    cat <<EOF
     A user name is also the client id: one connection each. Never log in as office or as a
     hall for anything else; to watch the broker add a display user (systemd/mosquitto/README.md).
  3. The office page: http://$office_host:8080/
     systemctl status office mosquitto     journalctl -u office -f
EOF
fi
