"""Make ``horn.wav``: the audio horn's sound, synthesized here (no recording, no download).

A two-tone air-horn-like chord, 440 Hz and 554 Hz (A4 and about C#5, a major third: the
beating pair that makes an air horn sound urgent), each with eight harmonics falling off as
1/n (a reed's bright, buzzy spectrum), soft-clipped with ``tanh`` as a horn's throat does.
16-bit mono, 44.1 kHz, 0.5 s.

The file is a *loop*: ``AudioHorn`` plays it over and over while the horn is on. So it has
no attack or release of its own (a release inside the loop would pulse twice a second):
every partial is a sine starting at phase 0, so the loop starts on a zero crossing (a hard
onset, as a horn's, without a click) and the release is the mixer's short fade out at each
stop. For the seam to be click-free every partial must complete a whole number of cycles in
the segment: at 0.5 s that means even frequencies in Hz, hence 554 rather than 554.37.

Licence: CC0 1.0 (public domain dedication); made by the Arena Scoreboard authors.

    python display/sounds/make_horn.py [--out display/sounds/horn.wav] [--check]
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
import wave
from pathlib import Path

RATE = 44_100
SECONDS = 0.5
TONES_HZ = (440, 554)
HARMONICS = 8
DRIVE = 1.6  # how hard tanh is driven: more is buzzier
PEAK = 0.7  # of full scale: headroom for the mixer
OUT = Path(__file__).with_name("horn.wav")


def samples() -> list[int]:
    frames = round(RATE * SECONDS)
    for hz in TONES_HZ:
        # Whole cycles in the loop, for every harmonic too (they are multiples of hz).
        assert hz * frames % RATE == 0, f"{hz} Hz does not loop in {frames} frames"
    raw = []
    for i in range(frames):
        t = i / RATE
        value = sum(math.sin(2 * math.pi * hz * n * t) / n
                    for hz in TONES_HZ for n in range(1, HARMONICS + 1))
        raw.append(math.tanh(DRIVE * value / len(TONES_HZ)))
    scale = PEAK * 32767 / max(abs(v) for v in raw)
    return [round(v * scale) for v in raw]


def wav_bytes(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}h", *values)


def write(path: Path) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(wav_bytes(samples()))


def matches(path: Path) -> bool:
    """Whether the committed file is what this script makes now."""
    with wave.open(str(path), "rb") as wav:
        frames = wav.readframes(wav.getnframes())
        shape = (wav.getnchannels(), wav.getsampwidth(), wav.getframerate())
    return shape == (1, 2, RATE) and frames == wav_bytes(samples())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Synthesize the audio horn's loop (two-tone air horn, 16-bit mono "
                    "44.1 kHz, 0.5 s, CC0) into a WAV file.")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="where to write it (default: horn.wav beside this script)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 unless --out is what this script makes")
    args = parser.parse_args(argv)
    if args.check:
        ok = matches(args.out)
        print(f"{args.out}: {'matches' if ok else 'DIFFERS from'} make_horn.py")
        return 0 if ok else 1
    write(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
