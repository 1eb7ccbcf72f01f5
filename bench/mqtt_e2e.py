"""Benchmark: an event journalled (fsync'd) -> received by a subscriber through mosquitto.

Starts its own mosquitto on a free port of 127.0.0.1 (own config and data in a temporary
directory; stopped by its pid at the end), then:

1. latency: ``--events`` events are journalled one by one at ``--rate`` a second and sent
   through the Outbox and HallLink exactly as the scoreboard does; prints p50/p99/max of
   the time from the end of the journal's fsync to the subscriber's ``on_message``. The
   subscriber stands in for the office: it publishes the hall's ``acks`` for what it
   received (no SQLite here: bench/office.py measures the store), since a hall counts an
   event delivered only on the office's word;
2. catch-up: a backlog of ``--outage-min`` minutes at ``--outage-rate`` events a second is
   journalled while no broker runs; then the link starts, and the rate at which the backlog
   reaches the subscriber is printed (events per second, from the link's start).

    python bench/mqtt_e2e.py [--events 10000] [--rate 500] [--outage-min 10]
                             [--outage-rate 10] [--max-in-flight 20]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paho.mqtt.client as paho
from cpuload import ms, percentile
from loopclient import subscribed
from report import add_write_docs, run_writing_docs

from arena import wire
from firmware_py.journal import Journal
from firmware_py.loopback import find_mosquitto, free_port, port_open
from firmware_py.mqtt import HallLink
from firmware_py.outbox import JournalTail, Outbox, stored_path


def start_broker(directory: Path, port: int) -> subprocess.Popen[bytes]:
    conf = directory / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
                    "max_queued_messages 0\nuser root\nlog_dest none\n")
    proc = subprocess.Popen([find_mosquitto() or "mosquitto", "-c",
                             str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if port_open(port):
            return proc
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    raise SystemExit("mosquitto did not start")


class Subscriber:
    """Receives a hall's events and acknowledges them as the office does (``acks``)."""

    def __init__(self, port: int, topic: str, tournament: str, hall: str) -> None:
        self.received: dict[int, int] = {}  # seq -> monotonic ns of first arrival
        self.acks = wire.hall_topic(tournament, hall, wire.ACKS)
        self.upto = 0
        self.lock = threading.Lock()
        self.client = subscribed(port, f"bench-sub-{os.getpid()}", [(topic, 1)],
                                 self._on_message)

    def _on_message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        now = time.monotonic_ns()
        seq = int(msg.payload.split(b'"seq":', 1)[1].split(b",", 1)[0])  # cheap, no json
        with self.lock:
            self.received.setdefault(seq, now)
            before = self.upto
            while self.upto + 1 in self.received:
                self.upto += 1
            upto = self.upto
        if upto != before:
            match = msg.payload.split(b'"match":"', 1)[1].split(b'"', 1)[0].decode()
            client.publish(self.acks, wire.build_acks({match: upto}), qos=1, retain=True)

    def count(self) -> int:
        with self.lock:
            return len(self.received)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def record(seq: int) -> dict[str, Any]:
    return {"type": "event", "match": "B1", "seq": seq, "at": seq * 1_000_000,
            "event": "goal", "data": {"team": "home", "player": 7}}


def latency(work: Path, port: int, events: int, rate: float, max_in_flight: int) -> None:
    sub = Subscriber(port, wire.hall_topic("BENCH", "H1", wire.EVENTS), "BENCH", "H1")
    journal, _ = Journal.open(work / "lat.journal")
    outbox = Outbox(stored_path(journal.path), max_in_flight)
    tail = JournalTail(journal.path)
    link = HallLink("127.0.0.1", port, "BENCH", "H1", outbox=outbox, client_id="bench-lat")
    link.start()
    while not link.connected:
        link.pump(0.05)
    journalled: dict[int, int] = {}
    period = 1.0 / rate
    due = time.monotonic()
    for seq in range(1, events + 1):
        journal.append(record(seq))
        journalled[seq] = time.monotonic_ns()
        outbox.add(tail.read())
        link.pump()
        due += period
        while (left := due - time.monotonic()) > 0:
            link.pump(left)
    link.drain(60)
    deadline = time.monotonic() + 30
    while sub.count() < events and time.monotonic() < deadline:
        time.sleep(0.01)
    link.close()
    journal.close()
    sub.close()
    lat = [sub.received[s] - journalled[s] for s in journalled if s in sub.received]
    print(f"latency, journalled -> received, {len(lat)} of {events} events at {rate:g}/s, "
          f"max {max_in_flight} in flight:")
    print(f"  p50 {ms(percentile(lat, 50))}  p99 {ms(percentile(lat, 99))}  "
          f"max {ms(max(lat))}")


def catch_up(work: Path, events: int, max_in_flight: int) -> None:
    journal, _ = Journal.open(work / "outage.journal")
    for start in range(1, events + 1, 500):  # the backlog, written while no broker runs
        journal.append(*(record(s) for s in range(start, min(start + 500, events + 1))))
    journal.close()
    port = free_port()
    broker = start_broker(work, port)
    try:
        sub = Subscriber(port, wire.hall_topic("BENCH", "H2", wire.EVENTS), "BENCH", "H2")
        outbox = Outbox(stored_path(journal.path), max_in_flight)
        outbox.add(JournalTail(journal.path).read())
        link = HallLink("127.0.0.1", port, "BENCH", "H2", outbox=outbox, client_id="bench-cu")
        t0 = time.monotonic()
        link.start()
        link.drain(600)
        while sub.count() < events and time.monotonic() - t0 < 600:
            time.sleep(0.005)
        elapsed = time.monotonic() - t0
        link.close()
        sub.close()
        print(f"catch-up: {sub.count()} of {events} backlog events in {elapsed:.2f} s = "
              f"{sub.count() / elapsed:,.0f} events/s (max {max_in_flight} in flight)")
    finally:
        os.kill(broker.pid, signal.SIGTERM)
        broker.wait(10)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=10_000)
    p.add_argument("--rate", type=float, default=500.0, help="events a second (latency)")
    p.add_argument("--outage-min", type=float, default=10.0)
    p.add_argument("--outage-rate", type=float, default=10.0,
                   help="events a second during the outage (a real game has a few a minute)")
    p.add_argument("--max-in-flight", type=int, default=20)
    add_write_docs(p)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="mqtt-bench-") as tmp:
        work = Path(tmp)
        port = free_port()
        broker = start_broker(work, port)
        try:
            latency(work, port, args.events, args.rate, args.max_in_flight)
        finally:
            os.kill(broker.pid, signal.SIGTERM)
            broker.wait(10)
        catch_up(work, int(args.outage_min * 60 * args.outage_rate), args.max_in_flight)
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "mqtt_e2e"))
