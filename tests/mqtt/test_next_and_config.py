"""The office's `next` waits for a free hall (docs/developer.md 4.4), and broker settings come from
the config file with the secret kept out of it and out of every repr."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import presets
from arena.core.commands import Forfeit, Goal, Start
from arena.core.match import Match, feed
from arena.core.phase import Stage, Team
from firmware_py.linkconfig import LinkConfigError, load_link_config, parse_link_config
from firmware_py.mqtt import parse_next
from firmware_py.nextmatch import NextMatch, setup_from_next

NEXT = (b'{"match": "A5", "preset": "floorball-2x15", "stage": "group", "teams": '
        b'{"home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]}, '
        b'"away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}}}')


def test_next_loads_only_when_no_match_is_in_progress() -> None:
    holder = NextMatch()
    match = Match(presets.load("floorball-2x15"))
    holder.offer(parse_next(NEXT))
    assert holder.take(match.state) is not None  # pregame, nothing pressed: the hall is free
    holder.offer(parse_next(NEXT))
    feed(match, Start(0))
    feed(match, Goal(10, Team.HOME))
    assert holder.take(match.state) is None  # a game is on: it waits
    assert holder.pending is not None
    feed(match, Forfeit(20, Team.AWAY))
    doc = holder.take(match.state)  # final: now it loads
    assert doc is not None and holder.pending is None
    preset, setup = setup_from_next(doc)
    assert (preset, setup.match_id, setup.stage, setup.home.name) == (
        "floorball-2x15", "A5", Stage.GROUP, "Lions")
    assert holder.take(None) is None


def test_a_final_result_stays_up_for_the_hold_before_the_next_match() -> None:
    holder = NextMatch()
    match = Match(presets.load("floorball-2x15"))
    feed(match, Start(0))
    feed(match, Forfeit(20, Team.AWAY))  # final at t=20
    holder.offer(parse_next(NEXT))
    assert holder.take(match.state, now=20 + 29, hold=30) is None  # the result is up
    assert holder.pending is not None
    assert holder.take(match.state, now=20 + 30, hold=30) is not None


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scoreboard.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_link_config_reads_the_password_from_its_own_file(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n", encoding="utf-8")
    (tmp_path / "ca.crt").write_text("x", encoding="utf-8")
    config = load_link_config(write(tmp_path, f'''
[mqtt]
broker = "mqtts://127.0.0.1:8883"
tournament = "cup"
hall = "hall-1"
username = "hall-1"
password_file = "{secret}"
ca_file = "{tmp_path / 'ca.crt'}"
'''))
    assert (config.broker.port, config.broker.tls, config.hall) == (8883, True, "hall-1")
    assert config.password == "s3cret"
    assert "s3cret" not in repr(config)
    assert config.tls is not None and config.tls.cert_file is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"tournament": "t", "hall": "h"}, "mqtt.broker: missing"),
        ({"broker": "http://x", "tournament": "t", "hall": "h"}, "mqtt.broker: broker"),
        ({"broker": "mqtt://x", "tournament": "t", "hall": "a/b"}, "mqtt.hall: hall 'a/b'"),
        ({"broker": "mqtts://x", "tournament": "t", "hall": "h"}, "mqtt.ca_file: needed"),
        ({"broker": "mqtt://x", "tournament": "t", "hall": "h", "passwd": "x"},
         "mqtt.passwd: unknown key"),
        ({"broker": "mqtt://x", "tournament": "t", "hall": "h", "password_file": "/nonexistent"},
         "mqtt.password_file: cannot read it"),
        ({"broker": "mqtt://x", "tournament": "t", "hall": "h", "ca_file": "c",
          "cert_file": "c"}, "mqtt.key_file: a client certificate needs both"),
    ],
)
def test_a_bad_mqtt_table_names_the_key(table: dict[str, str], message: str) -> None:
    with pytest.raises(LinkConfigError) as err:
        parse_link_config(dict(table), "scoreboard.toml")
    assert str(err.value).startswith("scoreboard.toml: ")
    assert message in str(err.value)


def test_a_config_without_mqtt_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(LinkConfigError, match=r"mqtt: missing"):
        load_link_config(write(tmp_path, "[console]\nkeypad = false\n"))
