"""What ``install.sh --office --halls`` sets up, and a hall installed with the line it prints,
against a real mosquitto on loopback: the office's generated configuration, ACL and password
file as written under a test root (only the port, paths and log moved), and the hall's
login exactly as its generated ``[mqtt]`` table and password file give it. Nothing is typed
in between: the hall's line is the one the office's install printed, with the test broker's
address for the office's host name."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena import wire
from firmware_py import config as daemon_config
from firmware_py.linkconfig import LinkConfig
from firmware_py.loopback import free_port
from tests.fixtures import ROOT, Broker, shipped_config, wait_for
from tests.mqtt.conftest import Collector
from tests.mqtt.test_acl import V5Client

pytestmark = pytest.mark.slow  # every test here starts a process

HALLS = ("hall-1", "hall-2")
TOURNAMENT = "baltic-winter-cup-u12-2026"  # the id of the example tournament the office gets


def install(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run(["bash", str(ROOT / "install.sh"), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@dataclass(frozen=True)
class Installed:
    office: Path  # the office's root
    hall: Path  # hall-1's root
    link: LinkConfig  # hall-1's [mqtt] as the daemon reads it


def hall_line(output: str, hall: str) -> list[str]:
    """The arguments of the line the office's install printed for ``hall``."""
    found = re.search(rf"^ +{re.escape(hall)}: sudo \./install\.sh (.+)$", output, re.M)
    assert found, output
    return shlex.split(found.group(1))


def install_both(tmp: Path, port: int) -> Installed:
    office = tmp / "office-root"
    out = install("--office", "--halls", ",".join(HALLS), "--root", office, cwd=tmp)
    args = hall_line(out, "hall-1")
    assert args[args.index("--tournament") + 1] == TOURNAMENT
    broker = args.index("--broker") + 1
    assert re.fullmatch(r"mqtt://[^/:]+:1883", args[broker]), args  # plain, as shipped
    args[broker] = f"mqtt://127.0.0.1:{port}"
    # The hall's Pi gets the password file under the name the line gives.
    given = tmp / args[args.index("--password-file") + 1]
    shutil.copy(office / "etc/arena/hall-passwords/hall-1", given)
    hall = tmp / "hall-root"
    install(*args, "--root", hall, cwd=tmp)
    # The hall's config as the daemon loads it, its password file at the test root's path.
    config = hall / "etc/scoreboard/scoreboard.toml"
    text = config.read_text()
    assert 'password_file = "/etc/scoreboard/mqtt-password"' in text
    moved = tmp / "scoreboard.toml"
    moved.write_text(text.replace("/etc/scoreboard/mqtt-password",
                                  str(hall / "etc/scoreboard/mqtt-password")))
    link = daemon_config.load(moved).mqtt
    assert link is not None
    return Installed(office, hall, link)


def installed_broker(tmp: Path, office: Path, port: int) -> Broker:
    """Mosquitto on ``port`` with the office's installed arena.conf (the shipped one),
    arena.acl and the generated password file."""
    conf, acl = office / "etc/mosquitto/conf.d/arena.conf", office / "etc/mosquitto/arena.acl"
    assert conf.read_bytes() == (ROOT / "systemd/mosquitto/arena.conf").read_bytes()
    broker = Broker(tmp / "broker", port)
    passwd = broker.dir / "arena.passwd"
    shutil.copy(office / "etc/mosquitto/arena.passwd", passwd)
    broker.config_text = shipped_config(broker, passwd, acl)
    return broker


def password(root: Path, path: str) -> str:
    return (root / path.lstrip("/")).read_text().splitlines()[0]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Installed, Broker]]:
    """Both installs once (each copies the program), and the broker they set up."""
    tmp = tmp_path_factory.mktemp("installed")
    port = free_port()
    both = install_both(tmp, port)
    broker = installed_broker(tmp, both.office, port)
    try:
        broker.start()
        yield both, broker
    finally:
        broker.stop()


def test_the_hall_logs_in_as_installed_and_writes_only_where_its_acl_allows(
        installed: tuple[Installed, Broker]) -> None:
    both, broker = installed
    link = both.link
    assert (link.hall, link.username, link.tournament) == ("hall-1", "hall-1", TOURNAMENT)
    assert link.password == password(both.office, "/etc/arena/hall-passwords/hall-1")
    assert not link.broker.tls and link.broker.port == broker.port
    office = Collector(broker.port, "arena/#", client_id="office", persistent=False,
                       username="office",
                       password=password(both.office, "/etc/arena/office-password"))
    assert link.username is not None and link.password is not None
    hall = V5Client(broker.port, link.username, link.password)
    try:
        assert hall.connected is not None and not hall.connected.is_failure
        wait_for(office.subscribed.is_set, 5, "the office to subscribe")
        allowed = [wire.hall_topic(link.tournament, link.hall, kind)
                   for kind in (wire.EVENTS, wire.STATE, wire.STATUS)]
        for topic in allowed:
            assert not hall.publish(topic).is_failure, topic
        denied = [wire.hall_topic(link.tournament, "hall-2", wire.EVENTS),
                  wire.hall_topic(link.tournament, link.hall, wire.NEXT),
                  wire.standings_topic(link.tournament, "A")]
        for topic in denied:
            assert hall.publish(topic).value == 135, topic  # not authorised
        wait_for(lambda: len(office.messages) >= len(allowed), 5, "the office to receive")
        assert [t for t, _ in office.messages] == allowed
    finally:
        hall.close()
        office.close()


def test_every_generated_login_opens_and_a_wrong_one_does_not(
        installed: tuple[Installed, Broker]) -> None:
    both, broker = installed
    for hall in HALLS:
        client = V5Client(broker.port, hall,
                          password(both.office, f"/etc/arena/hall-passwords/{hall}"))
        try:
            assert client.connected is not None and not client.connected.is_failure, hall
        finally:
            client.close()
    wrong = V5Client(broker.port, "hall-2",
                     password(both.office, "/etc/arena/hall-passwords/hall-1"))
    try:
        assert wrong.connected is not None and wrong.connected.is_failure
    finally:
        wrong.close()
