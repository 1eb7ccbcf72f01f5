"""The hall's MQTT link (DESIGN.md 4.4): the only module of the scoreboard that imports paho.

Threads: paho's network thread (``loop_start``) runs the callbacks, and they only put what
happened on a queue. The owner's thread calls ``pump()``, which turns acks into durable
outbox marks, hands valid ``next`` documents on, and sends what the outbox allows. So the
outbox, the mid -> seq map and the state are touched by one thread only, and an ack can
never be processed before its ``publish()`` call returned the mid.

Delivery: events go out QoS 1 from the ``Outbox`` (the journal), at most ``max_in_flight``
unacknowledged; paho itself resends those after a reconnect. During an outage nothing more
is handed to paho, so its memory queue stays bounded whatever the outage's length.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from firmware_py import presets
from firmware_py.outbox import Outbox, event_payload

log = logging.getLogger(__name__)

STATE_EVERY_S = 10.0  # the retained state is refreshed at least this often (DESIGN.md 4.4)
NEXT_MAX_BYTES = 64 * 1024  # a real `next` is ~1 kB; anything huge is refused unparsed
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")  # no '/', '+', '#' (topic syntax), no ':'
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


class NextError(ValueError):
    """A ``next`` document that cannot be used; the message says why."""


@dataclass(frozen=True)
class Tls:
    ca_file: str
    cert_file: str | None = None  # client certificate: optional
    key_file: str | None = None


@dataclass(frozen=True)
class BrokerUrl:
    host: str
    port: int
    tls: bool


def parse_broker_url(url: str) -> BrokerUrl:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError(f"broker {url!r}: expected mqtt://HOST:PORT or mqtts://HOST:PORT")
    tls = parts.scheme == "mqtts"
    return BrokerUrl(parts.hostname, parts.port or (8883 if tls else 1883), tls)


def check_name(kind: str, value: str) -> str:
    if not _NAME.match(value):
        raise ValueError(f"{kind} {value!r}: use 1-64 letters, digits, '_', '.', '-'")
    return value


def topics(tournament: str, hall: str) -> dict[str, str]:
    base = f"arena/v1/{check_name('tournament', tournament)}/{check_name('hall', hall)}"
    return {k: f"{base}/{k}" for k in ("events", "state", "status", "next")}


def parse_next(payload: bytes) -> dict[str, Any]:
    """Validate a ``next`` document; return it normalised or raise ``NextError``."""
    if len(payload) > NEXT_MAX_BYTES:
        raise NextError(f"payload of {len(payload)} bytes is over the {NEXT_MAX_BYTES} limit")
    try:
        doc = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise NextError(f"not UTF-8 ({err.reason} at byte {err.start})") from err
    except json.JSONDecodeError as err:
        raise NextError(f"not JSON ({err.msg} at column {err.colno})") from err
    if not isinstance(doc, dict):
        raise NextError(f"must be a JSON object, got {type(doc).__name__}")
    match = doc.get("match")
    if not isinstance(match, str) or not _NAME.match(match):
        raise NextError(f"'match' must be a match id (1-64 of A-Z a-z 0-9 _ . -), got {match!r}")
    preset = doc.get("preset")
    if not isinstance(preset, str) or preset not in presets.names():
        raise NextError(f"'preset' {preset!r} is not a known preset")
    stage = doc.get("stage", "group")
    if stage not in ("group", "playoff"):
        raise NextError(f"'stage' must be 'group' or 'playoff', got {stage!r}")
    teams = doc.get("teams")
    if not isinstance(teams, dict):
        raise NextError("'teams' must be an object with 'home' and 'away'")
    for side in ("home", "away"):
        team = teams.get(side)
        if not isinstance(team, dict) or not isinstance(team.get("name"), str) \
                or not team["name"].strip():
            raise NextError(f"'teams.{side}.name' must be a non-empty string")
        colours = team.get("colours")
        if not isinstance(colours, list) or len(colours) != 2 or not all(
                isinstance(c, str) and _COLOUR.match(c) for c in colours):
            raise NextError(f"'teams.{side}.colours' must be two '#rrggbb' strings")
    scheduled = doc.get("scheduled")
    if scheduled is not None and not isinstance(scheduled, str):
        raise NextError("'scheduled' must be a time string or null")
    suspended = doc.get("suspended", [])
    if not isinstance(suspended, list) or not all(
            isinstance(s, dict) and s.get("team") in ("home", "away")
            and isinstance(s.get("player"), int) and not isinstance(s.get("player"), bool)
            for s in suspended):
        raise NextError("'suspended' must be a list of {'team': 'home'|'away', 'player': int}")
    return {"match": match, "preset": preset, "stage": stage, "teams": teams,
            "scheduled": scheduled, "suspended": suspended}


class HallLink:
    """One hall's connection to the broker; call ``pump()`` often from the owner's thread."""

    def __init__(
        self,
        host: str,
        port: int,
        tournament: str,
        hall: str,
        *,
        outbox: Outbox | None = None,
        username: str | None = None,
        password: str | None = None,
        tls: Tls | None = None,
        client_id: str | None = None,
        keepalive: int = 30,
        reconnect_s: tuple[int, int] = (1, 30),
        on_next: Callable[[dict[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if username is not None and tls is None and host not in ("127.0.0.1", "localhost", "::1"):
            log.warning("MQTT to %s without TLS: credentials travel in clear", host)
        self.hall = hall
        self.topics = topics(tournament, hall)
        self.outbox = outbox
        self._on_next = on_next
        self._clock = clock
        self._host, self._port, self._keepalive = host, port, keepalive
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._mids: dict[int, int] = {}  # paho mid -> event seq, for events in flight
        self._connected = False
        self._subscribed = False  # `next` is subscribed on this connection
        self._state: str | None = None  # the last state document, as sent
        self._state_sent = float("-inf")
        self._offline_mid: int | None = None
        self.refused_next: list[str] = []  # reasons, newest last (for tests and the display)

        client = paho.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id or f"hall-{tournament}-{hall}",
            protocol=paho.MQTTv311,
            clean_session=True,  # the journal, not the broker, keeps what is unsent
        )
        if username is not None:
            client.username_pw_set(username, password)
        if tls is not None:
            client.tls_set(ca_certs=tls.ca_file, certfile=tls.cert_file, keyfile=tls.key_file,
                           cert_reqs=ssl.CERT_REQUIRED)
        client.will_set(self.topics["status"], b"offline", qos=1, retain=True)
        client.reconnect_delay_set(min_delay=reconnect_s[0], max_delay=reconnect_s[1])
        if outbox is not None:
            client.max_inflight_messages_set(outbox.max_in_flight)
        client.on_connect = self._cb_connect
        client.on_disconnect = self._cb_disconnect
        client.on_publish = self._cb_publish
        client.on_message = self._cb_message
        client.on_subscribe = self._cb_subscribe
        self._client = client

    # paho callbacks (network thread): only enqueue --------------------------------------

    def _cb_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        self._inbox.put(("connect", not reason.is_failure))
        if reason.is_failure:
            self._inbox.put(("log", f"broker refused the connection: {reason}"))

    def _cb_disconnect(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self._inbox.put(("disconnect", str(reason)))

    def _cb_publish(self, client: paho.Client, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:
        self._inbox.put(("puback", mid))

    def _cb_subscribe(self, client: paho.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        self._inbox.put(("suback", all(not r.is_failure for r in reasons)))

    def _cb_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        self._inbox.put(("message", (msg.topic, msg.payload, msg.retain)))

    # owner's thread ----------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background: never blocks, not even on a missing broker."""
        self._client.connect_async(self._host, self._port, keepalive=self._keepalive)
        self._client.loop_start()

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def subscribed(self) -> bool:
        """The broker confirmed the `next` subscription on the current connection."""
        return self._subscribed

    def pump(self, timeout: float = 0.0) -> None:
        """Handle what the network thread reported, then send what may be sent.

        Waits up to ``timeout`` seconds for the first report, so a loop can sleep here.
        """
        acks: list[int] = []
        try:
            item: tuple[str, Any] | None = self._inbox.get(timeout=timeout) if timeout > 0 \
                else self._inbox.get_nowait()
        except queue.Empty:
            item = None
        while item is not None:
            self._handle(item, acks)
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                item = None
        if acks and self.outbox is not None:
            self.outbox.acked(acks)  # one fsync for the batch
        self._send()

    def _handle(self, item: tuple[str, Any], acks: list[int]) -> None:
        kind, value = item
        if kind == "connect":
            self._connected = bool(value)
            self._subscribed = False
            if value:
                log.info("MQTT connected to %s:%d", self._host, self._port)
                self._client.publish(self.topics["status"], b"online", qos=1, retain=True)
                self._client.subscribe(self.topics["next"], qos=1)
                self._state_sent = float("-inf")  # refresh the retained state at once
        elif kind == "disconnect":
            if self._connected:
                log.warning("MQTT connection lost (%s); reconnecting with back-off", value)
            self._connected = self._subscribed = False
        elif kind == "suback":
            self._subscribed = bool(value) and self._connected
            if not value:
                log.error("MQTT: the broker refused the subscription to %s", self.topics["next"])
        elif kind == "puback":
            seq = self._mids.pop(value, None)
            if seq is not None:
                acks.append(seq)
            elif value == self._offline_mid:
                self._offline_mid = -1
        elif kind == "message":
            self._handle_message(*value)
        elif kind == "log":
            log.error("MQTT: %s", value)

    def _handle_message(self, topic: str, payload: bytes, retained: bool) -> None:
        if topic != self.topics["next"]:
            return
        if not payload:
            return  # the office cleared the retained `next`: nothing planned
        try:
            doc = parse_next(payload)
        except NextError as err:
            reason = str(err)
            self.refused_next.append(reason)
            log.warning("MQTT %s: refused: %s", topic, reason)
            return
        if self._on_next is not None:
            self._on_next(doc)

    def _send(self) -> None:
        if not self._connected:
            return  # nothing more for paho's memory queue during an outage
        if self.outbox is not None:
            for record in self.outbox.take():
                body = json.dumps(event_payload(self.hall, record), separators=(",", ":"))
                info = self._client.publish(self.topics["events"], body, qos=1)
                self._mids[info.mid] = int(record["seq"])
        if self._state is not None and self._clock() - self._state_sent >= STATE_EVERY_S:
            self._publish_state()

    def publish_state(self, doc: dict[str, Any]) -> None:
        """The retained state: sent on every change, and by ``pump`` at least every 10 s.

        QoS 0: a lost state is replaced by the next one within seconds, and QoS 1 would make
        paho queue stale states in memory during an outage; after a reconnect the latest is
        sent at once.
        """
        body = json.dumps(doc, separators=(",", ":"), sort_keys=True)
        if body == self._state:
            return
        self._state = body
        if self._connected:
            self._publish_state()

    def _publish_state(self) -> None:
        assert self._state is not None
        self._client.publish(self.topics["state"], self._state, qos=0, retain=True)
        self._state_sent = self._clock()

    def drain(self, timeout: float) -> bool:
        """Pump until the outbox is empty or ``timeout`` seconds passed; True if empty."""
        deadline = time.monotonic() + timeout
        while self.outbox is not None and self.outbox.unacked:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.pump(min(left, 0.1))
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Say ``offline`` (the will is not sent on a clean disconnect), then disconnect."""
        if self._connected:
            info = self._client.publish(self.topics["status"], b"offline", qos=1, retain=True)
            self._offline_mid = info.mid
            deadline = time.monotonic() + timeout
            while self._offline_mid != -1 and time.monotonic() < deadline:
                self.pump(0.05)
        self._client.disconnect()
        self._client.loop_stop()
        if self.outbox is not None:
            self.outbox.close()
