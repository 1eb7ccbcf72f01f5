"""The hall's config file: one TOML file, every key optional, every key checked.

Default path ``/etc/scoreboard/scoreboard.toml``; a missing default file means all defaults,
a missing file given with ``--config`` is an error. Every key and its default is documented
in ``examples/scoreboard.toml``. A mistake is reported as ``FILE: TABLE.KEY: problem``;
unknown tables and keys are mistakes too (a misspelt key must not be silently ignored).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_py import presets
from firmware_py.core.phase import Stage
from firmware_py.core.values import MatchSetup, TeamInfo
from firmware_py.linkconfig import LinkConfig, LinkConfigError, parse_link_config
from firmware_py.wire import check_name
from hardware.console import ConsoleConfig, ConsoleConfigError, load_config

DEFAULT_PATH = Path("/etc/scoreboard/scoreboard.toml")
DISPLAY_MODES = ("auto", "fullscreen", "windowed", "headless")
PIN_FACTORIES = ("auto", "lgpio", "mock")
LOG_LEVELS = ("debug", "info", "warning", "error")
COLOUR_HEX = set("0123456789abcdefABCDEF")

_KEYS: dict[str, set[str]] = {
    "match": {"preset", "preset_file", "id", "stage", "home", "away", "home_colours",
              "away_colours"},
    "state": {"dir"},
    "display": {"mode", "size", "final_hold_s"},
    "gpio": {"pin_factory"},
    "serial": {"url", "baud", "state_hz"},
    "log": {"level"},
}
_FREE_TABLES = {"console", "mqtt"}  # checked by their own modules


class ConfigError(ValueError):
    """The config file is invalid; the message names the file, the key and the problem."""


@dataclass(frozen=True)
class MatchConfig:
    preset: str = "ice-hockey-2x20"
    preset_file: Path | None = None  # a user's own preset, instead of a bundled one
    setup: MatchSetup = field(default_factory=MatchSetup)


@dataclass(frozen=True)
class SerialConfig:
    url: str = ""  # "" = no serial link
    baud: int = 115200
    state_hz: float = 4.0  # 115200 baud fits ~19 documents a second: never every frame


@dataclass(frozen=True)
class Config:
    source: str = "defaults"
    match: MatchConfig = field(default_factory=MatchConfig)
    state_dir: Path = Path("/var/lib/scoreboard")
    display_mode: str = "auto"
    display_size: tuple[int, int] = (1280, 720)
    final_hold_s: int = 30  # a final result stays up this long before the next match
    pin_factory: str = "auto"
    console: ConsoleConfig = field(default_factory=load_config)
    serial: SerialConfig = field(default_factory=SerialConfig)
    mqtt: LinkConfig | None = None
    log_level: str = "info"


def load(path: Path | None) -> Config:
    """The config at ``path`` (``None``: the default path, which may be missing)."""
    explicit = path is not None
    path = path or DEFAULT_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        if explicit:
            raise ConfigError(f"{path}: no such file") from err
        return parse({}, f"{path} (absent: defaults)")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read: {err}") from err
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from err
    return parse(data, str(path))


def parse(data: dict[str, Any], source: str) -> Config:
    def fail(key: str, problem: str) -> ConfigError:
        return ConfigError(f"{source}: {key}: {problem}")

    for name, value in data.items():
        if name not in _KEYS and name not in _FREE_TABLES:
            raise fail(name, f"unknown table (one of {', '.join(sorted([*_KEYS, *_FREE_TABLES]))})")
        if not isinstance(value, dict):
            raise fail(name, f"must be a table ([{name}])")
        for key in value if name in _KEYS else ():
            if key not in _KEYS[name]:
                raise fail(f"{name}.{key}", "unknown key (misspelt?)")

    def get(table: str, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        value = data.get(table, {}).get(key, default)
        if isinstance(value, bool) and kind is not bool:
            raise fail(f"{table}.{key}", f"must be {_kind_name(kind)}, got {value!r}")
        if not isinstance(value, kind):
            raise fail(f"{table}.{key}", f"must be {_kind_name(kind)}, got {value!r}")
        return value

    def choice(table: str, key: str, options: tuple[str, ...], default: str) -> str:
        value = get(table, key, str, default)
        if value not in options:
            raise fail(f"{table}.{key}", f"must be one of {', '.join(options)}, got {value!r}")
        return str(value)

    # [match]
    preset = get("match", "preset", str, MatchConfig.preset)
    preset_file = get("match", "preset_file", str, "")
    if not preset_file and preset not in presets.names():
        raise fail("match.preset", f"unknown preset {preset!r} (one of "
                   f"{', '.join(presets.names())}; or preset_file for your own)")
    match_id = get("match", "id", str, "M1")
    try:
        check_name("match.id", match_id)
    except ValueError as err:
        raise fail("match.id", str(err)) from err
    stage = choice("match", "stage", tuple(s.value for s in Stage), "group")
    default = MatchSetup()
    teams = []
    for side, info in (("home", default.home), ("away", default.away)):
        name = get("match", side, str, info.name)
        if not name.strip():
            raise fail(f"match.{side}", "must not be empty")
        colours = get("match", f"{side}_colours", list, list(info.colours))
        if len(colours) != 2 or not all(_is_colour(c) for c in colours):
            raise fail(f"match.{side}_colours", f"must be two \"#rrggbb\" colours, got {colours!r}")
        teams.append(TeamInfo(name, (colours[0], colours[1])))
    setup = MatchSetup(match_id=match_id, stage=Stage(stage), home=teams[0], away=teams[1])

    state_dir = get("state", "dir", str, "/var/lib/scoreboard")
    if not state_dir:
        raise fail("state.dir", "must not be empty")

    # [display]
    mode = choice("display", "mode", DISPLAY_MODES, "auto")
    size_text = get("display", "size", str, "1280x720")
    final_hold_s = get("display", "final_hold_s", int, 30)
    if not 0 <= final_hold_s <= 3600:
        raise fail("display.final_hold_s", f"must be 0 to 3600 seconds, got {final_hold_s}")
    try:
        size = parse_size(size_text)
    except ValueError as err:
        raise fail("display.size", str(err)) from err

    pin_factory = choice("gpio", "pin_factory", PIN_FACTORIES, "auto")

    try:
        console = load_config(data.get("console", {}), source=f"{source}: console")
    except ConsoleConfigError as err:
        raise ConfigError(str(err)) from err

    url = get("serial", "url", str, "")
    baud = get("serial", "baud", int, 115200)
    if baud <= 0:
        raise fail("serial.baud", f"must be a positive number, got {baud}")
    state_hz = get("serial", "state_hz", (int, float), 4)
    if not 0 < state_hz <= 100:
        raise fail("serial.state_hz", f"must be above 0 and at most 100, got {state_hz}")

    mqtt = None
    if "mqtt" in data:
        try:
            mqtt = parse_link_config(data["mqtt"], source)
        except LinkConfigError as err:
            raise ConfigError(str(err)) from err

    level = choice("log", "level", LOG_LEVELS, "info")
    return Config(
        source=source,
        match=MatchConfig(preset, Path(preset_file) if preset_file else None, setup),
        state_dir=Path(state_dir),
        display_mode=mode,
        display_size=size,
        final_hold_s=final_hold_s,
        pin_factory=pin_factory,
        console=console,
        serial=SerialConfig(url, baud, float(state_hz)),
        mqtt=mqtt,
        log_level=level,
    )


def parse_size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"must be WIDTHxHEIGHT in pixels, e.g. \"1280x720\", got {text!r}")
    width, height = int(parts[0]), int(parts[1])
    if not (320 <= width <= 7680 and 200 <= height <= 4320):
        raise ValueError(f"{text}: width 320..7680 and height 200..4320 pixels")
    return width, height


def _is_colour(value: object) -> bool:
    return (isinstance(value, str) and len(value) == 7 and value[0] == "#"
            and set(value[1:]) <= COLOUR_HEX)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "a whole number", float: "a number", list: "a list",
             bool: "true or false"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))
