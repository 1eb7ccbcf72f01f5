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
                   "--venue", "--event-broker", "--halls"):
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
    (("--halls", "hall-1"), "go with --venue"),
    (("--venue", "--halls"), "--venue needs a value"),
    (("--venue", "no/rth", "--event-broker", "e", "--halls", "h"), "'no/rth'"),
    (("--venue", "office", "--event-broker", "e", "--halls", "h"), "'office'"),
    (("--venue", "v", "--event-broker", "e:70000", "--halls", "h"), "port 70000"),
    (("--venue", "v", "--event-broker", "mqtt://e", "--halls", "h"), "HOST:PORT"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,h"), "'h' twice"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,,i"), "hall id ''"),
    (("--venue", "v", "--event-broker", "e", "--halls", "h,standings"), "'standings'"),
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
