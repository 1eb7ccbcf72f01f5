"""Benchmark: the public site under a thousand phones, and the office's own latency meanwhile.

Starts its own mosquitto on a free port of 127.0.0.1 (config and data in a temporary
directory; stopped by its pid at the end) and, in this process, the office as ``office serve
--public-port`` runs it: a real ``OfficeService`` (``OfficePeer``, a ``Store`` in the
temporary directory, a ``SnapshotBoard``) pumping on its own thread, the ``PublicSite`` on
its thread and the ``PublicWeb`` server on 127.0.0.1. The tournament is bench/office.py's
(96 teams, 16 groups, 240 matches in 4 halls, every match played through the core); the
store holds all but the last ``2 * --matches`` matches. Each hall publishes its retained
``state`` every second with its clock running down, so the front page changes every second
as on a match day (most answers are 200s, not 304s).

1. Without load: ``--matches`` matches are published as their halls would (QoS 1); for each
   the time from handing the final ``match_ended`` to paho until a subscriber receives the
   retained ``standings/<group>`` that counts it (bench/office.py's measurement).
2. With load: ``--clients`` clients (one asyncio process of their own, raw sockets, HTTP/1.1
   keep-alive) each poll one page of the site every ``--interval`` seconds with
   ``If-None-Match`` for ``--seconds`` seconds (most the front page, the rest a team's, a
   hall's, the schedule or public.json, as phones would); meanwhile the other
   ``--matches`` matches are published, spread over the load, and timed the same way.

Prints the clients' p50/p99/max latency (request written -> whole answer read), requests a
second, the 200/304 mix and errors; then the office's final -> standings p50/p99 without and
with the load side by side, and their ratio. A benchmark on real time, not a test: it
always exits 0; its figures depend on the machine.

    python bench/public_load.py [--clients 1000] [--seconds 60] [--interval 1]
                                [--matches 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from cpuload import ms, percentile, whole_number
from mqtt_e2e import free_port, start_broker
from report import add_write_docs, run_writing_docs

from arena import wire
from office.peer import OfficePeer
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard
from office.web.publicweb import PublicSite, PublicWeb


def _bench_office() -> Any:
    """``bench/office.py`` (bench/office_module.py loads it by path)."""
    from office_module import bench_office  # noqa: PLC0415 - beside this script

    return bench_office()


# -- the phones -------------------------------------------------------------------------------


async def _client(host: str, port: int, path: str, *, interval: float, until: float,
                  out: dict[str, Any]) -> None:
    """One phone: a keep-alive connection, a conditional GET every ``interval``."""
    etag = ""
    await asyncio.sleep(random.uniform(0, interval))  # phones do not poll in step
    reader = writer = None
    while time.monotonic() < until:
        due = time.monotonic() + interval
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            assert reader is not None
            head = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip\r\n"
            if etag:
                head += f"If-None-Match: {etag}\r\n"
            start = time.monotonic_ns()
            writer.write((head + "\r\n").encode())
            status_line = await reader.readline()
            length = 0
            close = False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value)
                elif name == "etag":
                    etag = value.strip()
                elif name == "connection" and value.strip().lower() == "close":
                    close = True
            status = int(status_line.split()[1]) if status_line else 0
            if status != 304 and length:
                await reader.readexactly(length)
            out["latency"].append(time.monotonic_ns() - start)
            out["status"][status] = out["status"].get(status, 0) + 1
            out["bytes"] += length if status != 304 else 0
            if close or not status_line:
                writer.close()
                reader = writer = None
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as err:
            out["errors"][type(err).__name__] = out["errors"].get(type(err).__name__, 0) + 1
            if writer is not None:
                writer.close()
            reader = writer = None
        await asyncio.sleep(max(0.0, due - time.monotonic()))
    if writer is not None:
        writer.close()


async def _phones(host: str, port: int, paths: list[str], *, clients: int, interval: float,
                  seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {"latency": [], "status": {}, "bytes": 0, "errors": {}}
    until = time.monotonic() + seconds
    rng = random.Random(1)
    # Most phones watch the front page; the rest a team's, a hall's, the schedule, the JSON.
    chosen = ["/" if rng.random() < 0.6 else rng.choice(paths) for _ in range(clients)]
    t0 = time.monotonic()
    await asyncio.gather(*(_client(host, port, p, interval=interval, until=until, out=out)
                           for p in chosen))
    out["elapsed"] = time.monotonic() - t0
    return out


def load_worker(args: argparse.Namespace) -> int:
    """The phones' process (``--load-worker``): prints one JSON line of figures."""
    paths = json.loads(args.paths)
    out = asyncio.run(_phones("127.0.0.1", args.port, paths, clients=args.clients,
                              interval=args.interval, seconds=args.seconds))
    lat = sorted(out["latency"])
    print(json.dumps({"n": len(lat), "p50": percentile(lat, 50) if lat else 0,
                      "p99": percentile(lat, 99) if lat else 0, "max": max(lat, default=0),
                      "status": out["status"], "bytes": out["bytes"],
                      "errors": out["errors"], "elapsed": out["elapsed"]}))
    return 0


# -- the halls' clocks ------------------------------------------------------------------------


class Clocks:
    """Each hall's retained ``state`` once a second, its clock running down."""

    def __init__(self, pub: Any, t: Any) -> None:
        self.pub, self.tournament = pub, t.id
        # Each hall shows its last match of the day as being played.
        self.halls = {m.hall: m for m in t.matches}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="clocks", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        left = 20 * 60 * 1000
        while not self.stop.wait(1.0):
            left = left - 1000 if left > 1000 else 20 * 60 * 1000
            for hall, m in self.halls.items():
                doc = {"match": m.id, "phase": "period", "period": 1, "clock_ms": left,
                       "running": True, "score": {"home": 0, "away": 0},
                       "teams": {"home": {"name": m.home.team}, "away": {"name": m.away.team}}}
                self.pub.publish(wire.hall_topic(self.tournament, hall, wire.STATE),
                                 json.dumps(doc).encode(), qos=0, retain=True)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


# -- the office's latency ---------------------------------------------------------------------


def play_matches(bo: Any, t: Any, games: Any, matches: list[Any], *, pub: Any, watcher: Any,
                 office: Any, sent: int, spread: float) -> tuple[list[int], int]:
    """Publish ``matches`` as their halls would, one every ``spread`` seconds; the final ->
    standings latencies (ns) and the count of messages sent so far."""
    finals: list[int] = []
    for m in matches:
        due = time.monotonic() + spread
        topic = wire.hall_topic(t.id, m.hall, wire.EVENTS)
        *live, final = games[m.id]
        for p in live:
            pub.publish(topic, wire.encode(p), qos=1).wait_for_publish(10)
        sent += len(live)
        office.wait_handled(sent)
        target = watcher.played[m.group][0] + 2
        start = time.monotonic_ns()
        pub.publish(topic, wire.encode(final), qos=1)
        finals.append(watcher.group_played(m.group, target) - start)
        sent += 1
        while (left := due - time.monotonic()) > 0:
            time.sleep(left)
    return finals, sent


def run(args: argparse.Namespace) -> None:
    bo = _bench_office()
    t0 = time.monotonic()
    t = bo.big_cup()
    games = bo.play_all(t, 7)
    print(f"{len(t.matches)} matches played through the core in {time.monotonic() - t0:.1f} s")
    later = t.matches[-2 * args.matches:]
    quiet, loaded = later[: args.matches], later[args.matches:]
    with tempfile.TemporaryDirectory(prefix="public-load-") as tmp:
        work = Path(tmp)
        store = Store(work / "office.sqlite")
        stored = bo.prefill(store, games, [m.id for m in t.matches[: -2 * args.matches]])
        port = free_port()
        broker = start_broker(work, port)
        peer = office = watcher = pub = clocks = web = site = None
        try:
            peer = OfficePeer("127.0.0.1", port, t.id, client_id=f"bench-public-{os.getpid()}")
            peer.start()
            deadline = time.monotonic() + 10
            while not peer.subscribed and time.monotonic() < deadline:
                time.sleep(0.01)
            board = SnapshotBoard()
            service = OfficeService(t, store, peer, board)
            site = PublicSite(board, t.language)
            site.start()
            web = PublicWeb(site, host="127.0.0.1", port=0)
            web.start()
            watcher = bo.Watcher(port, wire.standings_filter(t.id), f"bench/public-{os.getpid()}")
            office = bo.ServiceThread(service)
            pub = bo.publisher(port)
            watcher.wait(lambda: len(watcher.played) == len(t.groups), "the first tables")
            clocks = Clocks(pub, t)
            while site.current() is None:
                site.wait_changed(None, 1.0)
            current = site.current()
            assert current is not None
            paths = ["/" + p for p in current.site.paths()] + ["/public.json"]
            front = current.page("")
            print(f"public site: {web.url('/')} ({len(paths)} pages; the front page "
                  f"{len(front.body) if front else 0} B, {len(front.gzipped) if front else 0}"
                  f" B gzipped); the store held {stored} events")

            quiet_finals, sent = play_matches(bo, t, games, quiet, pub=pub, watcher=watcher,
                                              office=office, sent=0, spread=0.5)
            worker = subprocess.Popen(
                [sys.executable, __file__, "--load-worker", "--port", str(web.port),
                 "--paths", json.dumps(paths), "--clients", str(args.clients),
                 "--seconds", str(args.seconds), "--interval", str(args.interval)],
                stdout=subprocess.PIPE, text=True)
            # Let every phone connect and poll once before the office is timed.
            time.sleep(min(args.interval * 2, args.seconds / 4))
            spread = max(0.0, (args.seconds * 0.6) / max(1, len(loaded)))
            loaded_finals, sent = play_matches(bo, t, games, loaded, pub=pub, watcher=watcher,
                                               office=office, sent=sent, spread=spread)
            output, _ = worker.communicate(timeout=args.seconds + 120)
            phones = json.loads(output.strip().splitlines()[-1])
        finally:
            for part in (clocks, pub, watcher):
                if part is None:
                    continue
                if part is pub:
                    pub.disconnect()
                    pub.loop_stop()
                else:
                    part.close()
            if office is not None:
                office.close()
            if web is not None:
                web.stop()
            if site is not None:
                site.stop()
            if peer is not None:
                peer.close()
            store.close()
            os.kill(broker.pid, signal.SIGTERM)
            broker.wait(10)

    rate = phones["n"] / phones["elapsed"]
    print(f"{args.clients} clients polling every {args.interval:g} s for {args.seconds:g} s "
          f"(keep-alive, If-None-Match, gzip): {phones['n']} answers, {rate:,.0f}/s, "
          f"{phones['bytes'] / phones['elapsed'] / 1e6:.2f} MB/s")
    print(f"  latency p50 {ms(phones['p50'])}  p99 {ms(phones['p99'])}  "
          f"max {ms(phones['max'])};  status {phones['status']};  errors {phones['errors']}")
    print("office: match_ended -> standings/<group> through mosquitto")
    print(f"  {'':14}{'p50':>12}{'p99':>12}{'max':>12}")
    for label, values in (("without load", quiet_finals), ("with load", loaded_finals)):
        print(f"  {label:14}{ms(percentile(values, 50)):>12}{ms(percentile(values, 99)):>12}"
              f"{ms(max(values)):>12}   ({len(values)} matches)")
    p50 = percentile(loaded_finals, 50) / percentile(quiet_finals, 50)
    p99 = percentile(loaded_finals, 99) / percentile(quiet_finals, 99)
    print(f"  with / without: p50 {p50:.1f}x, p99 {p99:.1f}x")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=whole_number(), default=1000,
                   help="concurrent clients (phones)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long they poll")
    p.add_argument("--interval", type=float, default=1.0,
                   help="seconds between one client's requests (the page polls every 1 s)")
    p.add_argument("--matches", type=whole_number(120), default=20,
                   help="matches timed without and again with the load")
    p.add_argument("--load-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--paths", default="[]", help=argparse.SUPPRESS)
    add_write_docs(p)
    args = p.parse_args()
    if args.load_worker:
        return load_worker(args)
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(run_writing_docs(main, "public_load"))
