"""The benches' own MQTT clients on the loopback broker: connected and subscribed before
they are handed back, so a measurement never starts with a message lost to a late
subscription. (The product's clients are firmware_py/mqtt.py's; these play the other side.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

OnMessage = Callable[[paho.Client, Any, paho.MQTTMessage], None]


def subscribed(port: int, client_id: str, topics: list[tuple[str, int]],
               on_message: OnMessage, timeout: float = 10.0) -> paho.Client:
    """A client of 127.0.0.1:``port`` subscribed to ``topics`` (filter, QoS), its network
    loop running; exits the bench if the broker does not confirm within ``timeout``."""
    ready = threading.Event()
    client = paho.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id=client_id, protocol=paho.MQTTv311)
    client.on_connect = lambda cl, u, f, rc, p: cl.subscribe(topics)
    client.on_subscribe = lambda *a: ready.set()
    client.on_message = on_message
    client.connect("127.0.0.1", port)
    client.loop_start()
    if not ready.wait(timeout):
        raise SystemExit(f"{client_id}: the broker did not confirm the subscription")
    return client
