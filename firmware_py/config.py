"""The hall's config file: one TOML file, every key optional, every key checked.

Default path ``/etc/scoreboard/scoreboard.toml``; a missing default file means all defaults,
a missing file given with ``--config`` is an error. Every key is declared once in ``KEYS``
(its type, default and meaning): the reader takes the tables' keys from it, and
docs/reference.py writes it into docs/technician.md, "Config keys". A mistake is reported
as ``FILE: TABLE.KEY: problem``; unknown tables and keys are mistakes too (a misspelt key
must not be silently ignored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import presets, words
from arena.core.errors import PresetError
from arena.core.phase import PLAYED_STAGES, Stage
from arena.core.tables import Table, parse_toml
from arena.core.values import MatchSetup, TeamInfo
from arena.wire import check_name, check_public_url
from firmware_py.linkconfig import LinkConfig, LinkConfigError, parse_link_config
from hardware.console import ConsoleConfig, ConsoleConfigError, load_config
from hardware.keymap import KeypadConfig, KeypadConfigError, load_keypad_config

DEFAULT_PATH = Path("/etc/scoreboard/scoreboard.toml")
DISPLAY_MODES = ("auto", "fullscreen", "windowed", "headless")
PIN_FACTORIES = ("auto", "lgpio", "mock")
LOG_LEVELS = ("debug", "info", "warning", "error")
COLOUR_HEX = set("0123456789abcdefABCDEF")


@dataclass(frozen=True)
class Key:
    """One key of the config file as its reader takes it: ``default`` is the TOML value the
    key has when it is absent (None: absent means "none", nothing is used)."""

    table: str
    name: str
    kind: str  # the TOML type the reader accepts
    default: str | int | float | bool | list[str] | None
    meaning: str


_HOME, _AWAY = MatchSetup().home, MatchSetup().away
# Every key of the tables this module reads itself; a test checks that each default given
# here is what the reader uses when the key is absent.
KEYS: tuple[Key, ...] = (
    Key("match", "preset", "string", "ice-hockey-2x20",
        "the bundled preset played until the office sends `next` (`scoreboard presets`)"),
    Key("match", "preset_file", "string", None,
        "your own preset file instead of a bundled one"),
    Key("match", "id", "string", "M1", "the match id: 1-64 of A-Z a-z 0-9 _ . -"),
    Key("match", "stage", "string", "group",
        "\"group\" (a draw may stand) or \"playoff\" (played to a decision)"),
    Key("match", "home", "string", _HOME.name, "the home team's name"),
    Key("match", "away", "string", _AWAY.name, "the away team's name"),
    Key("match", "home_colours", "array of two strings", list(_HOME.colours),
        "the home team's shirt and text colour, \"#rrggbb\""),
    Key("match", "away_colours", "array of two strings", list(_AWAY.colours),
        "the away team's shirt and text colour"),
    Key("state", "dir", "string", "/var/lib/scoreboard",
        "the journals and the pointer to the match on the board; writable by the service"),
    Key("display", "mode", "string", "auto",
        "\"auto\", \"fullscreen\", \"windowed\" or \"headless\""),
    Key("display", "size", "string", "1280x720",
        "window and headless size, WIDTHxHEIGHT; full screen uses the screen's own"),
    Key("display", "final_hold_s", "integer", 30,
        "a final result stays up this long (0 to 3600 s) before the next match"),
    Key("display", "screen_height_cm", "number", 68.5,
        "the picture's visible height (a 55-inch TV: 68.5 cm): sizes what the back row reads"),
    Key("display", "farthest_seat_m", "number", 25.0,
        "the farthest seat, 0.5 to 500 m: a letter reads from about 250 times its height"),
    Key("display", "public_url", "string", None,
        "the public site's address for the between-games QR code; absent: the office's"),
    Key("display", "language", "string", words.DEFAULT,
        f"the hall display's and the timekeeper's words: {', '.join(words.LANGUAGES)}"),
    Key("display", "operator_line", "string or boolean", "auto",
        "the display's operator line: \"auto\" hides it while an operator view is open"),
    Key("operator", "port", "integer", None,
        "the timekeeper's page on this port (0: any free one, logged); absent: not served"),
    Key("operator", "bind", "string", "0.0.0.0",
        "the page's address: \"0.0.0.0\" every interface, \"127.0.0.1\" this machine"),
    Key("operator", "window", "boolean", True,
        "in windowed mode, the operator view in a second window"),
    Key("gpio", "pin_factory", "string", "auto", "\"auto\", \"lgpio\" (a Pi) or \"mock\""),
    Key("serial", "url", "string", "", "the serial port (\"/dev/ttyUSB0\"); empty: no link"),
    Key("serial", "baud", "integer", 115200, "the link's speed, 8N1"),
    Key("serial", "state_hz", "number", 4.0,
        "most state documents a second while only a countdown changes (above 0, at most 100)"),
    Key("log", "level", "string", "info", "\"debug\", \"info\", \"warning\" or \"error\""),
    Key("schedule", "file", "string", None,
        "a local copy of the office's event file (every category) or a tournament file, "
        "relative to the config; absent: none"),
    Key("schedule", "hall", "string", None,
        "this hall's id in that file; absent: [mqtt] hall, else the file's only hall"),
)
# Tables read whole by their own modules, which check their keys.
FREE_TABLES: dict[str, str] = {
    "console": "hardware/console.py",
    "keypad": "hardware/keymap.py",
    "mqtt": "firmware_py/linkconfig.py",
}
_KEYS: dict[str, set[str]] = {}
for _key in KEYS:
    _KEYS.setdefault(_key.table, set()).add(_key.name)
_FREE_TABLES = set(FREE_TABLES)


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
class OperatorConfig:
    """The timekeeper's own view served on the LAN (docs/timekeeper.md, "The operator view")."""

    port: int | None = None  # None: not served; 0: any free port (tests), logged
    bind: str = "0.0.0.0"  # every interface: the phone at the table is another machine
    # The second window in windowed mode (a desktop at the table); off for simulated halls.
    window: bool = True


@dataclass(frozen=True)
class ScheduleConfig:
    """A local copy of the office's event file (several categories sharing halls) or of a
    tournament file, for a hall without an office (docs/technician.md, "A hall without an
    office"). The file itself is read by the daemon at start: a missing or broken one is shown
    on the board, it does not keep the board from starting."""

    file: Path | None = None  # None: no local schedule
    hall: str | None = None  # None: [mqtt] hall, or the tournament's only hall


@dataclass(frozen=True)
class Config:
    source: str = "defaults"
    match: MatchConfig = field(default_factory=MatchConfig)
    state_dir: Path = Path("/var/lib/scoreboard")
    display_mode: str = "auto"
    display_size: tuple[int, int] = (1280, 720)
    final_hold_s: int = 30  # a final result stays up this long before the next match
    # The hall the display hangs in (display/hall.py): the picture's visible height and the
    # farthest seat; the layout sizes what the back row must read from them. A 55-inch TV.
    screen_height_cm: float = 68.5
    farthest_seat_m: float = 25.0
    # The public site's address: a QR code on the between-games screen; None: no code.
    public_url: str | None = None
    # The hall display's operator line (the entry being typed, the last press's outcome):
    # "auto" shows it only while no operator view is open (page served, second window).
    operator_line: str | bool = "auto"
    # The hall display's words (docs/developer.md, "Languages"): one of words.LANGUAGES, per hall.
    display_language: str = words.DEFAULT
    operator: OperatorConfig = field(default_factory=OperatorConfig)
    pin_factory: str = "auto"
    console: ConsoleConfig = field(default_factory=load_config)
    keypad: KeypadConfig = field(default_factory=load_keypad_config)
    serial: SerialConfig = field(default_factory=SerialConfig)
    mqtt: LinkConfig | None = None
    log_level: str = "info"
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)


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
    return parse(parse_toml(text, str(path), ConfigError), str(path), base=path.parent)


def parse(data: dict[str, Any], source: str, *, base: Path | None = None) -> Config:
    """``base``: the config file's folder, which relative paths in it are taken from."""
    top = Table(data, source, ConfigError, keys=sorted([*_KEYS, *_FREE_TABLES]),
                entries="table")
    # Every table first (unknown keys are refused as each is opened), then the values.
    tables = {name: top.table(name, sorted(_KEYS[name]), default={}) for name in _KEYS}
    match, display, serial = tables["match"], tables["display"], tables["serial"]

    # [match]
    preset = match.text("preset", MatchConfig.preset)
    preset_file = match.text("preset_file", "")
    if not preset_file and preset not in presets.names():
        raise match.error("preset", f"unknown preset {preset!r} (one of "
                          f"{', '.join(presets.names())}; or preset_file for your own)")
    if preset_file:
        # Read and checked now: a missing or broken preset file is a config mistake, to be
        # reported as one (file, key, problem), not found by the daemon half-way up.
        try:
            presets.load_file(preset_file)
        except PresetError as err:
            raise match.error("preset_file", str(err)) from err
    match_id = match.text("id", "M1")
    try:
        check_name("match.id", match_id)
    except ValueError as err:
        raise match.error("id", str(err)) from err
    stage = match.choice("stage", tuple(s.value for s in PLAYED_STAGES), "group")
    default = MatchSetup()
    teams = []
    for side, info in (("home", default.home), ("away", default.away)):
        name = match.text(side, info.name)
        if not name.strip():
            raise match.error(side, "must not be empty")
        colours = match.get(f"{side}_colours", list(info.colours))
        if (not isinstance(colours, list) or len(colours) != 2
                or not all(_is_colour(c) for c in colours)):
            raise match.error(f"{side}_colours",
                              f"must be two \"#rrggbb\" colours, got {colours!r}")
        teams.append(TeamInfo(name, (colours[0], colours[1])))
    setup = MatchSetup(match_id=match_id, stage=Stage(stage), home=teams[0], away=teams[1])

    state_dir = tables["state"].text("dir", "/var/lib/scoreboard")
    if not state_dir:
        raise tables["state"].error("dir", "must not be empty")

    # [display]
    mode = display.choice("mode", DISPLAY_MODES, "auto")
    size_text = display.text("size", "1280x720")
    final_hold_s = display.integer("final_hold_s", minimum=None, default=30)
    if not 0 <= final_hold_s <= 3600:
        raise display.error("final_hold_s", f"must be 0 to 3600 seconds, got {final_hold_s}")
    try:
        size = parse_size(size_text)
    except ValueError as err:
        raise display.error("size", str(err)) from err
    screen_height_cm = display.number("screen_height_cm", 68.5)
    if not 1 <= screen_height_cm <= 5000:
        raise display.error("screen_height_cm", "must be the picture's visible height, 1 to "
                            f"5000 cm, got {screen_height_cm:g}")
    farthest_seat_m = display.number("farthest_seat_m", 25.0)
    if not 0.5 <= farthest_seat_m <= 500:
        raise display.error("farthest_seat_m", f"must be 0.5 to 500 m, got {farthest_seat_m:g}")
    public_url = _public_url(display)
    language = display.choice("language", words.LANGUAGES, words.DEFAULT)
    operator_line = display.get("operator_line", "auto")
    if operator_line != "auto" and not isinstance(operator_line, bool):
        raise display.error("operator_line", f"must be \"auto\", true or false, got "
                            f"{operator_line!r}")

    # [operator]
    op = tables["operator"]
    port = op.optional_integer("port", minimum=0, maximum=65535)
    bind = op.text("bind", OperatorConfig.bind)
    if not bind:
        raise op.error("bind", "must not be empty (\"0.0.0.0\": every interface)")
    window = op.boolean("window", default=True)

    pin_factory = tables["gpio"].choice("pin_factory", PIN_FACTORIES, "auto")

    # [console] and [mqtt]: tables of their own modules, read whole.
    try:
        console = load_config(top.table("console", default={}).data,
                              source=f"{source}: console")
    except ConsoleConfigError as err:
        raise ConfigError(str(err)) from err
    try:
        keypad = load_keypad_config(top.table("keypad", default={}).data,
                                    source=f"{source}: keypad")
    except KeypadConfigError as err:
        raise ConfigError(str(err)) from err

    url = serial.text("url", "")
    baud = serial.integer("baud", minimum=1, default=115200)
    state_hz = serial.number("state_hz", 4)
    if not 0 < state_hz <= 100:
        raise serial.error("state_hz", f"must be above 0 and at most 100, got {state_hz:g}")

    mqtt = None
    mqtt_table = top.optional_table("mqtt")
    if mqtt_table is not None:
        try:
            mqtt = parse_link_config(mqtt_table.data, source)
        except LinkConfigError as err:
            raise ConfigError(str(err)) from err

    level = tables["log"].choice("level", LOG_LEVELS, "info")
    schedule = _schedule(tables["schedule"], base)
    return Config(
        source=source,
        match=MatchConfig(preset, Path(preset_file) if preset_file else None, setup),
        state_dir=Path(state_dir),
        display_mode=mode,
        display_size=size,
        final_hold_s=final_hold_s,
        screen_height_cm=screen_height_cm,
        farthest_seat_m=farthest_seat_m,
        public_url=public_url,
        operator_line=operator_line,
        display_language=language,
        operator=OperatorConfig(port, bind, window),
        pin_factory=pin_factory,
        console=console,
        keypad=keypad,
        serial=SerialConfig(url, baud, state_hz),
        mqtt=mqtt,
        log_level=level,
        schedule=schedule,
    )


def _public_url(display: Table) -> str | None:
    """``[display] public_url``: an http(s) address a phone can open, short enough for the
    between screen's QR code; absent: no code (or the office's, from its ``next``)."""
    url = display.optional_string("public_url")
    if url is None:
        return None
    try:
        return check_public_url(url)
    except ValueError as err:
        raise display.error("public_url", str(err)) from err


def _schedule(table: Table, base: Path | None) -> ScheduleConfig:
    file = table.text("file", "")
    hall = table.text("hall", "")
    if hall:
        try:
            check_name("hall", hall)
        except ValueError as err:
            raise table.error("hall", str(err)) from err
    if not file:
        if hall:
            raise table.error("hall", "a hall needs a schedule: file = \"event.toml\" (the "
                              "office's event file, or a tournament file)")
        return ScheduleConfig()
    path = Path(file)
    if not path.is_absolute() and base is not None:
        path = base / path
    return ScheduleConfig(path, hall or None)


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
