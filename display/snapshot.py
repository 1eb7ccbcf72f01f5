"""``scoreboard snapshot``: any state document rendered to a PNG, headless.

    scoreboard snapshot --state STATE.json --size 1920x1080 --out FILE.png

``--state`` is one JSON object (a state document, docs/developer.md 4.3) or the output of
``scoreboard replay`` (one document a line: ``--line N`` picks one; ``-`` reads stdin).
``--between FILE.json`` adds the between-games data (next match, group tables) and
``--restored`` / ``--office-offline`` the status marks. The preset named in the document
supplies the tenths threshold, shootout rounds and shift length. ``--language`` picks the
words' language (en, cs, sr, fi). ``--hall`` says which hall
the layout sizes for (``tv55``, ``projector`` or ``HEIGHT_CM@DISTANCE_M``), and
``--legibility`` prints, for every text, its height in cm and how far it reads from::

    game 1920x1080 (standard), hall 68.5 cm @ 25 m: the back row reads 10.0 cm (158 px)
    ROLE                TEXT                  PX      CM  READS FROM
    clock               48.4                 335    21.2     53.1 m
    period              2                    158    10.0     25.1 m
    penalty.home.time   1:24                 158    10.0     25.1 m
    strength            5 ON 4               105     6.7     16.6 m  SHORT of the back row
    why: short of the seat: period, strength (the clock and the scores keep their size; ...)

The ``why:`` lines say what the game screen could not give the farthest seat: a name too
long for half the screen at that size, penalties folded into "+N", an indicator dropped.

No display is needed: the frame is drawn on an off-screen surface (pygame never opens a
window), so it runs over SSH, in CI and on a Pi without HDMI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena import words
from arena.safejson import JsonError, Limits, expect_object, loads

from . import document
from .hall import DEFAULT as DEFAULT_HALL
from .hall import HallGeometry, parse_hall
from .items import Frame, Text
from .layout import FrameInputs, LayoutOptions

EXIT_BAD_INPUT = 2
PROG = "scoreboard snapshot"


class SnapshotError(Exception):
    """Bad input for a snapshot; the message names the file and what is wrong."""


def snapshot(doc: Mapping[str, Any], size: tuple[int, int], out_path: str | Path, *,
             between: Mapping[str, Any] | None = None,
             status: Mapping[str, Any] | None = None,
             options: LayoutOptions | None = None) -> Path:
    """Render ``doc`` at ``size`` and write it to ``out_path`` (PNG). Returns the path."""
    from ._pygame import pygame  # noqa: PLC0415 - only here: the CLI parses without pygame
    from .render import render  # noqa: PLC0415

    if options is None:
        from .options import options_for_name  # noqa: PLC0415
        options = options_for_name(doc.get("preset"))
    surface = render(FrameInputs(doc, size, between, status, options))
    path = Path(out_path)
    try:
        pygame.image.save(surface, str(path))
    except pygame.error as err:  # e.g. permission denied: report it as the OSError it is
        raise OSError(str(err)) from err
    return path


def parse_size(text: str) -> tuple[int, int]:
    """``1920x1080`` -> (1920, 1080)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"--size takes WIDTHxHEIGHT in pixels, e.g. 1920x1080,"
                                         f" got {text!r}")
    width, height = int(parts[0]), int(parts[1])
    if not (320 <= width <= 7680 and 200 <= height <= 4320):
        raise argparse.ArgumentTypeError(f"--size {text}: width 320..7680 and height 200..4320"
                                         " pixels")
    return width, height


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", required=True, metavar="STATE.json",
                        help="a state document (JSON object), or scoreboard replay output "
                        "(one a line, see --line); - reads standard input")
    parser.add_argument("--line", type=int, default=None, metavar="N",
                        help="which line of a replay output to render (1 = the first)")
    parser.add_argument("--size", type=parse_size, default=(1920, 1080), metavar="WxH",
                        help="screen size in pixels; default 1920x1080")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE.png",
                        help="the PNG to write (required unless --legibility)")
    parser.add_argument("--hall", type=_hall_arg, default=DEFAULT_HALL,
                        metavar="tv55|projector|CM@M",
                        help="the hall the layout sizes for: tv55 (a 55-inch TV, 68.5 cm, "
                        "back row at 25 m; the default), projector (200 cm at 40 m) or the "
                        "picture's height in cm @ the farthest seat in m, e.g. 120@30")
    parser.add_argument("--language", choices=words.LANGUAGES, default=words.DEFAULT,
                        help="the language of the display's words (a hall's [display] "
                        f"language): {', '.join(f'{k} {v}' for k, v in words.NAMES.items())};"
                        " default en")
    parser.add_argument("--legibility", action="store_true",
                        help="print every text's letter height in cm and the distance it "
                        "reads from (250 times its height), which of those the farthest "
                        "seat must read fall short, and why (what did not fit, what was "
                        "dropped)")
    parser.add_argument("--between", type=Path, default=None, metavar="FILE.json",
                        help="between-games data (next match, group tables): shown before "
                        "the first face-off and after the final")
    parser.add_argument("--restored", action="store_true",
                        help="show CLOCK RESTORED - CHECK (a clock brought back after a "
                        "power loss, not yet confirmed)")
    parser.add_argument("--office-offline", action="store_true",
                        help="show the office-link-down mark")


def _hall_arg(text: str) -> HallGeometry:
    try:
        return parse_hall(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


# The texts the layout sizes for the back row (display/screens/gamesizing.py KEY_ROLES and
# SECONDARY_ROLES: the names, penalty numbers and kinds, strength, STOP TIME and the
# period's caption grow into the free area).
SIZED = {"clock", "score.home", "score.away", "period", "penalty.home.time",
         "penalty.away.time", "goal.home.player", "goal.away.player", "name.home",
         "name.away", "penalty.home.player", "penalty.away.player", "strength", "stop_time",
         "period.caption"}


def legibility(frame: Frame, hall: HallGeometry) -> list[str]:
    """One line per text of ``frame``: its role, what it says, its letter height in pixels
    and cm, and the distance it reads from; the texts sized for the back row that fall
    short of it are marked. Digits drawn one item a character (the clock) are one line."""
    height = frame.size[1]
    need = hall.legible_px(height)
    lines = [f"{frame.screen} {frame.size[0]}x{height} ({frame.variant or 'standard'}), hall "
             f"{hall.visible_height_cm:g} cm @ {hall.farthest_m:g} m: the back row reads "
             f"{hall.cm(need, height):.1f} cm ({need} px)",
             f"{'ROLE':<20}{'TEXT':<22}{'PX':>4}{'CM':>8}  READS FROM"]
    merged: list[Text] = []
    for item in frame.texts():
        last = merged[-1] if merged else None
        if last is not None and last.role == item.role and item.font == "digits" \
                and last.rect[1] == item.rect[1] and last.px_height == item.px_height:
            merged[-1] = Text(last.rect, last.text + item.text, last.px_height, last.colour,
                              last.align, last.font, role=last.role)
        else:
            merged.append(item)
    for item in merged:
        sized = item.role in SIZED
        note = "" if item.px_height >= need else (
            "  SHORT of the back row" if sized else "  (not sized for it)")
        shown = item.text if len(item.text) <= 21 else item.text[:20] + "\u2026"
        lines.append(f"{item.role:<20}{shown:<22}{item.px_height:>4}"
                     f"{hall.cm(item.px_height, height):>8.1f}"
                     f"{hall.readable_from_m(item.px_height, height):>9.1f} m{note}")
    lines += [f"why: {note}" for note in frame.notes]
    return lines


def read_state(source: str, line: int | None) -> dict[str, Any]:
    """The state document in ``source`` (a path or ``-``)."""
    name = "standard input" if source == "-" else source
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SnapshotError(f"{name}: cannot read: {err}") from err
    lines = [(n, s) for n, s in enumerate(text.splitlines(), start=1) if s.strip()]
    if not lines:
        raise SnapshotError(f"{name}: empty: expected a state document (a JSON object)")
    if line is not None:
        if not 1 <= line <= len(lines):
            raise SnapshotError(f"{name}: --line {line}: the file has {len(lines)} "
                                "document line(s)")
        number, chosen = lines[line - 1]
        return _object(chosen, f"{name} line {number}", lines=False)
    try:
        # one object, possibly spread over several lines
        value = loads(text, name, limits=_FILE)
    except JsonError as err:
        if err.kind == "syntax" and len(lines) > 1 and _all_objects(lines):
            raise SnapshotError(f"{name}: {len(lines)} state documents, one a line: choose "
                                "one with --line N") from None
        raise _error(err, name, "a JSON object (a state document)", lines=True) from None
    return _expect(value, name, "a JSON object (a state document)")


# A whole file of states (several, one a line) may be long; one document is a few kB.
_FILE = Limits(max_bytes=16 * 1024 * 1024)


def _error(err: JsonError, where: str, expected: str, *, lines: bool) -> SnapshotError:
    """The loader's refusal in this command's words: the position first, then the reason."""
    if err.kind == "syntax":
        at = f"line {err.line} column {err.column}" if lines else f"column {err.column}"
        return SnapshotError(f"{where}: not JSON: {at}: {err.detail}")
    if err.kind == "not_object":
        return SnapshotError(f"{where}: expected {expected}, got {type(err.value).__name__}")
    return SnapshotError(str(err))


def _expect(value: Any, where: str, expected: str) -> dict[str, Any]:
    try:
        return expect_object(value, where)
    except JsonError as err:
        raise _error(err, where, expected, lines=False) from None


def _all_objects(lines: list[tuple[int, str]]) -> bool:
    try:
        return all(isinstance(loads(s), dict) for _n, s in lines)
    except JsonError:
        return False


def _object(text: str, where: str, *, lines: bool) -> dict[str, Any]:
    try:
        value = loads(text, where)
    except JsonError as err:
        raise _error(err, where, "a JSON object (a state document)", lines=lines) from None
    return _expect(value, where, "a JSON object (a state document)")


def _read_between(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SnapshotError(f"{path}: cannot read: {err}") from err
    try:
        value = loads(text, str(path), limits=_FILE)
    except JsonError as err:
        raise _error(err, str(path), "a JSON object", lines=True) from None
    return _expect(value, str(path), "a JSON object")


def _check(doc: Mapping[str, Any], between: Mapping[str, Any] | None,
           args: argparse.Namespace) -> None:
    """The documents are readable as the display reads them; else the key that is wrong."""
    try:
        document.read_state(doc)
    except document.DocumentError as err:
        where = "standard input" if args.state == "-" else args.state
        raise SnapshotError(f"{where}: {err}") from None
    if between is not None:
        try:
            document.read_between(between)
        except document.DocumentError as err:
            raise SnapshotError(f"{args.between}: {err}") from None


def run(args: argparse.Namespace) -> int:
    """The subcommand: 0 on success, 2 (with a message on stderr) on bad input."""
    try:
        if args.out is None and not args.legibility:
            raise SnapshotError("--out FILE.png is needed (or --legibility to print sizes)")
        if args.out is not None and args.out.suffix.lower() != ".png":
            raise SnapshotError(f"--out {args.out}: the file name must end in .png")
        if args.out is not None and not args.out.parent.is_dir():
            raise SnapshotError(f"--out {args.out}: no such folder {args.out.parent}")
        doc = read_state(args.state, args.line)
        between = _read_between(args.between) if args.between is not None else None
        _check(doc, between, args)
        status = {"restored": args.restored,
                  "office_online": False if args.office_offline else None}
        from .options import options_for_name  # noqa: PLC0415
        options = options_for_name(doc.get("preset"), args.hall, args.language)
        if args.legibility:
            from .fonts import measure  # noqa: PLC0415 - the real font's widths
            from .layout import layout  # noqa: PLC0415

            frame = layout(doc, args.size, between=between, status=status, measure=measure,
                           options=options)
            print("\n".join(legibility(frame, args.hall)))
        if args.out is None:
            return 0
        path = snapshot(doc, args.size, args.out, between=between, status=status,
                        options=options)
    except SnapshotError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:  # pygame.error is not one; writing the file is
        print(f"{PROG}: --out {args.out}: cannot write: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"{path} ({args.size[0]}x{args.size[1]})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0]
                                     if __doc__ else None)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
