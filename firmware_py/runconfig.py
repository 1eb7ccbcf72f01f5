"""What ``scoreboard run`` is told: the command line's options over the config file, and
the facts of the machine it resolves them against (a Pi? a screen? which pins?)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from pathlib import Path

from arena import presets

DEVICE_TREE_MODEL = Path("/proc/device-tree/model")


@dataclass(frozen=True)
class RunOptions:
    """What the command line adds to the config file."""

    display_mode: str  # resolved: fullscreen, windowed or headless
    pin_factory: str  # resolved: lgpio or mock
    state_dir: Path
    time_scale: Fraction = Fraction(1)
    script: Path | None = None
    script_dir: Path | None = None
    snapshots: Path | None = None
    state_file: Path | None = None
    frame_log: Path | None = None  # --frame-log (firmware_py/outputs.py FrameLog)
    exit_when_done: bool = False


def is_raspberry_pi(model_file: Path = DEVICE_TREE_MODEL) -> bool:
    try:
        return "Raspberry Pi" in model_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def resolve_display_mode(mode: str, environ: Mapping[str, str], *, pi: bool, dri: bool) -> str:
    """``auto``: full screen on a Pi's console (a /dev/dri and no desktop session), a window
    on a desktop (DISPLAY or WAYLAND_DISPLAY set), else headless."""
    if mode != "auto":
        return mode
    desktop = bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))
    if pi and dri and not desktop:
        return "fullscreen"
    return "windowed" if desktop else "headless"


def resolve_pin_factory(name: str, *, pi: bool) -> str:
    return ("lgpio" if pi else "mock") if name == "auto" else name


def preset_text(name: str, preset_file: Path | None) -> tuple[str, str]:
    """A preset's TOML text and its source name (the journal keeps the whole text)."""
    if preset_file is not None:
        return presets.file_text(preset_file)  # a PresetError names the file
    presets.load(name)  # raises a PresetError naming the bundled ones
    source = resources.files(presets).joinpath(f"{name}.toml")
    return source.read_text(encoding="utf-8"), f"{name}.toml"


def sdl_environment(mode: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The SDL drivers a display mode needs, where the environment does not say: the dummy
    audio driver headless (there is no sound card to open), and ``kmsdrm`` full screen on a
    console without a desktop (the Pi's console: only pygame-ce's wheel has that driver)."""
    if mode == "headless":
        return {"SDL_AUDIODRIVER": "dummy"}
    if mode == "fullscreen" and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return {"SDL_VIDEODRIVER": "kmsdrm"}
    return {}
