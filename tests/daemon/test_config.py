"""The config file: defaults, the documented example, and errors that name file and key."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_py import config
from firmware_py.config import ConfigError
from hardware.console import HornAudio

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hall.toml"
    path.write_text(text)
    return path


def test_the_documented_example_holds_exactly_the_defaults() -> None:
    example = config.load(ROOT / "examples" / "scoreboard.toml")
    assert dataclasses.replace(example, source="x") == config.parse({}, "x")


def test_a_missing_default_file_means_defaults(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setattr(config, "DEFAULT_PATH", tmp_path / "absent.toml")
    loaded = config.load(None)
    assert loaded.match.preset == "ice-hockey-2x20"
    assert loaded.state_dir == Path("/var/lib/scoreboard")
    assert loaded.mqtt is None


def test_a_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"absent\.toml: no such file"):
        config.load(tmp_path / "absent.toml")


def test_values_are_read(tmp_path: Path) -> None:
    loaded = config.load(write(tmp_path, """
[match]
preset = "floorball-2x15"
id = "A3"
stage = "playoff"
home = "Lions"
away_colours = ["#000000", "#ffffff"]
[display]
mode = "windowed"
size = "1024x768"
screen_height_cm = 180
farthest_seat_m = 42.5
public_url = "https://cup.example.org/results/"
language = "cs"
[serial]
url = "loop://"
state_hz = 2.5
[console.horn]
pin = 21
active_high = false
audio = false
[mqtt]
broker = "mqtt://127.0.0.1:1883"
tournament = "cup"
hall = "hall-1"
"""))
    assert loaded.match.setup.match_id == "A3"
    assert loaded.match.setup.home.name == "Lions"
    assert loaded.match.setup.away.colours == ("#000000", "#ffffff")
    assert loaded.display_mode == "windowed" and loaded.display_size == (1024, 768)
    assert (loaded.screen_height_cm, loaded.farthest_seat_m) == (180, 42.5)
    assert loaded.public_url == "https://cup.example.org/results/"
    assert loaded.display_language == "cs"
    assert config.parse({}, "defaults").display_language == "en"
    assert loaded.serial.url == "loop://" and loaded.serial.state_hz == 2.5
    assert loaded.console.horn_pin == 21 and not loaded.console.horn_active_high
    assert loaded.console.horn_audio is HornAudio.OFF
    assert loaded.mqtt is not None and loaded.mqtt.hall == "hall-1"


@pytest.mark.parametrize(("text", "audio"), [
    ("", HornAudio.AUTO),  # where an audio output opens: a hall without a relay is heard
    ("[console.horn]\naudio = \"auto\"", HornAudio.AUTO),
    ("[console.horn]\naudio = true", HornAudio.ON),
    ("[console.horn]\naudio = false", HornAudio.OFF),
])
def test_the_audio_horn_is_auto_true_or_false(tmp_path: Path, text: str,
                                              audio: HornAudio) -> None:
    assert config.load(write(tmp_path, text)).console.horn_audio is audio


@pytest.mark.parametrize(("text", "message"), [
    ("[match]\npreset = \"curling\"", "hall.toml: match.preset: unknown preset 'curling'"),
    ("[match]\nid = \"a/b\"", "hall.toml: match.id: "),
    ("[match]\nstage = \"final\"", "hall.toml: match.stage: must be one of group, playoff"),
    ("[match]\nhome_colours = [\"red\", \"blue\"]", "hall.toml: match.home_colours: must be"),
    ("[match]\nhme = \"Lions\"", "hall.toml: match.hme: unknown key"),
    ("[displya]\nmode = \"auto\"", "hall.toml: displya: unknown table"),
    ("[display]\nmode = \"tv\"", "hall.toml: display.mode: must be one of auto"),
    ("[display]\nsize = \"big\"", "hall.toml: display.size: must be WIDTHxHEIGHT"),
    ("[display]\noperator_line = 1", "hall.toml: display.operator_line: must be \"auto\", "
     "true or false"),
    ("[display]\nscreen_height_cm = 0", "hall.toml: display.screen_height_cm: must be the "
     "picture's visible height, 1 to 5000 cm, got 0"),
    ("[display]\nfarthest_seat_m = 900", "hall.toml: display.farthest_seat_m: must be 0.5 to "
     "500 m, got 900"),
    ("[display]\npublic_url = \"results.local\"", "hall.toml: display.public_url: must be an "
     "http:// or https:// address, got 'results.local'"),
    ("[display]\npublic_url = \"ftp://results.local/\"", "display.public_url: must be an http"),
    ("[display]\npublic_url = \"http:///x\"", "display.public_url: must be an http"),
    ("[display]\npublic_url = \"http://results.local/a b\"", "display.public_url: must have no "
     "spaces"),
    (f"[display]\npublic_url = \"http://x.org/{'a' * 200}\"", "display.public_url: must be at "
     "most 200 characters (213 bytes of UTF-8: what a QR code on the screen holds), got 213"),
    ("[display]\npublic_url = \"\"", "display.public_url: must be a non-empty string"),
    ("[display]\nlanguage = \"de\"", "hall.toml: display.language: must be one of en, cs, sr, "
     "fi, got 'de'"),
    ("[operator]\nbind = \"\"", "hall.toml: operator.bind: must not be empty"),
    ("[gpio]\npin_factory = \"rpigpio\"", "hall.toml: gpio.pin_factory: must be one of"),
    ("[serial]\nbaud = \"fast\"", "hall.toml: serial.baud: must be a whole number"),
    ("[serial]\nstate_hz = 0", "hall.toml: serial.state_hz: must be above 0"),
    ("[state]\ndir = 3", "hall.toml: state.dir: must be a string"),
    ("[log]\nlevel = \"loud\"", "hall.toml: log.level: must be one of"),
    ("[console]\nhold_ms = -1", "hall.toml: console: hold_ms: must be a whole number"),
    ("[console.buttons.start_stop]\npin = 26", "console: horn.pin: GPIO26 is already used"),
    ("[console.horn]\naudio = \"yes\"",
     "console: horn.audio: must be \"auto\", true or false, got 'yes'"),
    ("[console.horn]\naudio = 1", "console: horn.audio: must be \"auto\", true or false"),
    ("[mqtt]\nbroker = \"http://x\"", "hall.toml: mqtt.broker: "),
    ("[mqtt]\nbroker = \"mqtt://h\"\ntournament = \"t\"", "hall.toml: mqtt.hall: missing"),
    ("match = 3", "hall.toml: match: must be a table"),
    ("[match", "hall.toml: not valid TOML"),
])
def test_errors_name_the_file_the_key_and_the_problem(tmp_path: Path, text: str,
                                                     message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config.load(write(tmp_path, text))
    assert message in str(caught.value)


@pytest.mark.slow
def test_scoreboard_run_reports_a_config_error_and_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, "[serial]\nbuad = 9600\n")
    done = subprocess.run([sys.executable, "-m", "firmware_py.cli", "run", "--config",
                           str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2
    assert "hall.toml: serial.buad: unknown key" in done.stderr


@pytest.mark.slow
def test_horn_off_reads_the_pin_from_the_config(tmp_path: Path) -> None:
    path = write(tmp_path, "[gpio]\npin_factory = \"mock\"\n[console.horn]\npin = 21\n"
                 "active_high = false\n")
    done = subprocess.run([sys.executable, "-m", "firmware_py.cli", "horn-off", "--config",
                           str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "GPIO21 driven off (active low)" in done.stdout


def test_a_hall_cannot_be_named_as_the_tables_level(tmp_path: Path) -> None:
    """docs/developer.md 4.4: ``arena/v1/<tournament>/standings/<group>`` is the office's tables, so
    a hall called ``standings`` would publish where the halls read tables."""
    path = tmp_path / "scoreboard.toml"
    path.write_text('[mqtt]\nbroker = "mqtt://127.0.0.1:1883"\ntournament = "T1"\n'
                    'hall = "standings"\n')
    with pytest.raises(ConfigError, match=r"mqtt.hall: hall 'standings': that level is"):
        config.load(path)


MQTT = '[mqtt]\nbroker = "mqtt://127.0.0.1:1883"\ntournament = "t"\nhall = "h"\n'
# (config text, the key the error must name): a wrong type or a misspelt key in every table.
BAD = [
    ("colour = 1", "colour"),
    ("match = 5", "match"),
    ("[match]\npreset = 5", "match.preset"),
    ("[match]\npresett = \"x\"", "match.presett"),
    ("[match]\nid = 5", "match.id"),
    ("[match]\nhome = 5", "match.home"),
    ("[match]\naway_colours = 5", "match.away_colours"),
    ("[match]\npreset_file = 3", "match.preset_file"),
    ("[match]\npreset_file = \"absent-preset.toml\"", "match.preset_file"),
    ("[state]\ndir = 5", "state.dir"),
    ("[state]\ndirr = \"x\"", "state.dirr"),
    ("[display]\nsize = 5", "display.size"),
    ("[display]\nfinal_hold_s = \"x\"", "display.final_hold_s"),
    ("[display]\nmod = \"auto\"", "display.mod"),
    ("[display]\noperator_line = \"yes\"", "display.operator_line"),
    ("[display]\nscreen_height_cm = \"tall\"", "display.screen_height_cm"),
    ("[display]\nfarthest_seat_m = true", "display.farthest_seat_m"),
    ("[display]\nfarthest_m = 30", "display.farthest_m"),
    ("[display]\npublic_url = 5", "display.public_url"),
    ("[display]\npublic_url = [\"http://x/\"]", "display.public_url"),
    ("[display]\npublic_uri = \"http://x/\"", "display.public_uri"),
    ("[display]\nlanguage = 1", "display.language"),
    ("[display]\nlanguage = \"CS\"", "display.language"),
    ("[operator]\nport = \"8080\"", "operator.port"),
    ("[operator]\nport = 70000", "operator.port"),
    ("[operator]\nprt = 8080", "operator.prt"),
    ("[operator]\nbind = 5", "operator.bind"),
    ("operator = 5", "operator"),
    ("[gpio]\npin_factory = 1", "gpio.pin_factory"),
    ("[gpio]\nfactory = \"mock\"", "gpio.factory"),
    ("[serial]\nbaud = true", "serial.baud"),
    ("[serial]\nurl = 5", "serial.url"),
    ("[serial]\nstate_hz = \"x\"", "serial.state_hz"),
    ("[log]\nlevel = 5", "log.level"),
    ("[log]\nlevle = \"info\"", "log.levle"),
    ("console = 5", "console"),
    ("[console]\ndebounce = 5", "debounce"),
    ("[console]\nkeypad = \"yes\"", "keypad"),
    ("[console]\nhorn = 5", "horn"),
    ("[console.horn]\nactive_hgh = false", "horn.active_hgh"),
    ("[console.horn]\nactive_low = true", "horn.active_low"),
    ("[console.horn]\npin = \"x\"", "horn.pin"),
    ("[console.horn]\nactive_high = \"no\"", "horn.active_high"),
    ("[console.horn]\naudio = \"hdmi\"", "horn.audio"),
    ("[console.horn]\naudio = [true]", "horn.audio"),
    ("[console.horn]\naudoi = true", "horn.audoi"),
    ("[console]\nbuttons = 5", "buttons"),
    ("[console.buttons]\nstart_stop = 5", "buttons.start_stop"),
    ("[console.buttons.start_stop]\npinn = 4", "buttons.start_stop.pinn"),
    ("[console.buttons.undo]\nhodl = true", "buttons.undo.hodl"),
    ("[console.buttons.start_stop]\npin = \"x\"", "buttons.start_stop.pin"),
    ("[console.buttons.start_stop]\naction = [\"x\"]", "buttons.start_stop.action"),
    ("[console.buttons.start_stop]\npull = 1", "buttons.start_stop.pull"),
    ("[console.buttons.start_stop]\ndisabled = true\nfoo = 1", "buttons.start_stop.foo"),
    ("mqtt = 5", "mqtt"),
    (MQTT + "brokr = 1", "mqtt.brokr"),
    (MQTT + "username = 5", "mqtt.username"),
    (MQTT + "password_file = 5", "mqtt.password_file"),
    (MQTT + "ca_file = [1]", "mqtt.ca_file"),
    ("[mqtt.extra]\na = 1", "mqtt.extra"),
]


@pytest.mark.parametrize(("text", "key"), BAD, ids=[key for _, key in BAD])
def test_scoreboard_run_refuses_every_wrong_type_and_key_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        text: str, key: str) -> None:
    from firmware_py import cli  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)  # a relative preset_file is looked for here
    path = write(tmp_path, text)
    assert cli.main(["run", "--config", str(path), "--headless"]) == 2
    out = capsys.readouterr()
    lines = out.err.splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith(f"scoreboard run: {path}: ")
    assert f": {key}: " in lines[0] or f" {key}: " in lines[0], lines[0]


@pytest.mark.parametrize("mirror", [[], ["--mirror", "hall-a"]], ids=["hall", "mirror"])
def test_scoreboard_run_refuses_a_frame_log_in_no_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], mirror: list[str]) -> None:
    from firmware_py import cli  # noqa: PLC0415

    path = write(tmp_path, MQTT)
    log = tmp_path / "absent" / "frames.jsonl"
    assert cli.main(["run", "--config", str(path), "--headless", *mirror,
                     "--frame-log", str(log)]) == 2
    err = capsys.readouterr().err
    assert err == (f"scoreboard run: --frame-log {log}: no such folder {log.parent}\n")
    assert not log.parent.exists()
