"""The demo's pieces as they are started: the generated configs and command lines of the
halls (``scoreboard run``), the event's office (``office serve``) and the private broker."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from demo.tournaments import DemoMatch

WINDOW_SIZE = (960, 540)  # two halls side by side on a desktop
SNAPSHOT_SIZE = (1280, 720)  # headless: the PNGs


def display_mode(headless: bool, environ: Mapping[str, str]) -> str:
    """Windows where a screen exists (X11 or Wayland), else headless; --headless forces it."""
    if headless:
        return "headless"
    return "windowed" if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY") else "headless"


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _toml(tables: Mapping[str, Mapping[str, object]]) -> str:
    out: list[str] = []
    for name, table in tables.items():
        out.append(f"[{name}]")
        out += [f"{key} = {_toml_value(value)}" for key, value in table.items()]
        out.append("")
    return "\n".join(out)


def hall_config(hall: str, *, state_dir: Path, display: str,
                size: tuple[int, int], broker: str | None, tournament: str | None,
                match: DemoMatch | None = None, log_level: str = "info") -> str:
    """The TOML config of one demo hall (``scoreboard run --config``): mock pins, its own
    state folder, the display mode and size, the match it plays first (``match``), and the
    private broker with its tournament and hall (``broker``: the office then sends every
    later match as ``next``; ``None``: no office)."""
    tables: dict[str, dict[str, object]] = {}
    if match is not None:
        table: dict[str, object] = {"preset": match.preset, "id": match.id,
                                    "stage": match.stage, "home": match.home,
                                    "away": match.away}
        if match.home_colours:
            table["home_colours"] = list(match.home_colours)
        if match.away_colours:
            table["away_colours"] = list(match.away_colours)
        tables["match"] = table
    tables["state"] = {"dir": str(state_dir)}
    tables["display"] = {"mode": display, "size": f"{size[0]}x{size[1]}"}
    tables["gpio"] = {"pin_factory": "mock"}
    # Simulated halls: never read (or grab) this machine's keyboards, even headless.
    tables["keypad"] = {"evdev": False}
    # Several halls on one desktop: one window each, no timekeeper's window beside it.
    tables["operator"] = {"window": False}
    if broker is not None:
        if tournament is None:
            raise ValueError("a hall on a broker needs its tournament")
        tables["mqtt"] = {"broker": broker, "tournament": tournament, "hall": hall}
    tables["log"] = {"level": log_level}
    return (f"# arena-demo: {hall}'s config (generated; see `arena-demo --help`)\n"
            + _toml(tables))


def hall_command(config: Path, *, display: str, state_dir: Path, script_dir: Path,
                 time_scale: float, snapshots: Path) -> list[str]:
    """``scoreboard run`` for one demo hall, as this Python runs it."""
    return [sys.executable, "-m", "firmware_py.cli", "run", "--config", str(config),
            "--headless" if display == "headless" else "--windowed", "--mock-pins",
            "--state-dir", str(state_dir), "--script-dir", str(script_dir),
            "--time-scale", f"{time_scale:g}", "--snapshots", str(snapshots),
            "--exit-when-done"]


def public_site_url(port: int) -> str:
    """The demo's public site, where it prints it and where the halls' QR codes lead."""
    return f"http://127.0.0.1:{port}/"


def office_command(tournament: Path, db: Path, broker: str,
                   http_port: int | None = None, *, public_port: int | None = None,
                   site: Path | None = None) -> list[str]:
    """``office serve`` for the demo's event (its page and the public site on 127.0.0.1
    only; ``site``: the public site's static export). The public site's loopback address
    is also told to the halls (``--public-url``), so their between-games screens show its
    QR code with no config of their own: on loopback it is the address the demo prints."""
    argv = [sys.executable, "-m", "office", "serve", "--tournament", str(tournament),
            "--db", str(db), "--broker", broker, "--log-level", "INFO"]
    if http_port is not None:
        argv += ["--http", str(http_port), "--host", "127.0.0.1"]
    if public_port is not None:
        argv += ["--public-port", str(public_port), "--public-bind", "127.0.0.1",
                 "--public-url", public_site_url(public_port)]
    if site is not None:
        argv += ["--export-site", str(site)]
    return argv


def mosquitto_config(port: int, log: Path, *, as_root: bool) -> str:
    """A private broker: loopback only, anonymous, nothing kept on disk."""
    lines = [f"listener {port} 127.0.0.1", "allow_anonymous true", "persistence false",
             "log_type error", "log_type warning", "log_type notice",
             f"log_dest file {log}"]
    if as_root:
        # As root mosquitto drops to the `mosquitto` user, which cannot write the work dir.
        lines.append("user root")
    return "# arena-demo: a private broker (generated)\n" + "\n".join(lines) + "\n"
