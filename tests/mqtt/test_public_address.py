"""The office's public address reaches the halls' between-games screens: the
office is told it (``office serve --public-url``; here ``OfficeService(public_url=...)`` as
``office serve`` passes it), says it in every hall's ``next``, and a hall without a
``[display] public_url`` of its own shows it as a QR code a phone reads. The hall's own
address wins; a bad address is refused by the office where it enters and, should one reach
a hall anyway, left out with one log line while the rest of the ``next`` is taken.

Through the broker exactly as shipped (arena.conf, arena.acl, users as install.sh makes
them): the address rides on ``next``, which a hall may already read, so no grant is new.
The halls are the in-process daemon (tests/daemon/inprocess.py) with the real ``HallLink``
on a fake clock; the broker, paho and the office run in real time, so every wait for them
is a bounded poll.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from arena import wire
from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.linkconfig import LinkConfig
from firmware_py.mqtt import HallLink
from firmware_py.operatorview import OfficeLine, operator_document
from firmware_py.operatorweb import body_html
from firmware_py.parts import HallParts, OfficeLink, OnNext, OnStandings
from tests.daemon.inprocess import InProcessHall, TestParts
from tests.fixtures import ROOT, SHIPPED_USERS, Office, ShippedBroker, tournament_file, wait_for

pytestmark = pytest.mark.slow  # every test here starts a process

T = "qr-cup"
OFFICE_URL = "http://results.qr-cup.example/"
HALL_URL = "https://hall-b.example/scores/"
ZBAR = shutil.which("zbarimg")


def real_link(config: LinkConfig, on_next: OnNext, on_standings: OnStandings) -> OfficeLink:
    return HallParts().link(config, on_next, on_standings)


def hall_config(tmp_path: Path, hall: str, port: int, extra: str = "") -> str:
    secret = tmp_path / f"{hall}-password"
    secret.write_text(SHIPPED_USERS[hall] + "\n", encoding="utf-8")
    first = "A1" if hall == "hall-a" else "A2"
    return f"""
[match]
preset = "floorball-2x15"
id = "{first}"
home = "X"
away = "Y"
[display]
final_hold_s = 1
{extra}
[mqtt]
broker = "mqtt://127.0.0.1:{port}"
tournament = "{T}"
hall = "{hall}"
username = "{hall}"
password_file = "{secret}"
"""


def shown_url(hall: InProcessHall) -> str | None:
    """The address on the hall's last between-games frame, as the daemon drew it."""
    frames = [f for f in hall.frames if f.between is not None]
    return None if not frames else frames[-1].between.get("public_url")  # type: ignore[union-attr]


def pumped(hall: InProcessHall, daemon: Daemon) -> None:
    link = daemon.link
    assert link is not None
    daemon.run_until(hall.time.now + NS_PER_S // 100)
    link.pump()


def office_publish(port: int, topic: str, payload: bytes) -> None:
    """Publish a retained ``next`` as the office user, and wait for its PUBACK."""
    c = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id="office-by-hand",
                    protocol=paho.MQTTv311)
    c.username_pw_set("office", SHIPPED_USERS["office"])
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        c.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    finally:
        c.disconnect()
        c.loop_stop()


def decoded(path: Path) -> str:
    assert ZBAR is not None
    done = subprocess.run([ZBAR, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(path)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.removesuffix("\n")


def test_the_offices_address_reaches_a_hall_and_the_halls_own_wins(
        shipped_broker: ShippedBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
        ) -> None:
    caplog.set_level(logging.WARNING, logger="firmware_py.mqtt")
    port = shipped_broker.port
    cup = tournament_file(tmp_path / "cup.toml", T, [("A1", "hall-a"), ("A2", "hall-b")])
    office = Office(port, tmp_path / "office.sqlite", cup, username="office",
                    password=SHIPPED_USERS["office"], public_url=OFFICE_URL)
    a = InProcessHall(tmp_path / "a", hall_config(tmp_path, "hall-a", port))
    b = InProcessHall(tmp_path / "b", hall_config(tmp_path, "hall-b", port,
                                                  f'public_url = "{HALL_URL}"'))
    try:
        da = a.start(parts=TestParts(link_factory=real_link))
        db = b.start(parts=TestParts(link_factory=real_link))

        def both_heard() -> bool:
            pumped(a, da)
            pumped(b, db)
            return da.office_public_url is not None and db.office_public_url is not None

        wait_for(both_heard, 20, "the office's next, with its address, at both halls")
        pumped(a, da)
        pumped(b, db)
        # hall-a has no address of its own: the office's is on its between-games screen.
        assert da.office_public_url == OFFICE_URL
        assert shown_url(a) == OFFICE_URL
        # hall-b has its own ([display] public_url): it wins over the office's.
        assert db.office_public_url == OFFICE_URL
        assert shown_url(b) == HALL_URL
        if ZBAR is not None:  # what a phone in the hall reads off the rendered screen
            from display._pygame import pygame  # noqa: PLC0415 - only where it is drawn
            from display.layout import FrameInputs  # noqa: PLC0415
            from display.render import render  # noqa: PLC0415

            now = a.time.now
            between = da.between(now)
            assert between is not None and between["tables"]  # the office's table is there
            picture = tmp_path / "hall-a-between.png"
            pygame.image.save(render(FrameInputs(da.document(now), (1920, 1080), between)),
                              str(picture))
            assert decoded(picture) == OFFICE_URL

        # A bad address on the wire (not one this office would send: it refuses one where
        # it enters) is left out with one log line; the match in it is still taken.
        office.stop()
        topic = wire.hall_topic(T, "hall-a", wire.NEXT)
        good = wire.next_document(wire.Next(
            match="A1", preset="floorball-2x15", stage="group",
            home=wire.Team("X", ("#10233f", "#ffffff")),
            away=wire.Team("Y", ("#f2f2f2", "#10233f")),
            scheduled="2026-12-05T09:00", label="Group A"))
        link = da.link
        assert isinstance(link, HallLink)
        for label in ("Group A", "Group A (moved)"):  # the same bad address twice
            office_publish(port, topic, json.dumps({**good, "label": label,
                                                    "public_url": "ftp://results.example/"}
                                                   ).encode())
            wait_for(lambda label=label: (pumped(a, da), da.loader.loaded_next is not None
                                          and da.loader.loaded_next.get("label") == label)[1],
                     20, f"the next labelled {label!r} at hall-a")
        assert da.office_public_url is None
        assert shown_url(a) is None  # no code rather than a wrong one
        said = [r.getMessage() for r in caplog.records if "public_url" in r.getMessage()]
        assert len(said) == 1, said
        assert "must be an http:// or https:// address" in said[0] and topic in said[0]
        assert link.ignored_next and not link.refused_next
        assert da.match.setup.match_id == "A1"
        # Not only the log: the timekeeper is told at once, and the operator view keeps it.
        assert da.office_problem is not None and "http://" in da.office_problem
        notice = da.feedback.current(a.time.now)
        assert notice is not None and notice.press == "FROM THE OFFICE"
        assert notice.reason is not None and "public url" in notice.reason  # shortened to fit
        view = operator_document(da.match, da.document(a.time.now),
                                 office=OfficeLine(link.connected, link.unacked,
                                                   da.office_problem, link.cannot_store_since))
        office_line = view["office"]
        assert isinstance(office_line, dict) and office_line["problem"] == da.office_problem
        assert "not taken from the office" in body_html(view)
    finally:
        a.stop()
        b.stop()
        office.stop()


def test_office_serve_refuses_a_bad_public_url_naming_the_flag(tmp_path: Path) -> None:
    cup = tournament_file(tmp_path / "cup.toml", T, [("A1", "hall-a")])
    for bad, said in [("results.local", "must be an http:// or https:// address"),
                      ("ftp://results.local/", "must be an http:// or https:// address"),
                      ("http://results.local/a b", "must have no spaces"),
                      (f"http://x.org/{'a' * 200}", "must be at most 200 characters")]:
        done = subprocess.run(
            [sys.executable, "-m", "office", "serve", "--tournament", str(cup),
             "--db", str(tmp_path / "office.sqlite"), "--broker", "mqtt://127.0.0.1:1",
             "--public-url", bad],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=60)
        assert done.returncode == 2, (bad, done.stderr)
        assert f"office serve: --public-url: {said}" in done.stderr, (bad, done.stderr)
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "office.sqlite").exists()  # refused before anything is opened

