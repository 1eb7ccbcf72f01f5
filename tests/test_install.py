"""install.sh, run against a temporary root (``--root DIR``): the files it writes, that a
second run changes nothing and says so, that it never overwrites a configuration, and that
``--dry-run`` writes nothing. With ``--root`` the script prints, and does not run, what would
change the machine itself (apt-get, users, chown, the venv, systemctl), so these tests need
neither root nor a Pi and leave the machine alone.

The script runs from a frozen copy of the checkout, so that an edit made while the tests run
cannot look like a change between two runs."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from firmware_py import config as daemon_config

pytestmark = pytest.mark.slow  # every test here starts a process

CHECKOUT = Path(__file__).resolve().parent.parent
SCRIPT = CHECKOUT / "install.sh"  # the file itself, for the static checks
LEFT_OUT = (".git", ".venv", "build", "dist", "__pycache__", "*.egg-info", ".pytest_cache",
            ".mypy_cache", ".ruff_cache", ".hypothesis")


@pytest.fixture(scope="session")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout, install.sh included, that nothing edits during the tests."""
    frozen = tmp_path_factory.mktemp("checkout") / "arena"
    shutil.copytree(CHECKOUT, frozen, symlinks=True, ignore=shutil.ignore_patterns(*LEFT_OUT))
    return frozen


def install(repo: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(repo / "install.sh"), *map(str, args)],
                          capture_output=True, text=True, check=False, timeout=120)


def ok(repo: Path, *args: str | Path) -> str:
    done = install(repo, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def snapshot(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry under root: (kind and mode, mtime, content hash)."""
    found: dict[str, tuple[str, int, str]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        found[str(path.relative_to(root))] = (oct(st.st_mode), st.st_mtime_ns, digest)
    return found


@pytest.fixture(scope="module")
def hall_root(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("hall") / "root"
    return root, ok(repo, "--root", root)


@pytest.fixture(scope="module")
def office_root(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("office") / "root"
    return root, ok(repo, "--office", "--root", root)


def test_script_is_valid_bash() -> None:
    done = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert os.access(SCRIPT, os.X_OK), "install.sh must be executable: sudo ./install.sh"


def test_script_is_shellcheck_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (Debian package `shellcheck`)")
    done = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_help_lists_every_option(repo: Path) -> None:
    text = ok(repo, "--help")
    for option in ("--office", "--prefix", "--no-start", "--dry-run", "--root", "--help",
                   "--venue", "--event-broker", "--halls", "--hall", "--broker",
                   "--tournament", "--password-file", "--ca-file", "ARENA_APT_WAIT_S"):
        assert option in text
    assert "set -e" not in text  # the help ends where the comment ends


def test_unknown_option_is_refused(repo: Path) -> None:
    done = install(repo, "--ofice")
    assert done.returncode == 2
    assert "--ofice" in done.stderr


def test_relative_prefix_is_refused(repo: Path, tmp_path: Path) -> None:
    done = install(repo, "--root", tmp_path, "--prefix", "opt/arena")
    assert done.returncode == 2
    assert "absolute" in done.stderr


def test_hall_install_writes_the_program_the_config_and_the_unit(
        repo: Path, hall_root: tuple[Path, str]) -> None:
    root, out = hall_root
    prefix = root / "opt/arena"
    assert (prefix / "pyproject.toml").read_bytes() == (repo / "pyproject.toml").read_bytes()
    assert (prefix / "firmware_py/cli.py").is_file()
    assert (prefix / "install.sh").is_file()
    for left_out in (".git", ".venv", "build"):
        assert not (prefix / left_out).exists(), left_out
    assert not list(prefix.rglob("__pycache__"))
    assert not list(prefix.rglob("*.egg-info"))
    unit = root / "etc/systemd/system/scoreboard.service"
    assert unit.read_text() == (repo / "systemd/scoreboard.service").read_text()
    assert not (root / "etc/systemd/system/office.service").exists()
    # What needs the real machine is named, not done.
    for step in ("apt-get install", "python3-lgpio", "create system user scoreboard",
                 "venv --system-site-packages", "systemctl enable --now scoreboard.service"):
        assert step in out, step
    assert "mosquitto" not in out  # the broker is the office machine's


def test_hall_config_is_the_documented_default_and_loads(
        repo: Path, hall_root: tuple[Path, str]) -> None:
    root, _ = hall_root
    config = root / "etc/scoreboard/scoreboard.toml"
    example = repo / "examples/scoreboard.toml"
    if example.exists():
        assert config.read_bytes() == example.read_bytes()
    data = tomllib.loads(config.read_text())
    assert data.get("state", {}).get("dir", "/var/lib/scoreboard") == "/var/lib/scoreboard"
    daemon_config.load(config)  # the daemon's own checks: every key known and valid


def test_second_hall_run_changes_nothing_and_says_so(
        repo: Path, hall_root: tuple[Path, str]) -> None:
    root, _ = hall_root
    before = snapshot(root)
    out = ok(repo, "--root", root)
    assert "Nothing to do" in out
    assert "(no changes)" in out
    assert snapshot(root) == before


def test_an_edited_config_is_kept(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ok(repo, "--root", root)
    config = root / "etc/scoreboard/scoreboard.toml"
    config.write_text('[log]\nlevel = "debug"\n')
    out = ok(repo, "--root", root)
    assert config.read_text() == '[log]\nlevel = "debug"\n'
    assert f"kept {config}" in out
    assert "Nothing to do" in out


def test_stale_files_go_the_venv_and_build_stay(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ok(repo, "--root", root)
    prefix = root / "opt/arena"
    (prefix / "firmware_py/gone.py").write_text("# removed from the checkout\n")
    (prefix / "old/deeper").mkdir(parents=True)
    (prefix / "old/deeper/x.txt").write_text("x\n")
    (prefix / "README.md").write_text("changed on the Pi by hand\n")
    (prefix / ".venv/bin").mkdir(parents=True)
    (prefix / ".venv/bin/python").write_text("venv\n")
    (prefix / "build").mkdir()  # pip's in-tree build
    out = ok(repo, "--root", root)
    assert "copy 1 file(s)" in out and "remove 2 stale one(s)" in out
    assert not (prefix / "firmware_py/gone.py").exists()
    assert not (prefix / "old").exists()
    assert (prefix / "README.md").read_bytes() == (repo / "README.md").read_bytes()
    assert (prefix / ".venv/bin/python").read_text() == "venv\n"
    assert (prefix / "build").is_dir()


def test_prefix_is_written_into_the_unit(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = ok(repo, "--root", root, "--prefix", "/srv/arena/", "--no-start")
    assert (root / "srv/arena/pyproject.toml").is_file()
    assert not (root / "opt").exists()
    unit = (root / "etc/systemd/system/scoreboard.service").read_text()
    assert "ExecStart=/srv/arena/.venv/bin/scoreboard run" in unit
    assert "ExecStopPost=/srv/arena/.venv/bin/scoreboard horn-off" in unit
    assert "/opt/arena" not in unit
    assert "systemctl enable scoreboard.service" in out  # --no-start: enabled, not started
    assert "--now" not in out


def test_dry_run_writes_nothing(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = ok(repo, "--dry-run", "--root", root)
    assert not root.exists()
    assert "would: copy" in out
    assert "would: write" in out
    assert "nothing was changed" in out


def test_office_install_writes_tournament_broker_config_password_and_unit(
        repo: Path, office_root: tuple[Path, str]) -> None:
    root, out = office_root
    assert (root / "opt/arena/office/cli/main.py").is_file()
    assert ((root / "etc/arena/tournament.toml").read_bytes()
            == (repo / "examples/tournaments/000-ice-hockey.toml").read_bytes())
    for name, dest in (("arena.conf", "etc/mosquitto/conf.d/arena.conf"),
                       ("arena.acl", "etc/mosquitto/arena.acl")):
        assert (root / dest).read_bytes() == (repo / "systemd/mosquitto" / name).read_bytes()
    password = root / "etc/arena/office-password"
    assert len(password.read_text().strip()) >= 16
    assert password.stat().st_mode & 0o777 == 0o640
    unit = root / "etc/systemd/system/office.service"
    assert unit.read_text() == (repo / "systemd/office.service").read_text()
    assert not (root / "etc/systemd/system/scoreboard.service").exists()
    assert not (root / "etc/scoreboard").exists()
    for step in ("mosquitto", "create system user office", "mosquitto_passwd",
                 "systemctl enable --now office.service"):
        assert step in out, step
    assert "python3-lgpio" not in out


def test_second_office_run_changes_nothing_and_keeps_the_password(
        repo: Path, office_root: tuple[Path, str]) -> None:
    root, _ = office_root
    before = snapshot(root)
    out = ok(repo, "--office", "--root", root)
    assert "Nothing to do" in out
    assert snapshot(root) == before


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_office_broker_config_loads_beside_debians_mosquitto_conf(
        office_root: tuple[Path, str], tmp_path: Path) -> None:
    """arena.conf goes into /etc/mosquitto/conf.d, included by Debian's own mosquitto.conf:
    together they must start a broker (mosquitto refuses, for example, a setting that may
    appear once, such as persistence_location, given in both)."""
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(mosquitto).exists():
        pytest.skip("mosquitto not installed (./quickstart.sh test installs it)")
    root, _ = office_root
    port = _free_port()
    data = tmp_path / "data"
    confd = tmp_path / "conf.d"
    data.mkdir()
    confd.mkdir()
    (tmp_path / "arena.passwd").write_text("")
    shutil.copy(root / "etc/mosquitto/arena.acl", tmp_path / "arena.acl")
    # The installed file, with the test's port and paths for the machine's.
    conf = (root / "etc/mosquitto/conf.d/arena.conf").read_text()
    conf = (conf.replace("listener 1883\n", f"listener {port} 127.0.0.1\n")
            .replace("/etc/mosquitto/arena.passwd", str(tmp_path / "arena.passwd"))
            .replace("/etc/mosquitto/arena.acl", str(tmp_path / "arena.acl"))
            .replace("/var/lib/mosquitto/", f"{data}/"))
    assert f"listener {port} " in conf
    (confd / "arena.conf").write_text(conf)
    # Debian 12's /etc/mosquitto/mosquitto.conf (package mosquitto 2.0.11), paths moved;
    # `user root`: as root mosquitto would drop to a user that cannot read the test's files.
    main = tmp_path / "mosquitto.conf"
    main.write_text(f"persistence true\npersistence_location {data}/\n"
                    f"log_dest file {tmp_path}/mosquitto.log\ninclude_dir {confd}\n"
                    "user root\n")
    proc = subprocess.Popen([mosquitto, "-c", str(main)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 10
        listening = False
        while proc.poll() is None and time.monotonic() < deadline and not listening:
            with socket.socket() as s:
                s.settimeout(0.2)
                listening = s.connect_ex(("127.0.0.1", port)) == 0
            time.sleep(0.05)
        if not listening:
            proc.kill()
            output = proc.communicate(timeout=10)[0]
            pytest.fail(f"mosquitto does not start with the installed arena.conf:\n{output}")
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.communicate(timeout=10)


VENUE = ("--venue", "north", "--event-broker", "event.local", "--halls", "hall-1,hall-2")


@pytest.mark.parametrize(("args", "says"), [
    (("--venue", "north"), "--event-broker"),
    (("--venue", "north", "--event-broker", "e"), "--halls"),
    (("--halls", "hall-1"), "--halls with --office or --venue"),
    (("--venue", "--halls"), "--venue needs a value"),
    (("--venue", "no/rth", "--event-broker", "e", "--halls", "h"), "'no/rth'"),
    (("--venue", "office", "--event-broker", "e", "--halls", "h"), "'office'"),
    (("--venue", "v", "--event-broker", "e:70000", "--halls", "h"), "port 70000"),
    (("--venue", "v", "--event-broker", "mqtt://e", "--halls", "h"), "HOST:PORT"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,h"), "'h' twice"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,,i"), "hall id ''"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,standings"), "'standings'"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,mirror-h"), "'mirror-h'"),
    (("--venue", "v", "--event-broker", "e", "--halls", "v"), "venue's own user"),
    (("--office", *VENUE), "choose one"),
])
def test_bad_venue_options_are_refused_clearly(repo: Path, tmp_path: Path,
                                               args: tuple[str, ...], says: str) -> None:
    done = install(repo, *args, "--root", tmp_path / "root")
    assert done.returncode == 2, done.stdout
    assert says in done.stderr and done.stderr.startswith("install.sh: ")
    assert not (tmp_path / "root").exists() or not any((tmp_path / "root").iterdir())


def test_venue_install_writes_the_broker_files_only(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = ok(repo, *VENUE, "--root", root)
    for name, dest in (("arena.conf", "etc/mosquitto/conf.d/arena.conf"),
                       ("arena.acl", "etc/mosquitto/arena.acl")):
        assert (root / dest).read_bytes() == (repo / "systemd/mosquitto" / name).read_bytes()
    bridge = (root / "etc/mosquitto/conf.d/arena-venue.conf").read_text()
    assert "address event.local:1883\n" in bridge  # the default port
    for secret in ("etc/arena/venue-password", "etc/arena/hall-passwords/hall-1",
                   "etc/arena/hall-passwords/hall-2"):
        assert (root / secret).stat().st_mode & 0o777 == 0o600, secret
    assert (root / "etc/arena/event-side/north.acl").is_file()
    # Mosquitto only: no program, no venv, no service of ours.
    assert not (root / "opt").exists() and not (root / "etc/systemd").exists()
    assert "mosquitto mosquitto-clients" in out and "python3-venv" not in out
    assert "mosquitto_passwd /etc/mosquitto/arena.passwd north" in out  # the event side


def test_second_venue_run_changes_nothing_and_a_new_hall_changes_the_bridge(
        repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ok(repo, *VENUE, "--root", root)
    bridge = root / "etc/mosquitto/conf.d/arena-venue.conf"
    password = (root / "etc/arena/venue-password").read_text()
    before = snapshot(root)
    assert "Nothing to do" in ok(repo, *VENUE, "--root", root)
    assert snapshot(root) == before
    out = ok(repo, *VENUE[:-1], "hall-1,hall-2,hall-3", "--root", root)
    assert f"install {bridge}" in out
    assert "topic arena/v1/+/hall-3/events out 1" in bridge.read_text()
    assert (root / "etc/arena/venue-password").read_text() == password  # kept
    assert (root / "etc/arena/hall-passwords/hall-3").is_file()
    assert "topic write arena/v1/+/hall-3/events" in (
        root / "etc/arena/event-side/north.acl").read_text()


def test_venue_dry_run_writes_nothing(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = ok(repo, *VENUE, "--dry-run", "--root", root)
    assert not root.exists()
    assert "would: install" in out and "nothing was changed" in out


# --- A fresh Debian 12: no compiler, and updates with no network ---------------------------
# install.sh's own functions, run alone with fakes in place of the machine (a venv's python
# that records its command line, a /dev, a device-tree model): what needs root and a real
# Debian (apt, the venv, pip against PyPI, systemctl in a chroot) is the device harness's.

def script_function(*names: str) -> str:
    """The definitions of install.sh's functions NAMES, as the script has them."""
    text = SCRIPT.read_text()
    found = []
    for name in names:
        start = text.index(f"\n{name}() {{") + 1
        end = text.index("\n}\n", start) + 3
        found.append(text[start:end])
    return "".join(found)


def run_functions(names: tuple[str, ...], body: str,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    program = ("set -euo pipefail\nsay() { printf '%s\\n' \"$*\"; }\nPYTHON=python3\n"
               + script_function(*names) + body)
    return subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=False,
                          timeout=60, env={**os.environ, **(env or {})})


def fake_venv(tmp_path: Path, exit_code: int = 0) -> Path:
    """A venv whose python records each command line (one per line) and exits exit_code."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin/python"
    python.write_text(f'#!/bin/sh\necho "$*" >>"{venv}/calls"\nexit {exit_code}\n')
    python.chmod(0o755)
    return venv


PIP_FUNCTIONS = ("pip_cmd", "pip_install", "pip_update")


def pip_run(venv: Path, call: str) -> subprocess.CompletedProcess[str]:
    return run_functions(PIP_FUNCTIONS, f"""
PREFIX=/opt/arena EXTRA='[hall]' UNIT=scoreboard.service
{call} "{venv}" "{venv}/.arena-installed-new" "{venv}/.arena-deps-new"
""")


CHANGE = "change() { local what=$1; shift; say \"  $what\"; \"$@\"; }\n"


@pytest.mark.parametrize(("before", "offline_first", "says"), [
    # The first install: the dependencies from PyPI.
    ((), False, "wheels from PyPI"),
    # Our code changed, the dependencies did not: no network.
    ((".arena-installed-old", ".arena-deps-new"), True, "no network: its dependencies"),
    # The dependencies changed: said plainly, then PyPI.
    ((".arena-installed-old", ".arena-deps-old"), False, "this update needs the internet"),
    # Installed by an install.sh that kept no dependency stamp: no index first.
    ((".arena-installed-old",), True, "no network if its dependencies are all installed"),
])
def test_the_update_needs_the_network_only_for_new_dependencies(
        tmp_path: Path, before: tuple[str, ...], offline_first: bool, says: str) -> None:
    venv = fake_venv(tmp_path)
    for name in before:
        (venv / name).touch()
    done = run_functions(("venv_install", *PIP_FUNCTIONS), CHANGE + f"""
PREFIX=/opt/arena EXTRA='[hall]' UNIT=scoreboard.service
venv_install "{venv}" "{venv}/.arena-installed-new" "{venv}/.arena-deps-new"
""")
    assert done.returncode == 0, done.stderr
    assert says in done.stdout
    [argv] = calls(venv)
    assert ("--no-index" in argv) == offline_first
    assert ("--only-binary" in argv) != offline_first
    assert sorted(p.name for p in venv.glob(".arena-*")) == [".arena-deps-new",
                                                            ".arena-installed-new"]


def calls(venv: Path) -> list[list[str]]:
    return [line.split() for line in (venv / "calls").read_text().splitlines()]


def test_first_install_takes_wheels_only_and_builds_with_debians_setuptools(
        tmp_path: Path) -> None:
    venv = fake_venv(tmp_path)
    (venv / ".arena-deps-old").touch()
    done = pip_run(venv, "pip_install")
    assert done.returncode == 0, done.stderr
    [argv] = calls(venv)
    assert argv[:3] == ["-m", "pip", "install"]
    assert "--no-build-isolation" in argv  # setuptools and wheel from Debian, no download
    at = argv.index("--only-binary")
    assert argv[at + 1] == ":all:"  # a dependency without a wheel fails, never compiles
    assert "--no-index" not in argv
    assert argv[-1] == "/opt/arena[hall]"
    # Both stamps: the sources and the dependency list are installed; old ones are gone.
    assert sorted(p.name for p in venv.glob(".arena-*")) == [".arena-deps-new",
                                                            ".arena-installed-new"]


def test_an_update_of_our_code_installs_with_no_index(tmp_path: Path) -> None:
    venv = fake_venv(tmp_path)
    (venv / ".arena-installed-old").touch()
    (venv / ".arena-deps-new").touch()
    done = pip_run(venv, "pip_update")
    assert done.returncode == 0, done.stderr
    [argv] = calls(venv)
    assert "--no-index" in argv and "--no-build-isolation" in argv
    assert "--only-binary" not in argv  # nothing is downloaded, so nothing to choose
    assert sorted(p.name for p in venv.glob(".arena-*")) == [".arena-deps-new",
                                                            ".arena-installed-new"]


def test_a_failed_dependency_download_says_the_old_version_stays(tmp_path: Path) -> None:
    venv = fake_venv(tmp_path, exit_code=1)
    (venv / ".arena-installed-old").touch()
    (venv / ".arena-deps-old").touch()
    done = pip_run(venv, "pip_update")
    assert done.returncode == 1
    # First with no index, then with the internet: both failed.
    assert ["--no-index" in argv for argv in calls(venv)] == [True, False]
    assert "a dependency is missing" in done.stdout
    assert "The version installed before is still in" in done.stderr
    assert "a running scoreboard.service keeps running it" in done.stderr
    assert "run install.sh again with the internet" in done.stderr
    # Nothing claims the new version: the next run tries again.
    assert sorted(p.name for p in venv.glob(".arena-*")) == [".arena-deps-old",
                                                            ".arena-installed-old"]


def test_a_failed_first_install_does_not_speak_of_an_old_version(tmp_path: Path) -> None:
    venv = fake_venv(tmp_path, exit_code=1)
    done = pip_run(venv, "pip_install")
    assert done.returncode == 1
    assert "could not install the dependencies" in done.stderr
    assert "installed before" not in done.stderr
    assert not list(venv.glob(".arena-*"))


def deps_hash(pyproject: Path, extra: str) -> str:
    done = run_functions(("deps_hash",), f'deps_hash "{pyproject}" "{extra}"\n')
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_dependency_stamp_follows_the_roles_dependencies_only(tmp_path: Path) -> None:
    text = (CHECKOUT / "pyproject.toml").read_text()
    base = tmp_path / "pyproject.toml"
    base.write_text(text)
    hall, office = deps_hash(base, "[hall]"), deps_hash(base, "[office]")
    assert len(hall) == 16 and int(hall, 16) >= 0
    assert hall != office
    # Our own code, its description or the dev tools: the same stamp (no network needed).
    base.write_text(text.replace('version = "0.1.0"', 'version = "0.1.1"')
                    .replace('"ruff>=0.5"', '"ruff>=0.6"'))
    assert deps_hash(base, "[hall]") == hall
    # A dependency of the role: another stamp (pip must fetch it).
    base.write_text(text.replace('"pyserial>=3.5"', '"pyserial>=3.6"'))
    assert deps_hash(base, "[hall]") != hall
    assert deps_hash(base, "[office]") == office
    base.write_text(text.replace('"Jinja2>=3.1"', '"Jinja2>=3.1.4"'))
    assert deps_hash(base, "[office]") != office


def gpio_report(tmp_path: Path, *, lgpio: bool, chips: tuple[str, ...],
                model: str | None) -> str:
    python = tmp_path / "python3"
    # The fake python: `import lgpio` works or fails, as a real one would.
    python.write_text(f"#!/bin/sh\nexit {0 if lgpio else 1}\n")
    python.chmod(0o755)
    dev = tmp_path / "dev"
    dev.mkdir()
    for chip in chips:
        (dev / chip).touch()
    model_file = tmp_path / "model"
    if model is not None:
        model_file.write_bytes(model.encode() + b"\0")  # the device tree ends it with NUL
    done = run_functions(("gpio_report",), f'gpio_report "{python}" "{dev}" "{model_file}"\n')
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_gpio_report_on_debian_on_a_pi_with_lgpio_from_elsewhere(tmp_path: Path) -> None:
    out = gpio_report(tmp_path, lgpio=True, chips=("gpiochip0", "gpiochip1"),
                      model="Raspberry Pi 4 Model B Rev 1.4")
    assert f"lgpio: imports in {tmp_path}/python3" in out
    assert f"GPIO chips: {tmp_path}/dev/gpiochip0 {tmp_path}/dev/gpiochip1" in out
    assert 'Raspberry Pi 4 Model B Rev 1.4: [gpio] pin_factory = "auto" means lgpio' in out
    assert "can use the pins" in out
    assert "mock" not in out  # nothing is missing: no talk of running without pins


def test_gpio_report_on_a_pi_without_lgpio(tmp_path: Path) -> None:
    out = gpio_report(tmp_path, lgpio=False, chips=("gpiochip0",),
                      model="Raspberry Pi 5 Model B Rev 1.0")
    assert "lgpio: does not import" in out and "python3-lgpio" in out
    assert "GPIO chips: " + str(tmp_path / "dev/gpiochip0") in out
    assert "cannot open" in out and 'pin_factory = "mock"' in out


def test_gpio_report_on_a_pc(tmp_path: Path) -> None:
    out = gpio_report(tmp_path, lgpio=False, chips=(), model=None)
    assert "lgpio: does not import" in out
    assert "GPIO chips: none" in out
    assert 'not a Raspberry Pi (no ' in out and '"auto" means mock pins' in out
    assert "can use the pins" not in out


def test_gpio_report_on_a_pc_with_lgpio_and_a_gpio_chip(tmp_path: Path) -> None:
    # A USB GPIO adapter on a PC, say: auto still means mock (the model decides), and the
    # report says how to use the chips instead.
    out = gpio_report(tmp_path, lgpio=True, chips=("gpiochip0",), model="Generic board")
    assert "lgpio: imports" in out
    assert 'not a Raspberry Pi (Generic board): [gpio] pin_factory = "auto" means mock' in out
    assert 'pin_factory = "lgpio" in the config would use these chips' in out


def test_hall_packages_come_from_debian_with_the_build_tools(
        hall_root: tuple[Path, str], office_root: tuple[Path, str]) -> None:
    for (_, out), wanted in ((hall_root, ("python3-venv", "python3-setuptools", "python3-wheel",
                                          "python3-evdev", "python3-lgpio")),
                             (office_root, ("python3-venv", "python3-setuptools",
                                            "python3-wheel", "mosquitto"))):
        [line] = [x for x in out.splitlines() if "apt-get install (if missing)" in x]
        packages = line.split("(if missing)")[1].split()
        for package in wanted:
            assert package in packages, (package, line)
    assert "python3-evdev" not in office_root[1]
    assert "--no-build-isolation --only-binary :all:" in hall_root[1]


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def lower_bound(requirement: str, name: str) -> tuple[int, ...]:
    """The ">=" bound of a requirement that has only that one (else the test fails)."""
    spec = requirement.split(";", maxsplit=1)[0].strip()
    assert spec.startswith(name), requirement
    bounds = [b.strip() for b in spec[len(name):].split(",") if b.strip()]
    assert len(bounds) == 1 and bounds[0].startswith(">="), requirement
    return version(bounds[0][2:])


def test_the_build_and_evdev_need_no_more_than_debian_12_ships() -> None:
    pyproject = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())
    # Debian 12 (Bookworm): python3-setuptools 66.1.1, python3-wheel 0.38.4, python3-evdev 1.6.1.
    requires = {r.split(">")[0].split("=")[0].strip(): r for r in
                pyproject["build-system"]["requires"]}
    assert set(requires) == {"setuptools", "wheel"}
    assert lower_bound(requires["setuptools"], "setuptools") <= version("66.1.1")
    assert requires["wheel"] == "wheel" or lower_bound(requires["wheel"], "wheel") <= version(
        "0.38.4")
    [evdev] = [r for r in pyproject["project"]["optional-dependencies"]["hall"]
               if r.startswith("evdev")]
    assert lower_bound(evdev, "evdev") <= version("1.6.1")


RULE_KEYS = {"match": {"SUBSYSTEM", "KERNEL", "ACTION", "DRIVER"},
             "assign": {"GROUP", "MODE", "OWNER"}}


def test_the_gpio_udev_rule_is_valid_and_gives_the_chips_to_the_units_group() -> None:
    rules = CHECKOUT / "systemd/udev/90-arena-gpio.rules"
    udevadm = shutil.which("udevadm")
    if udevadm is not None and subprocess.run([udevadm, "verify", "--help"],
                                              capture_output=True, check=False).returncode == 0:
        done = subprocess.run([udevadm, "verify", str(rules)], capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    # The syntax udev reads (systemd-udevd's rules parser, udev(7)), checked here too: udevadm
    # verify is newer than Debian 12's systemd 252.
    lines = [x for x in rules.read_text().splitlines() if x.strip() and not x.startswith("#")]
    assert len(lines) == 1
    pairs = {}
    for token in lines[0].split(", "):
        key, op, value = re.fullmatch(r'([A-Z]+)(==|!=|=|\+=|:=)"([^"]*)"',
                                                    token).groups()
        kind = "match" if op in ("==", "!=") else "assign"
        assert key in RULE_KEYS[kind], token
        pairs[key] = value
    assert pairs == {"SUBSYSTEM": "gpio", "KERNEL": "gpiochip*", "GROUP": "gpio",
                     "MODE": "0660"}
    unit = (CHECKOUT / "systemd/scoreboard.service").read_text()
    assert "SupplementaryGroups=gpio " in unit
    assert "DeviceAllow=char-gpiochip rw" in unit


def test_hall_install_puts_the_udev_rule_and_says_the_reload_is_skipped(
        repo: Path, hall_root: tuple[Path, str]) -> None:
    root, out = hall_root
    rule = root / "etc/udev/rules.d/90-arena-gpio.rules"
    assert rule.read_bytes() == (repo / "systemd/udev/90-arena-gpio.rules").read_bytes()
    assert rule.stat().st_mode & 0o777 == 0o644
    assert "skipped (--root): udevadm control --reload-rules" in out
    assert "skipped (--root): the check of lgpio" in out


def test_a_changed_udev_rule_is_replaced(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ok(repo, "--root", root)
    rule = root / "etc/udev/rules.d/90-arena-gpio.rules"
    rule.write_text('SUBSYSTEM=="gpio", MODE="0666"\n')
    out = ok(repo, "--root", root)
    assert f"install {rule}" in out and "udevadm control --reload-rules" in out
    assert rule.read_bytes() == (repo / "systemd/udev/90-arena-gpio.rules").read_bytes()
    assert "udevadm" not in ok(repo, "--root", root)  # unchanged: nothing to reload


# --- The office's halls and a hall's office link -------------------------------------------

HALLS = ("--halls", "hall-1,hall-2")


def hall_passwords(root: Path) -> dict[str, str]:
    folder = root / "etc/arena/hall-passwords"
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def passwd_lines(root: Path) -> dict[str, str]:
    text = (root / "etc/mosquitto/arena.passwd").read_text()
    return {line.split(":", 1)[0]: line for line in text.splitlines()}


def test_office_halls_get_a_user_and_a_root_only_password_each(repo: Path, tmp_path: Path) -> None:
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd not installed (./quickstart.sh test installs mosquitto)")
    root = tmp_path / "root"
    out = ok(repo, "--office", *HALLS, "--root", root)
    folder = root / "etc/arena/hall-passwords"
    assert folder.stat().st_mode & 0o777 == 0o700
    passwords = hall_passwords(root)
    assert sorted(passwords) == ["hall-1", "hall-2"]
    for name, text in passwords.items():
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name
        assert len(text.strip()) >= 16 and text.endswith("\n")
        assert text.strip() not in out  # never printed
    assert passwords["hall-1"] != passwords["hall-2"]
    assert sorted(passwd_lines(root)) == ["hall-1", "hall-2", "office"]
    assert (root / "etc/mosquitto/arena.passwd").stat().st_mode & 0o777 == 0o640
    # The line for each hall's Pi, with the example tournament's id.
    for hall in ("hall-1", "hall-2"):
        assert (f"{hall}: sudo ./install.sh --hall {hall} --broker mqtt://" in out
                and f":1883 --tournament baltic-winter-cup-u12-2026 --password-file {hall}.password"
                in out), out


def test_office_rerun_keeps_the_passwords_and_adds_a_new_hall(repo: Path, tmp_path: Path) -> None:
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd not installed (./quickstart.sh test installs mosquitto)")
    root = tmp_path / "root"
    ok(repo, "--office", *HALLS, "--root", root)
    passwords, lines = hall_passwords(root), passwd_lines(root)
    before = snapshot(root)
    assert "Nothing to do" in ok(repo, "--office", *HALLS, "--root", root)
    assert snapshot(root) == before
    out = ok(repo, "--office", "--halls", "hall-1,hall-2,hall-3", "--root", root)
    assert "add user hall-3" in out and "add user hall-1" not in out
    after = hall_passwords(root)
    assert {h: after[h] for h in passwords} == passwords
    assert sorted(after) == ["hall-1", "hall-2", "hall-3"]
    now = passwd_lines(root)
    assert {u: now[u] for u in lines} == lines  # the same hashes: nothing re-made
    assert "hall-3" in now


def test_a_hall_user_made_by_hand_is_kept(repo: Path, tmp_path: Path) -> None:
    """The way the docs used to say: mosquitto_passwd by hand, before --halls existed."""
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd not installed (./quickstart.sh test installs mosquitto)")
    root = tmp_path / "root"
    ok(repo, "--office", "--root", root)
    passwd = root / "etc/mosquitto/arena.passwd"
    subprocess.run(["mosquitto_passwd", "-b", str(passwd), "hall-1", "by-hand"], check=True)
    by_hand = passwd_lines(root)["hall-1"]
    out = ok(repo, "--office", *HALLS, "--root", root)
    assert passwd_lines(root)["hall-1"] == by_hand
    assert not (root / "etc/arena/hall-passwords/hall-1").exists()
    assert "kept user hall-1" in out and "mosquitto_passwd -D" in out
    assert (root / "etc/arena/hall-passwords/hall-2").is_file()


LINK_OK = ("--hall", "hall-1", "--broker", "mqtt://office.local:1883", "--tournament", "cup")


@pytest.mark.parametrize(("args", "says"), [
    (("--hall", "hall-1"), "--broker"),
    (("--hall", "hall-1", "--broker", "mqtt://o"), "--tournament"),
    (LINK_OK, "--password-file"),
    ((*LINK_OK, "--password-file", "missing"), "no such readable file"),
    (("--hall", "hall-1", "--broker", "office.local", "--tournament", "cup",
      "--password-file", "pw"), "mqtt://HOST:PORT"),
    (("--hall", "hall-1", "--broker", "mqtt://o:70000", "--tournament", "cup",
      "--password-file", "pw"), "port 70000"),
    (("--hall", "hall-1", "--broker", "mqtts://o:8883", "--tournament", "cup",
      "--password-file", "pw"), "needs --ca-file"),
    ((*LINK_OK, "--password-file", "pw", "--ca-file", "pw"), "goes with an mqtts://"),
    (("--hall", "standings", "--broker", "mqtt://o", "--tournament", "cup",
      "--password-file", "pw"), "'standings'"),
    (("--hall", "mirror-a", "--broker", "mqtt://o", "--tournament", "cup",
      "--password-file", "pw"), "'mirror-a': ids beginning with 'mirror-'"),
    (("--hall", "h", "--broker", "mqtt://o", "--tournament", "a/b",
      "--password-file", "pw"), "--tournament 'a/b'"),
    ((*LINK_OK, "--password-file", "empty"), "first line is empty"),
    (("--office", "--hall", "hall-1"), "a hall's"),
    (("--office", "--halls", "hall-1,office"), "'office' is not a hall id"),
    (("--hall", "hall-1", "--halls", "hall-1"), "a hall takes --hall"),
    (("--halls", "hall-1"), "--halls with --office or --venue"),
])
def test_bad_link_and_halls_options_are_refused_clearly(
        repo: Path, tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    (tmp_path / "pw").write_text("secret\n")
    (tmp_path / "empty").write_text("\n")
    done = subprocess.run(["bash", str(repo / "install.sh"), *args, "--root", "root"],
                          cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 2, done.stdout
    assert says in done.stderr and done.stderr.startswith("install.sh: "), done.stderr
    assert not (tmp_path / "root").exists()


def link_args(tmp_path: Path, password: str = "the-secret") -> tuple[str, ...]:
    given = tmp_path / "hall-1.password"
    given.write_text(password + "\n")
    return (*LINK_OK, "--password-file", str(given))


def loaded(root: Path, tmp_path: Path) -> daemon_config.Config:
    """The installed config as the daemon loads it, its password file under the root."""
    text = (root / "etc/scoreboard/scoreboard.toml").read_text()
    moved = tmp_path / "loaded.toml"
    moved.write_text(text.replace("/etc/scoreboard/mqtt-password",
                                  str(root / "etc/scoreboard/mqtt-password")))
    return daemon_config.load(moved)


def test_hall_install_with_the_link_writes_mqtt_and_the_password(
        repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = ok(repo, *link_args(tmp_path), "--root", root)
    config = root / "etc/scoreboard/scoreboard.toml"
    example = (repo / "examples/scoreboard.toml").read_text()
    assert config.read_text().startswith(example)  # the example untouched, [mqtt] added
    secret = root / "etc/scoreboard/mqtt-password"
    assert secret.read_text() == "the-secret\n"
    assert secret.stat().st_mode & 0o777 == 0o640
    assert "chown root:scoreboard" in out
    link = loaded(root, tmp_path).mqtt
    assert link is not None
    assert (link.broker.host, link.broker.port, link.broker.tls) == ("office.local", 1883, False)
    assert (link.tournament, link.hall, link.username) == ("cup", "hall-1", "hall-1")
    assert link.password == "the-secret"
    assert "The office link is set: hall hall-1" in out
    before = snapshot(root)
    assert "Nothing to do" in ok(repo, *link_args(tmp_path), "--root", root)
    assert snapshot(root) == before


def test_the_link_is_added_to_a_config_without_one_and_a_new_password_replaces_the_old(
        repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ok(repo, "--root", root)  # first without the office
    config = root / "etc/scoreboard/scoreboard.toml"
    config.write_text('[log]\nlevel = "debug"\n')  # the technician's own
    ok(repo, *link_args(tmp_path), "--root", root)
    assert config.read_text().startswith('[log]\nlevel = "debug"\n\n')
    assert loaded(root, tmp_path).log_level == "debug"
    ok(repo, *link_args(tmp_path, "rotated"), "--root", root)
    assert (root / "etc/scoreboard/mqtt-password").read_text() == "rotated\n"


def test_a_config_with_its_own_mqtt_table_is_kept_and_the_difference_named(
        repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ok(repo, *link_args(tmp_path), "--root", root)
    config = root / "etc/scoreboard/scoreboard.toml"
    text = config.read_text().replace('tournament = "cup"', 'tournament = "other-cup"')
    config.write_text(text)
    out = ok(repo, *link_args(tmp_path), "--root", root)
    assert config.read_text() == text
    assert "kept [mqtt]" in out and "tournament" in out


def test_tls_link_installs_the_ca_certificate(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n")
    args = list(link_args(tmp_path))
    args[args.index("--broker") + 1] = "mqtts://office.local:8883"
    ok(repo, *args, "--ca-file", ca, "--root", root)
    assert (root / "etc/scoreboard/office-ca.crt").read_bytes() == ca.read_bytes()
    link = loaded(root, tmp_path).mqtt
    assert link is not None and link.broker.tls and link.broker.port == 8883
    assert link.tls is not None and link.tls.ca_file == "/etc/scoreboard/office-ca.crt"


# --- Waiting for another apt or dpkg run ---------------------------------------------------
QUICKSTART = CHECKOUT / "quickstart.sh"


def lock_block(script: Path) -> str:
    """The dpkg lock wait as the script has it: its globals and functions."""
    text = script.read_text()
    start = text.index("# --- Another apt or dpkg run")
    end = text.index("\n}\n", text.index("\napt_get() {")) + 3
    return text[start:end]


def test_both_scripts_wait_for_dpkg_the_same_way() -> None:
    assert lock_block(SCRIPT) == lock_block(QUICKSTART)


def test_quickstart_is_shellcheck_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (Debian package `shellcheck`)")
    done = subprocess.run([shellcheck, str(QUICKSTART)], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def fake_tools(tmp_path: Path, held_looks: int, *, fuser: bool = True) -> Path:
    """A PATH of stand-ins: apt-get and sleep record their calls (sleep returns at once:
    the wait is counted, not lived), fuser says dpkg's lock-frontend is held for the first
    ``held_looks`` looks. Only what the block needs besides them (env, for apt-get)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls"
    (tmp_path / "held").write_text(f"{held_looks}\n")
    scripts = {
        "apt-get": f'echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >>"{log}"\n',
        "sleep": f'echo "sleep $*" >>"{log}"\n',
    }
    if fuser:
        scripts["fuser"] = (f'read -r n <"{tmp_path}/held"\n'
                            f'case "$2" in */lock-frontend) if [ "$n" -gt 0 ]; then\n'
                            f'  echo $((n - 1)) >"{tmp_path}/held"; exit 0; fi ;; esac\n'
                            'exit 1\n')
    for name, body in scripts.items():
        tool = bin_dir / name
        tool.write_text("#!/bin/bash\n" + body)
        tool.chmod(0o755)
    (bin_dir / "env").symlink_to(shutil.which("env") or "/usr/bin/env")
    return bin_dir


def apt_get_run(tmp_path: Path, bin_dir: Path, env: dict[str, str] | None = None,
                script: Path = SCRIPT) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    program = ("set -euo pipefail\nsay() { printf '%s\\n' \"$*\"; }\n" + lock_block(script)
               + "apt_get install -y mosquitto\n")
    done = subprocess.run(["/bin/bash", "-c", program], capture_output=True, text=True,
                          check=False, timeout=60, env={"PATH": str(bin_dir), **(env or {})})
    log = tmp_path / "calls"
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("script", [SCRIPT, QUICKSTART], ids=["install.sh", "quickstart.sh"])
def test_apt_get_waits_for_a_held_dpkg_lock_and_says_so(tmp_path: Path, script: Path) -> None:
    done, calls = apt_get_run(tmp_path, fake_tools(tmp_path, held_looks=3), script=script)
    assert done.returncode == 0, done.stderr
    assert ("waiting for another apt/dpkg run (unattended-upgrades?) to finish: up to 600 s"
            in done.stdout)
    assert "waited 10 s" in done.stdout
    # Two waits of 5 s, then apt-get with what is left of the bound for dpkg's own lock.
    assert calls == ["sleep 5", "sleep 5",
                     "apt-get -o DPkg::Lock::Timeout=590 install -y mosquitto "
                     "DEBIAN_FRONTEND=noninteractive"]


def test_apt_get_gives_up_after_the_bound(tmp_path: Path) -> None:
    done, calls = apt_get_run(tmp_path, fake_tools(tmp_path, held_looks=1000),
                              {"ARENA_APT_WAIT_S": "20"})
    assert done.returncode == 1
    assert "up to 20 s" in done.stdout
    assert "still holds the lock after 20 s" in done.stdout
    assert calls == ["sleep 5"] * 4  # and apt-get never ran


def test_apt_get_runs_at_once_when_no_lock_is_held(tmp_path: Path) -> None:
    done, calls = apt_get_run(tmp_path, fake_tools(tmp_path, held_looks=0))
    assert done.returncode == 0 and "waiting" not in done.stdout
    assert calls == ["apt-get -o DPkg::Lock::Timeout=600 install -y mosquitto "
                     "DEBIAN_FRONTEND=noninteractive"]


def test_without_fuser_apt_gets_own_timeout_waits(tmp_path: Path) -> None:
    done, calls = apt_get_run(tmp_path, fake_tools(tmp_path, held_looks=5, fuser=False))
    assert done.returncode == 0 and "waiting" not in done.stdout
    assert calls == ["apt-get -o DPkg::Lock::Timeout=600 install -y mosquitto "
                     "DEBIAN_FRONTEND=noninteractive"]


def test_a_lock_file_really_held_open_is_seen_by_fuser(tmp_path: Path) -> None:
    """The real fuser on a file another process holds open, as apt holds its locks; the fake
    sleep ends that process (by its pid), as the other run ending would (until it is gone
    the next look may still see it: another sleep, which changes nothing)."""
    fuser = shutil.which("fuser")
    if fuser is None:
        pytest.skip("fuser not installed (Debian package `psmisc`)")
    lock = tmp_path / "lock-frontend"
    lock.write_text("")
    holder = subprocess.Popen(["python3", "-c", "import sys; f = open(sys.argv[1]); "
                               "print('open', flush=True); sys.stdin.read()", str(lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        bin_dir = fake_tools(tmp_path, held_looks=0, fuser=False)
        (bin_dir / "fuser").symlink_to(fuser)
        (bin_dir / "sleep").write_text(
            f'#!/bin/bash\necho "sleep $*" >>"{tmp_path}/calls"\nkill {holder.pid}\n')
        wait_for_fuser = lock_block(SCRIPT).replace(
            "APT_LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock\n"
            "           /var/cache/apt/archives/lock)", f"APT_LOCKS=({lock})")
        assert str(lock) in wait_for_fuser
        program = ("set -euo pipefail\nsay() { printf '%s\\n' \"$*\"; }\n" + wait_for_fuser
                   + "apt_get install -y mosquitto\n")
        done = subprocess.run(["/bin/bash", "-c", program], capture_output=True, text=True,
                              check=False, timeout=60, env={"PATH": str(bin_dir)})
        assert done.returncode == 0, done.stderr
        assert "waiting for another apt/dpkg run" in done.stdout
        calls = (tmp_path / "calls").read_text().splitlines()
        assert calls[0] == "sleep 5" and calls[-1].startswith("apt-get -o DPkg::Lock::Timeout=")
    finally:
        holder.kill()
        holder.communicate()  # reaped, its pipes closed
