"""The hall's broker settings from the config file's ``[mqtt]`` table.

    [mqtt]
    broker = "mqtts://office.local:8883"
    tournament = "example-cup"
    hall = "hall-1"
    username = "hall-1"
    password_file = "/etc/scoreboard/mqtt-password"   # the secret lives in its own file
    ca_file = "/etc/scoreboard/office-ca.crt"          # TLS; cert_file/key_file optional

The password is read from its own file (mode 0600), never written into the config, never
logged: ``LinkConfig``'s repr hides it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.broker import BrokerUrl, Tls, parse_broker_url
from arena.core.tables import Table, parse_toml
from arena.wire import check_hall, check_name

KEYS = {"broker", "tournament", "hall", "username", "password_file", "ca_file", "cert_file",
        "key_file"}


class LinkConfigError(ValueError):
    """The [mqtt] table is invalid; the message names the file, the key and the problem."""


@dataclass(frozen=True)
class LinkConfig:
    broker: BrokerUrl
    tournament: str
    hall: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: Tls | None = None


def parse_link_config(table: Mapping[str, Any], source: str) -> LinkConfig:
    mqtt = Table(table, source, LinkConfigError, where="mqtt.", keys=sorted(KEYS))

    def fail(key: str, problem: str) -> Exception:
        return mqtt.error(key, problem)

    url = mqtt.string("broker")
    try:
        broker = parse_broker_url(url)
    except ValueError as err:
        raise fail("broker", str(err)) from err
    names = {}
    for key, check in (("tournament", lambda v: check_name("tournament", v)),
                       ("hall", check_hall)):
        value = mqtt.string(key)
        try:
            names[key] = check(value)
        except ValueError as err:
            raise fail(key, str(err)) from err
    password = None
    password_file = mqtt.optional_string("password_file")
    if password_file is not None:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except OSError as err:
            raise fail("password_file", f"cannot read it: {err.strerror or err}") from err
    ca_file = mqtt.optional_string("ca_file")
    if broker.tls and ca_file is None:
        raise fail("ca_file", "needed for mqtts://")
    cert_file, key_file = mqtt.optional_string("cert_file"), mqtt.optional_string("key_file")
    if (cert_file is None) != (key_file is None):
        raise fail("cert_file" if cert_file is None else "key_file",
                   "a client certificate needs both cert_file and key_file")
    return LinkConfig(
        broker=broker,
        tournament=names["tournament"],
        hall=names["hall"],
        username=mqtt.optional_string("username"),
        password=password,
        tls=Tls(ca_file, cert_file, key_file) if ca_file is not None else None,
    )


def load_link_config(path: str | Path) -> LinkConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise LinkConfigError(f"{path}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise LinkConfigError(f"{path}: not UTF-8 text ({err.reason} at byte "
                              f"{err.start})") from err
    top = Table(parse_toml(text, str(path), LinkConfigError), str(path), LinkConfigError)
    if not top.has("mqtt"):
        raise top.error("mqtt", "missing (a [mqtt] table)")
    return parse_link_config(top.table("mqtt").data, str(path))
