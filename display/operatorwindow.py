"""The timekeeper's window in ``--windowed`` mode: the operator view (firmware_py/
operatorview.py) in a second window beside the hall display, so the hall window stays what
the spectators see.

``operator_lines`` (pure) says what to write, line by line; ``draw_operator`` writes them
onto any surface (a test draws onto an off-screen one); ``OperatorWindow`` is the window,
drawn from the daemon's loop like the hall display (pygame-ce's ``pygame.Window``; display
calls stay on the thread that opened the display). FreeSansBold has no tick or cross, so
the outcome says OK / REFUSED and its colour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena import words

from . import colour as pal
from . import fonts
from ._pygame import pygame
from .items import Colour

WINDOW_SIZE = (480, 800)
TITLE = "Arena Scoreboard: timekeeper"
KEY_SIZE = 2.4  # an entry's key lines, cap height in % of the window height
OK_BOX: Colour = (13, 59, 30)
QUIET: Colour = pal.LABEL


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    ink: Colour = pal.WHITE
    box: Colour | None = None  # a band behind the line (the outcome)
    size: float = 3  # cap height in % of the window height


def _words(value: object) -> str:
    return str(value).replace("_", " ")


def _say(view: Mapping[str, Any], name: str, **fields: object) -> str:
    """The view's own word ``name`` (operator.* in the hall's language, firmware_py/
    operatorview.py ``labels``); English if the view has none."""
    said = view.get("words") or {}
    text = said.get(name) if isinstance(said, Mapping) else None
    text = str(text) if text is not None else str(words.word(f"operator.{name}"))
    return text.format(**fields) if fields else text


def entry_lines(entry: Mapping[str, Any] | None,
                view: Mapping[str, Any] | None = None) -> list[Line]:
    """The keypad entry, whatever of its parts it carries (``prompt``, ``typed``,
    ``keys``, ``head`` or ``what``/``team``/``player``/``stage``/``kinds``)."""
    if not entry:
        return [Line(_say(view or {}, "no_entry"), QUIET, size=2)]
    head = str(entry["head"]) if entry.get("head") else \
        " ".join(str(entry[k]).upper() for k in ("what", "team") if entry.get(k))
    out = [Line(head, size=4)] if head else []
    if entry.get("prompt"):
        out.append(Line(str(entry["prompt"]), size=4))
    typed = entry.get("typed", entry.get("player"))
    out.append(Line(f"> {typed if typed not in (None, '') else '_'}", pal.CLOCK, size=5))
    timeout = entry.get("timeout")
    if isinstance(timeout, Mapping) and timeout.get("text"):
        # What happens without a key, counted down: an entry never goes unannounced.
        out.append(Line(str(timeout["text"]), QUIET if timeout.get("in_s") is None
                        else pal.CLOCK, size=2))
    keys = entry.get("keys") or [k.split(" ", 1) for k in entry.get("kinds") or []
                                 if isinstance(k, str)]
    # KEY_SIZE: a list's page (PAGE numbers, "more", Enter, Backspace, Escape) fits the
    # window's 800 px under the prompt, with a press's answer above it.
    out += [Line(f"  {pair[0]}   {_words(pair[-1])}", size=KEY_SIZE)
            for pair in keys if isinstance(pair, list | tuple) and pair]
    return out


def operator_lines(view: Mapping[str, Any]) -> list[Line]:
    if view.get("match") is None:
        return [Line(_say(view, "waiting"), QUIET)]
    out: list[Line] = []
    feedback = view.get("feedback")
    if feedback:
        lang = str(view.get("language") or words.DEFAULT)
        word = words.word("feedback.ok" if feedback.get("accepted") else "feedback.refused",
                          lang if lang in words.LANGUAGES else words.DEFAULT)
        reason = f" {feedback['reason']}" if feedback.get("reason") else ""
        out.append(Line(f"{feedback.get('press', '')} {word}{reason}", pal.WHITE,
                        OK_BOX if feedback.get("accepted") else pal.FAULT_BOX, 3))
    timed_out = view.get("timed_out")
    if timed_out:  # an entry went without its key: the timekeeper is told, a few seconds
        out.append(Line(str(timed_out.get("text", "")), pal.WHITE, pal.FAULT_BOX, 2))
    out += entry_lines(view.get("entry"), view)
    teams, score = view.get("teams", {}), view.get("score", {})
    out.append(Line(f"{teams.get('home')} {score.get('home')} : {score.get('away')} "
                    f"{teams.get('away')}", size=3))
    result = view.get("result")
    if result:  # the winner (after a shootout the score line alone says a draw)
        out.append(Line(str(result.get("text", "")), pal.WHITE, OK_BOX, 3))
    state = _say(view, "running" if view.get("running") else "stopped")
    horn = f"  {_say(view, 'horn')}" if view.get("horn") else ""
    replay = f"{_say(view, 'replay')}  " if view.get("replay") else ""  # the office voided it
    out.append(Line(f"{replay}{view.get('phase_text', view.get('phase'))} {view.get('period')}  "
                    f"{view.get('clock')}  {state}{horn}", pal.CLOCK, size=3))
    office = view.get("office")
    out.append(Line(_say(view, "no_office") if office is None else _say(
        view, "office" if office.get("connected") else "office_offline",
        n=office.get("unacked", 0)), QUIET, size=2))
    if office is not None and office.get("problem"):  # the office sent what was not taken
        out.append(Line(_say(view, "office_problem", reason=office["problem"]),
                        pal.WHITE, pal.FAULT_BOX, 2))
    if office is not None and office.get("cannot_store_since"):  # a full disk at the office
        out.append(Line(_say(view, "office_cannot_store",
                             since=office["cannot_store_since"]),
                        pal.WHITE, pal.FAULT_BOX, 2))
    for refused in office.get("refused", ()) if office is not None else ():  # two halls, one match
        out.append(Line(_say(view, "office_refuses", match=refused["match"],
                             hall=refused["hall"]), pal.WHITE, pal.FAULT_BOX, 2))
    audio = view.get("audio")
    if audio:  # the audio horn: on, or why it is silent (a hall without a relay hears none)
        out.append(Line(str(audio.get("text", "")), pal.WHITE if audio.get("alert") else QUIET,
                        pal.FAULT_BOX if audio.get("alert") else None, 2))
    schedule = view.get("schedule")
    if schedule:  # docs/timekeeper.md, "The match day": how far behind, the suggested periods
        out.append(Line(str(schedule.get("text", "")),
                        pal.CLOCK if schedule.get("behind_ms", 0) > 0 else QUIET, size=2))
    out.append(Line(_say(view, "records"), QUIET, size=2))
    for r in view.get("records", []):
        who = f" #{r['player']}" if r.get("player") is not None else ""
        kind = f" {_words(r['kind'])}" if r.get("kind") else ""
        text = r.get("text") or f"{r['what']} {r['team']}{who}{kind}"
        undo = f"   < {_say(view, 'undo')}" if r.get("undo_next") else ""
        # The number CANCEL picks it by (the view's "key"), never the seq.
        number = r.get("key") if r.get("key") is not None else "-"
        out.append(Line(f"{number}  {text}  P{r['period']} {r['clock']}{undo}", size=2))
    out.append(Line(_say(view, "kinds"), QUIET, size=2))
    out += [Line(f"{k['key']}  {k.get('text') or _words(k['name'])}  "
                 f"{_say(view, 'minutes', n=k['minutes'])}", size=2)
            for k in view.get("kinds", [])]
    suspended = view.get("suspensions", {})
    for side in ("home", "away"):
        players = ", ".join(f"#{p}" for p in suspended.get(side, [])) or _say(view, "none")
        out.append(Line(_say(view, "suspended_of", team=teams.get(side, side),
                             players=players), size=2))
    return out


def placed(view: Mapping[str, Any], size: tuple[int, int]
           ) -> list[tuple[Line, int, int, int]]:
    """The lines that fit a window of ``size``, top to bottom: (line, top, cap height,
    pitch); what does not fit below is left out (the records and kinds come last)."""
    width, height = size
    y = max(4, width // 40)
    out = []
    for line in operator_lines(view):
        cap = max(8, int(height * line.size / 100))
        pitch = cap * 2
        if y + pitch > height:
            break
        out.append((line, y, cap, pitch))
        y += pitch
    return out


def draw_operator(surface: pygame.Surface, view: Mapping[str, Any]) -> None:
    """The view's lines top to bottom (``placed``), each shrunk to the width if it must be."""
    width, _height = surface.get_size()
    surface.fill(pal.BACKGROUND)
    margin = max(4, width // 40)
    for line, y, cap, pitch in placed(view, surface.get_size()):
        image, _rise = fonts.render(line.text, cap, line.ink) if line.text.strip() else (
            pygame.Surface((1, 1), pygame.SRCALPHA), 0)
        room = width - 2 * margin
        if image.get_width() > room:
            image = pygame.transform.smoothscale(
                image, (room, max(1, image.get_height() * room // image.get_width())))
        if line.box is not None:
            surface.fill(line.box, (0, y, width, pitch))
        surface.blit(image, (margin, y + (pitch - image.get_height()) // 2))


_OPEN: dict[int, OperatorWindow] = {}  # by window id: the keyboard asks on a close event


def closed_by_user(window: object) -> bool:
    """A window's close button was pressed: if it is an operator window, close it and say
    so (display/keyboard.py then does not stop the daemon)."""
    found = _OPEN.get(getattr(window, "id", -1))
    if found is None:
        return False
    found.close()
    return True


class OperatorWindow:
    """A second window; closing it only closes it (closing the hall window stops the
    daemon, as before)."""

    def __init__(self, size: tuple[int, int] = WINDOW_SIZE) -> None:
        self.window = pygame.Window(TITLE, size, resizable=True)
        self.closed = False
        _OPEN[self.id] = self

    @property
    def id(self) -> int:
        return int(self.window.id)

    def draw(self, view: Mapping[str, Any]) -> None:
        if self.closed:
            return
        surface = self.window.get_surface()
        draw_operator(surface, view)
        self.window.flip()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            _OPEN.pop(self.id, None)
            self.window.destroy()
