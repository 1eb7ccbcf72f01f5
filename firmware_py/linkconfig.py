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

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_py.mqtt import BrokerUrl, Tls, parse_broker_url
from firmware_py.wire import check_name

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


def parse_link_config(table: dict[str, Any], source: str) -> LinkConfig:
    def fail(key: str, problem: str) -> LinkConfigError:
        return LinkConfigError(f"{source}: mqtt.{key}: {problem}")

    for key in table:
        if key not in KEYS:
            raise fail(key, "unknown key (misspelt?)")

    def text(key: str, required: bool = False) -> str | None:
        value = table.get(key)
        if value is None:
            if required:
                raise fail(key, "missing")
            return None
        if not isinstance(value, str) or not value:
            raise fail(key, f"must be a non-empty string, got {value!r}")
        return value

    try:
        broker = parse_broker_url(text("broker", required=True) or "")
    except ValueError as err:
        raise fail("broker", str(err)) from err
    names = {}
    for key in ("tournament", "hall"):
        try:
            names[key] = check_name(key, text(key, required=True) or "")
        except ValueError as err:
            raise fail(key, str(err)) from err
    password = None
    password_file = text("password_file")
    if password_file is not None:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except OSError as err:
            raise fail("password_file", f"cannot read it: {err.strerror or err}") from err
    ca_file = text("ca_file")
    if broker.tls and ca_file is None:
        raise fail("ca_file", "needed for mqtts://")
    cert_file, key_file = text("cert_file"), text("key_file")
    if (cert_file is None) != (key_file is None):
        raise fail("cert_file" if cert_file is None else "key_file",
                   "a client certificate needs both cert_file and key_file")
    return LinkConfig(
        broker=broker,
        tournament=names["tournament"],
        hall=names["hall"],
        username=text("username"),
        password=password,
        tls=Tls(ca_file, cert_file, key_file) if ca_file is not None else None,
    )


def load_link_config(path: str | Path) -> LinkConfig:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise LinkConfigError(f"{path}: cannot read: {err.strerror or err}") from err
    except tomllib.TOMLDecodeError as err:
        raise LinkConfigError(f"{path}: not valid TOML: {err}") from err
    table = data.get("mqtt")
    if not isinstance(table, dict):
        raise LinkConfigError(f"{path}: mqtt: missing (a [mqtt] table)")
    return parse_link_config(table, str(path))
