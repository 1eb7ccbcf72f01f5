"""The systemd units: the settings a hall depends on, and `systemd-analyze verify` on both.

`systemd-analyze verify UNIT` refuses a unit whose ExecStart= binary does not exist, and ours
point at the Pi's /opt/arena/.venv. So the test builds a small root (``--root``, systemd 252
and later): the host's own system units (for sysinit.target and friends), our two units
unchanged in etc/systemd/system, and stub executables at opt/arena/.venv/bin. Verify then
checks the units exactly as they are installed. It exits 0 even for "Unknown key" and
"Failed to parse" warnings, so any output at all counts as a failure here.

Needs the `systemd` Debian package (for systemd-analyze); skipped, saying so, without it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.timesource import REALTIME_PRIORITY
from firmware_py import cli as scoreboard_cli
from office.cli import main as office_cli
from office.web import publicweb

ROOT = Path(__file__).resolve().parent.parent
UNITS = ROOT / "systemd"
PREFIX = "/opt/arena"
CONFIG = "/etc/scoreboard/scoreboard.toml"

Unit = dict[str, list[tuple[str, str]]]


def parse_unit(path: Path) -> Unit:
    """A unit file as {section: [(key, value), ...]}; keys may repeat, as systemd allows."""
    unit: Unit = {}
    section = ""
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = pending + raw.strip()
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("["):
            assert line.endswith("]"), f"{path.name}: bad section line {line!r}"
            section = line[1:-1]
            unit.setdefault(section, [])
            continue
        key, sep, value = line.partition("=")
        assert sep, f"{path.name}: not key=value: {line!r}"
        unit.setdefault(section, []).append((key.strip(), value.strip()))
    return unit


def values(unit: Unit, section: str, key: str) -> list[str]:
    return [v for k, v in unit.get(section, []) if k == key]


def value(unit: Unit, section: str, key: str) -> str:
    found = values(unit, section, key)
    assert found, f"[{section}] {key}= is missing"
    return found[-1]


def words(unit: Unit, section: str, key: str) -> list[str]:
    return [w for v in values(unit, section, key) for w in v.split()]


def environment(unit: Unit) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in values(unit, "Service", "Environment"):
        for item in shlex.split(line):
            name, _, val = item.partition("=")
            env[name] = val
    return env


def seconds(text: str) -> float:
    units = {"ms": 0.001, "s": 1.0, "sec": 1.0, "min": 60.0}
    for suffix, factor in sorted(units.items(), key=lambda kv: -len(kv[0])):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


@pytest.fixture(scope="module")
def hall() -> Unit:
    return parse_unit(UNITS / "scoreboard.service")


@pytest.fixture(scope="module")
def office() -> Unit:
    return parse_unit(UNITS / "office.service")


# --- scoreboard.service ----------------------------------------------------------------------

def test_hall_unit_is_a_notify_service_with_a_watchdog_that_always_restarts(hall: Unit) -> None:
    assert value(hall, "Service", "Type") == "notify"
    assert value(hall, "Service", "NotifyAccess") == "main"
    assert 0 < seconds(value(hall, "Service", "WatchdogSec")) <= 30
    assert value(hall, "Service", "Restart") == "always"
    assert seconds(value(hall, "Service", "RestartSec")) <= 2
    # In [Unit]: in [Service] systemd ignores it (with a warning), and a crash loop would then
    # end in "start request repeated too quickly" with the board dark.
    assert value(hall, "Unit", "StartLimitIntervalSec") == "0"
    assert not values(hall, "Service", "StartLimitIntervalSec")


def test_hall_unit_runs_the_daemon_and_turns_the_horn_off_after_it(hall: Unit) -> None:
    start = shlex.split(value(hall, "Service", "ExecStart"))
    assert start == [f"{PREFIX}/.venv/bin/scoreboard", "run", "--config", CONFIG]
    stop_post = shlex.split(value(hall, "Service", "ExecStopPost").lstrip("-+!@:"))
    assert stop_post == [f"{PREFIX}/.venv/bin/scoreboard", "horn-off", "--config", CONFIG]


def test_hall_unit_command_lines_are_accepted_by_the_scoreboard_command(hall: Unit) -> None:
    parser = scoreboard_cli.build_parser()
    for key in ("ExecStart", "ExecStopPost"):
        argv = shlex.split(value(hall, "Service", key).lstrip("-+!@:"))[1:]
        try:
            parser.parse_args(argv)
        except SystemExit as err:
            pytest.fail(f"{key}: `scoreboard {' '.join(argv)}` is refused (exit {err.code})")


def test_hall_unit_user_groups_and_writable_directories(hall: Unit) -> None:
    assert value(hall, "Service", "User") == "scoreboard"
    assert {"gpio", "video", "render", "input", "dialout", "audio"} <= set(
        words(hall, "Service", "SupplementaryGroups"))
    assert value(hall, "Service", "StateDirectory") == "scoreboard"
    assert value(hall, "Service", "WorkingDirectory") == "/var/lib/scoreboard"
    env = environment(hall)
    # lgpio makes its FIFO in $LG_WD (else the working directory): it must be writable.
    runtime = value(hall, "Service", "RuntimeDirectory")
    assert env["LG_WD"] == f"/run/{runtime}"


def test_hall_unit_selects_lgpio_kmsdrm_and_real_time_scheduling(hall: Unit) -> None:
    env = environment(hall)
    assert env["GPIOZERO_PIN_FACTORY"] == "lgpio"
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert env["SDL_AUDIODRIVER"] == "alsa"  # the audio horn; no sound server to probe for
    assert value(hall, "Service", "CPUSchedulingPolicy") == "fifo"
    # The deadline thread asks for exactly this priority (timing.make_realtime).
    assert int(value(hall, "Service", "CPUSchedulingPriority")) == REALTIME_PRIORITY
    assert int(value(hall, "Service", "LimitRTPRIO")) >= REALTIME_PRIORITY
    # RestrictRealtime=yes would forbid SCHED_FIFO to the daemon.
    assert values(hall, "Service", "RestrictRealtime") in ([], ["no"])


def test_hall_unit_keeps_the_devices_it_needs_and_nothing_else(hall: Unit) -> None:
    # PrivateDevices=yes hides /dev/gpiochip* and /dev/dri (docs/developer.md, "Dependency facts").
    assert values(hall, "Service", "PrivateDevices") in ([], ["no"])
    assert value(hall, "Service", "DevicePolicy") == "closed"
    allowed = {tuple(v.split()) for v in values(hall, "Service", "DeviceAllow")}
    for needed in [("char-gpiochip", "rw"), ("char-drm", "rw"), ("char-input", "r"),
                   ("char-ttyUSB", "rw"), ("char-ttyACM", "rw"), ("char-ttyAMA", "rw"),
                   ("/dev/serial0", "rw"), ("char-alsa", "rw")]:
        assert needed in allowed, f"DeviceAllow={' '.join(needed)} is missing"


def test_hall_unit_is_hardened(hall: Unit) -> None:
    for key, expected in [("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                          ("PrivateTmp", "yes"), ("NoNewPrivileges", "yes"),
                          ("ProtectKernelTunables", "yes"), ("ProtectKernelModules", "yes"),
                          ("ProtectControlGroups", "yes"), ("LockPersonality", "yes"),
                          ("RestrictNamespaces", "yes"), ("SystemCallArchitectures", "native")]:
        assert value(hall, "Service", key) == expected, key
    families = set(words(hall, "Service", "RestrictAddressFamilies"))
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    # The daemon reads the boot id to tell a crash from a power cut: /proc/sys must stay.
    assert values(hall, "Service", "ProcSubset") in ([], ["all"])


def test_hall_unit_never_waits_for_the_network_or_the_clock(hall: Unit) -> None:
    ordering = words(hall, "Unit", "After") + words(hall, "Unit", "Wants")
    # In a hall without internet time-sync.target may never come (docs/developer.md, "Dependency
    # facts").
    assert "time-sync.target" not in ordering
    assert not values(hall, "Unit", "Requires")
    assert not values(hall, "Unit", "BindsTo")
    assert "network-online.target" not in ordering
    assert words(hall, "Install", "WantedBy") == ["multi-user.target"]


# --- office.service --------------------------------------------------------------------------

def test_office_unit_runs_office_serve_after_the_broker(office: Unit) -> None:
    assert value(office, "Service", "Type") == "simple"
    assert value(office, "Service", "User") == "office"
    assert value(office, "Service", "StateDirectory") == "office"
    assert value(office, "Service", "Restart") == "always"
    assert value(office, "Unit", "StartLimitIntervalSec") == "0"
    assert "mosquitto.service" in words(office, "Unit", "After")
    assert "mosquitto.service" in words(office, "Unit", "Wants")
    assert not values(office, "Unit", "Requires")  # a broker restart must not stop the office
    argv = shlex.split(value(office, "Service", "ExecStart"))
    assert argv[:2] == [f"{PREFIX}/.venv/bin/office", "serve"]
    args = office_cli.build_parser().parse_args(argv[1:])
    assert str(args.tournament) == "/etc/arena/tournament.toml"
    assert str(args.db) == "/var/lib/office/office.sqlite"
    assert args.broker == "mqtt://127.0.0.1:1883"
    assert args.http == 8080
    assert args.username == "office"
    assert str(args.password_file) == "/etc/arena/office-password"
    assert words(office, "Install", "WantedBy") == ["multi-user.target"]


def test_office_unit_is_hardened(office: Unit) -> None:
    for key, expected in [("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                          ("PrivateTmp", "yes"), ("PrivateDevices", "yes"),
                          ("NoNewPrivileges", "yes"), ("MemoryDenyWriteExecute", "yes")]:
        assert value(office, "Service", key) == expected, key


def test_office_unit_has_descriptors_for_the_public_sites_connections(office: Unit) -> None:
    # The public site (a drop-in's --public-port) holds a thread and a descriptor per open
    # connection, each closed after IDLE_S idle: the default soft limit (1,024) is less
    # than a rush of phones after a goal, or a flood of idle connections, keeps open.
    assert int(value(office, "Service", "LimitNOFILE")) >= 8192
    assert 0 < publicweb.IDLE_S <= 60
    assert publicweb._Handler.timeout == publicweb.IDLE_S


# --- systemd-analyze verify ------------------------------------------------------------------

def _analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.skip("systemd-analyze not installed (Debian package `systemd`): units not "
                    "verified")
    return found


def _host_unit_dir() -> Path:
    for candidate in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")):
        if (candidate / "sysinit.target").exists():
            return candidate
    pytest.skip("no systemd system units on this machine (sysinit.target): cannot verify")


def _verify(tmp_path: Path, units: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """systemd-analyze verify on ``units`` (name: text) in a root with stub executables."""
    analyze = _analyze()
    root = tmp_path / "root"
    shutil.copytree(_host_unit_dir(), root / "usr/lib/systemd/system", symlinks=True)
    etc = root / "etc/systemd/system"
    etc.mkdir(parents=True)
    for name, text in units.items():
        (etc / name).write_text(text, encoding="utf-8")
    bin_dir = root / PREFIX.lstrip("/") / ".venv/bin"
    bin_dir.mkdir(parents=True)
    for exe in ("scoreboard", "office"):
        (bin_dir / exe).write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (bin_dir / exe).chmod(0o755)
    return subprocess.run(
        [analyze, "verify", "--man=no", "--generators=no", f"--root={root}", *units],
        capture_output=True, text=True, check=False, timeout=60)


@pytest.mark.slow
def test_systemd_analyze_verify_passes_on_both_units(tmp_path: Path) -> None:
    units = {name: (UNITS / name).read_text(encoding="utf-8")
             for name in ("scoreboard.service", "office.service")}
    done = _verify(tmp_path, units)
    output = (done.stdout + done.stderr).strip()
    assert done.returncode == 0 and not output, f"systemd-analyze verify:\n{output}"


@pytest.mark.slow
def test_systemd_analyze_verify_would_catch_a_mistake(tmp_path: Path) -> None:
    # The check above is only worth something if verify speaks up: a misspelt key, a bad
    # value and a missing binary must each show in its output.
    text = (UNITS / "scoreboard.service").read_text(encoding="utf-8")
    broken = (text.replace("WatchdogSec=10s", "WatchdogSec=ten\nWatchdogSek=10s")
              .replace(".venv/bin/scoreboard run", ".venv/bin/scorebored run"))
    assert broken != text
    done = _verify(tmp_path, {"scoreboard.service": broken})
    output = done.stdout + done.stderr
    assert "WatchdogSek" in output
    assert "ten" in output
    assert "scorebored" in output
    assert done.returncode != 0
