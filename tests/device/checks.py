"""What the host makes of a virtual Pi run: one row per check, each with its figure.

Tolerances, and why:
- a press's edge time: the agent notes its clock, then writes the simulated line; the board's
  stamp comes from the kernel's edge event, so it must fall after that note and within 50 ms
  of it (the emulated CPU is slow; on a Pi it is well under a millisecond);
- a press stamped after the agent began the pull and within 50 ms of its write (a starved
  agent may take long over the write itself);
- the relay line: up after the press and down after the release, each within 5 s of its
  edge (the emulated board applies a press 0.05-3.7 s late, varying from press to press, as
  frames through software GL hold its loop; on a Pi it is a few ms). Both lateness figures
  are printed;
- the audio horn: sound in the captured wav where the board's clock says, within 2 s, for
  at least half the time the relay was closed. Loose on purpose: the wav's clock is the
  emulated sound card's, which on a busy host drops buffers, so over the ~30 s from the
  mixer's start to the horn it drifts by up to 1.5 s (seen), and the sound comes in bursts.
  This row shows the audio horn comes up and sounds with the horn; its timing to the
  millisecond is bench/horn_deadline.py's, on real hardware;
- the clock after a SIGKILL: the stop after the restart shows exactly 20:00 minus the time
  it ran (anchor arithmetic: to the millisecond, as the clock rounds);
- HORN is held 8 s, and the relay and the audio horn are judged when the board applied the
  press before the release's edge: an emulated CPU drawing through software GL may need
  seconds a frame, and a loop later than the hold takes the press and the release in one
  pass (the horn then rightly never sounds). The row then says so;
- the picture: the screendump and ``scoreboard snapshot`` of the same state document, pixel
  for pixel; at most 0.1 % of the pixels may differ (scaling or dithering on the way to the
  scanout would show as more).
"""

from __future__ import annotations

import array
import math
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRESS_MS = 50.0
RELAY_MS = 50.0
AUDIO_SHARE = 0.5
AUDIO_START_S = 2.0
PICTURE_SHARE = 0.001
RELAY_LATE_S = 5.0


@dataclass(frozen=True)
class Row:
    check: str
    ok: bool | None  # None: not measured (said why in the figure)
    figure: str


def table(rows: list[Row]) -> str:
    width = max(len(r.check) for r in rows)
    lines = [f"{'CHECK':<{width}}  RESULT  FIGURE"]
    for r in rows:
        mark = "ok" if r.ok else ("n/a" if r.ok is None else "FAIL")
        lines.append(f"{r.check:<{width}}  {mark:<6}  {r.figure}")
    return "\n".join(lines)


def sound_spans(path: Path, *, window_s: float = 0.01, threshold_db: float = -30.0
                ) -> tuple[list[tuple[float, float]], float]:
    """(start, end) seconds of each stretch louder than ``threshold_db`` (RMS, full scale),
    and the file's length. 16-bit PCM, any channel count (qemu's wav backend writes that)."""
    with wave.open(str(path)) as w:
        rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
        frames = w.readframes(w.getnframes())
    if width != 2:
        raise ValueError(f"{path}: {8 * width}-bit samples, expected 16")
    samples = array.array("h")
    samples.frombytes(frames[: len(frames) - len(frames) % 2])
    step = max(1, int(rate * window_s)) * channels
    spans: list[tuple[float, float]] = []
    start: float | None = None
    for i in range(0, len(samples) - step + 1, step):
        chunk = samples[i:i + step]
        rms = math.sqrt(sum(s * s for s in chunk) / len(chunk)) / 32768
        loud = rms > 0 and 20 * math.log10(rms) > threshold_db
        t = i / channels / rate
        if loud and start is None:
            start = t
        elif not loud and start is not None:
            spans.append((start, t))
            start = None
    length = len(samples) / channels / rate
    if start is not None:
        spans.append((start, length))
    # Merge gaps shorter than two windows (a loop point, a mixer buffer).
    merged: list[tuple[float, float]] = []
    for a, b in spans:
        if merged and a - merged[-1][1] < 2 * window_s:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged, length


def compare_pictures(screen: Path, snapshot: Path) -> tuple[int, int, int, tuple[int, int]]:
    """(pixels that differ, all pixels, largest channel difference, size) of two PNGs."""
    import pygame  # noqa: PLC0415 - the host's dev venv has it; nothing else here needs it

    a = pygame.image.load(str(screen))
    b = pygame.image.load(str(snapshot))
    if a.get_size() != b.get_size():
        return -1, a.get_width() * a.get_height(), 255, a.get_size()
    ra = pygame.image.tobytes(a.convert(24) if a.get_bitsize() != 24 else a, "RGB")
    rb = pygame.image.tobytes(b.convert(24) if b.get_bitsize() != 24 else b, "RGB")
    differ = 0
    worst = 0
    for i in range(0, len(ra), 3):
        if ra[i:i + 3] != rb[i:i + 3]:
            differ += 1
            worst = max(worst, *(abs(ra[i + k] - rb[i + k]) for k in range(3)))
    return differ, len(ra) // 3, worst, a.get_size()


def lit_share(path: Path) -> float:
    """The share of pixels that are not black: a black screen is 0."""
    import pygame  # noqa: PLC0415

    surface = pygame.image.load(str(path))
    raw = pygame.image.tobytes(surface, "RGB")
    lit = sum(1 for i in range(0, len(raw), 3) if raw[i] or raw[i + 1] or raw[i + 2])
    return lit / (len(raw) // 3)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def rows_for(update: dict[str, Any], boot: dict[str, Any], *, first_frame_s: float | None,
             out: Path) -> list[Row]:
    rows: list[Row] = []
    rows.append(Row("update with no network (install.sh)", update.get("rc") == 0
                    and update.get("network") == 0,
                    f"rc {update.get('rc')} in {update.get('seconds')} s; "
                    + next((t for t in reversed(update.get("tail", [])) if t.startswith(
                        ("Done:", "Nothing"))), "no summary line")))
    unit = boot.get("unit", {})
    rows.append(Row("unit active at boot", unit.get("ActiveState") == "active"
                    and unit.get("NRestarts") == "0" and unit.get("UnitFileState") == "enabled",
                    f"{unit.get('ActiveState')}, NRestarts {unit.get('NRestarts')}, "
                    f"status \"{unit.get('StatusText', '')}\""))
    first = boot.get("first_frame") or {}
    rows.append(Row("power-on to first frame", first_frame_s is not None,
                    f"{first_frame_s:.1f} s (qemu TCG), {first.get('size', '?')}"
                    if first_frame_s is not None else "no first frame logged"))
    chips = boot.get("gpiochips", [])
    rows.append(Row("GPIO chip for the gpio group (udev rule)",
                    bool(chips) and all(c.endswith(" 660 gpio") for c in chips),
                    ", ".join(chips) or "no /dev/gpiochip*"))
    audio_view = (boot.get("operator") or {}).get("audio") or {}
    rows.append(Row("operator view shows the audio horn", audio_view.get("state") == "on",
                    f"\"{audio_view.get('text', boot.get('operator'))}\""))
    start, stop = boot.get("start", {}), boot.get("stop", {})
    for name, press in (("START", start), ("STOP", stop)):
        at, pressed = press.get("at"), press.get("pressed")
        if at is None or pressed is None:
            rows.append(Row(f"{name} at its edge time", False, "the board logged no command"))
            continue
        err = at - pressed
        written = press.get("written") or pressed
        rows.append(Row(f"{name} at its edge time",
                        pressed <= at and (at - written) * 1000 <= PRESS_MS,
                        f"stamped {ms(err)} after the agent began the pull, "
                        f"{ms(at - written)} after the pull was written"))
    rows.extend(horn_rows(boot.get("horn", {})))
    rows.append(audio_row(boot, out / "check-audio.wav"))
    rows.append(picture_row(boot, out))
    kill = boot.get("kill", {})
    if start.get("at") and stop.get("at") and stop.get("clock_ms") is not None:
        expected = 20 * 60_000 - round((stop["at"] - start["at"]) * 1000)
        err = stop["clock_ms"] - expected
        back = (kill.get("ready_again") or 0) - kill.get("killed", 0)
        rows.append(Row("SIGKILL under systemd resumes exactly",
                        kill.get("resumed") is not None and abs(err) <= 1
                        and kill.get("NRestarts") == "1",
                        f"READY again {back:.1f} s after the kill; clock at STOP "
                        f"{stop['clock_ms']} ms, expected {expected} ms ({err:+d} ms)"))
    else:
        rows.append(Row("SIGKILL under systemd resumes exactly", False,
                        f"kill {kill}, stop {stop}"))
    return rows


def relay_edges(horn: dict[str, Any]) -> tuple[float, float] | None:
    """(rise, fall) of the relay line while the horn was held, guest monotonic seconds."""
    relay = horn.get("relay", [])
    rises = [t for t, v in relay if v == 1]
    falls = [t for t, v in relay if v == 0 and rises and t > rises[0]]
    return (rises[0], falls[0]) if rises and falls else None


def loop_lag(horn: dict[str, Any]) -> float | None:
    """How long after HORN's edge the board applied it (seconds), if both are known."""
    if horn.get("on_applied") is None or horn.get("on_at") is None:
        return None
    return float(horn["on_applied"]) - float(horn["on_at"])


def too_slow(horn: dict[str, Any]) -> str:
    """Why the horn's outputs cannot be judged in this run, or "" when they can: a board
    that applied the press only after the release's edge (seconds late: each frame drawn by
    software GL on an emulated CPU) takes both in one pass, and the horn rightly never
    sounds: it was over before the board could act."""
    lag, applied, released = loop_lag(horn), horn.get("on_applied"), horn.get("off_at")
    if lag is not None and applied is not None and released is not None and applied >= released:
        return (f"not judged: the board applied HORN {lag:.1f} s after its edge, after the "
                f"release (its loop waits on frames drawn by software GL on an emulated CPU)")
    return ""


def horn_rows(horn: dict[str, Any]) -> list[Row]:
    """The relay against the board's horn, and how long the board took to act on the press.

    The relay is switched by the horn's deadline thread at the core's instants, so it must
    move when the board applies the command (the journal's stamp of that line). How long
    after the press's edge that is depends on the machine: an emulated CPU drawing through
    software GL is far slower than a Pi, so that figure is printed, not judged."""
    edges = relay_edges(horn)
    on_applied, off_applied = horn.get("on_applied"), horn.get("off_applied")
    slow = too_slow(horn)
    if slow:
        rows = [Row("relay line follows the horn", None, f"{slow}; relay {horn.get('relay')}")]
        if horn.get("off_applied") is not None and horn.get("off_at") is not None:
            rows.append(Row("press to effect (board loop)", None,
                            f"HORN {ms(loop_lag(horn) or 0)}, release "
                            f"{ms(horn['off_applied'] - horn['off_at'])} after their edges"))
        return rows
    if edges is None or on_applied is None or off_applied is None:
        return [Row("relay line follows the horn", False,
                    f"relay {horn.get('relay')}, horn applied {on_applied}/{off_applied}")]
    rise, fall = edges
    rise_err, fall_err = rise - on_applied, fall - off_applied
    # The journal stamps a line when journald takes it, which a busy emulated machine
    # delays: the edges are judged against the press and the release instead. Never before
    # them, and within the emulated loop's lateness bound.
    on_at, off_at = float(horn.get("on_at") or rise), float(horn.get("off_at") or fall)
    rows = [Row("relay line follows the horn", on_at <= rise <= on_at + RELAY_LATE_S
                and off_at <= fall <= off_at + RELAY_LATE_S,
                f"up {ms(rise - on_at)} after the press, down {ms(fall - off_at)} after the "
                f"release; journal lines {ms(rise_err)}/{ms(fall_err)}; "
                f"held {fall - rise:.2f} s "
                f"(the button {horn['released'] - horn['pressed']:.1f} s)")]
    if horn.get("on_at") is not None and horn.get("off_at") is not None:
        rows.append(Row("press to effect (board loop)", None,
                        f"HORN applied {ms(on_applied - horn['on_at'])} after its edge, "
                        f"release {ms(off_applied - horn['off_at'])} after (emulated CPU)"))
    return rows


def audio_row(boot: dict[str, Any], wav: Path) -> Row:
    audio, horn = boot.get("audio", {}), boot.get("horn", {})
    if not audio.get("on_mono"):
        return Row("audio horn sounds in the wav", False,
                   f"the audio horn never came on: {audio.get('off_lines')}")
    if not wav.exists():
        return Row("audio horn sounds in the wav", False, "no wav captured")
    spans, length = sound_spans(wav)
    edges = relay_edges(horn)
    if too_slow(horn):
        return Row("audio horn sounds in the wav", None, too_slow(horn))
    if edges is None:
        return Row("audio horn sounds in the wav", False, "no relay edges to compare with")
    # The wav begins when the board's mixer starts the sound card's stream; the horn sounds
    # as long as the relay is closed (one driver switches both).
    expected = edges[0] - audio["on_mono"]
    near = [s for s in spans if expected - AUDIO_START_S <= s[0]
            and s[1] <= expected + (edges[1] - edges[0]) + AUDIO_START_S]
    if not near:
        return Row("audio horn sounds in the wav", False,
                   f"no sound near {expected:.2f} s; spans {spans[:5]} of {length:.1f} s")
    start, end = near[0][0], near[-1][1]
    loud = sum(b - a for a, b in near)
    held = edges[1] - edges[0]
    # Judged: the sound starts where the board's clock says and lasts while the relay is
    # closed. Its share of loud windows is printed, not judged: an emulated sound card on a
    # busy host drops buffers (SDL's 512 frames are short for it).
    ok = abs(start - expected) <= AUDIO_START_S and (end - start) >= AUDIO_SHARE * held
    return Row("audio horn sounds in the wav", ok,
               f"sound {start:.2f}-{end:.2f} s ({end - start:.2f} s, "
               f"{100 * loud / (end - start):.0f} % loud; relay held {held:.2f} s); "
               f"onset {start - expected:+.2f} s from the board's clock; "
               f"mixer on {audio['on_mono']:.1f} s after boot")


def picture_row(boot: dict[str, Any], out: Path) -> Row:
    screen, snap = out / "screen.png", out / "snapshot.png"
    picture = boot.get("picture", {})
    if not screen.exists() or not snap.exists():
        return Row("picture = scoreboard snapshot", False,
                   f"screendump {screen.exists()}, snapshot {snap.exists()}: {picture}")
    differ, total, worst, size = compare_pictures(screen, snap)
    lit = lit_share(screen)
    if differ < 0:
        return Row("picture = scoreboard snapshot", False,
                   f"screen {size} is not the snapshot's size")
    return Row("picture = scoreboard snapshot",
               picture.get("same_state", False) and lit > 0 and differ <= PICTURE_SHARE * total,
               f"{differ} of {total} pixels differ (largest {worst}/255), "
               f"{100 * lit:.2f} % lit, {size[0]}x{size[1]}")
