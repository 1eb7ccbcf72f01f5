"""Reading the state document (docs/developer.md 4.3) and the between-games data into typed views.

Pure. The display takes a snapshot once per frame and never reaches into the core; this is
the only place that knows the JSON shape. Keys the display does not need may be missing
(a hand-written document for ``scoreboard snapshot`` need not carry them all) and extra keys
are ignored, as 4.3 allows; a key that is there with the wrong type is an error naming it.

Between-games data (``read_between``) is what the office's retained topics will carry
(``next``, ``standings/<group>``); until [office] exists the daemon fills ``next`` from its
config::

    {"next": {"match": "A4", "time": "14:30", "label": "Group A",
              "suspended": [{"team": "home", "player": 7}],
              "home": {"name": "Lions", "colours": ["#10233f", "#ffffff"]},
              "away": {"name": "Bears", "colours": ["#f2f2f2", "#10233f"]}},
     "tables": [{"group": "A", "rows": [{"team": "Lions", "played": 3, "won": 2,
                 "drawn": 1, "lost": 0, "goals_for": 7, "goals_against": 2,
                 "points": 7}]}],
     "public_url": "http://results.local/"}

``public_url`` (``[display] public_url``) is shown as a QR code with the address under it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.core.prompts import Phrase
from arena.wire import FIGURES, Row

from . import qr
from .colour import ColourError, parse_hex
from .items import Colour

_T = TypeVar("_T")

PHASES = ("pregame", "period", "intermission", "overtime_break", "overtime", "shootout",
          "final")
TEAMS = ("home", "away")
DEFAULT_COLOURS: dict[str, tuple[Colour, Colour]] = {
    # Home dark, away light (rules 000), as the core's MatchSetup defaults.
    "home": ((47, 100, 196), (255, 255, 255)),
    "away": ((242, 242, 242), (47, 100, 196)),
}


class DocumentError(ValueError):
    """A state document (or between-games data) that cannot be shown; names the key."""


@dataclass(frozen=True, slots=True)
class TeamView:
    name: str
    primary: Colour
    secondary: Colour


@dataclass(frozen=True, slots=True)
class PenaltyView:
    player: str
    kind: str
    remaining_ms: int
    running: bool


@dataclass(frozen=True, slots=True)
class TimeoutView:
    team: str
    remaining_ms: int


@dataclass(frozen=True, slots=True)
class ShootoutView:
    home: tuple[bool, ...]
    away: tuple[bool, ...]
    next: str | None


@dataclass(frozen=True, slots=True)
class ResultView:
    home: int
    away: int
    decided_by: str


@dataclass(frozen=True, slots=True)
class EntryView:
    what: str
    team: str | None  # None: the menu, set clock, end, cancel
    player: str | None
    stage: str
    kinds: tuple[str, ...]
    prompt: str | None = None  # "PENALTY HOME: player": what the keypad asks for now
    typed: str = ""  # what was typed at this step
    keys: tuple[tuple[str, str], ...] = ()  # (key, what it does next)
    coincidental: bool = False
    # ``entry.say``: the prompt and the keys' meanings as the keypad's phrases (key and
    # fields, arena/core/prompts.py), which the display words in the hall's language;
    # None/empty in a document from before them (the English above is shown then).
    say_prompt: Phrase | None = None
    say_keys: tuple[tuple[str, Phrase], ...] = ()


@dataclass(frozen=True, slots=True)
class GoalView:
    """The goal just scored (the state document's ``goal``, there for a few seconds after
    it): the scorer's number and, when a roster names him, his name."""

    team: str
    player: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class CountdownView:
    """A warm-up or start countdown before the first face-off (``countdown``: a hook for
    the rules that give one; nothing sends it yet)."""

    label: str
    remaining_ms: int


@dataclass(frozen=True, slots=True)
class StateView:
    phase: str
    period: int
    clock_ms: int
    running: bool
    stop_time: bool
    home: TeamView
    away: TeamView
    score: tuple[int, int]
    penalties: tuple[tuple[PenaltyView, ...], tuple[PenaltyView, ...]]
    strength: tuple[int, int] | None
    shift_ms: int | None
    timeout: TimeoutView | None
    shootout: ShootoutView | None
    extra_player: str | None
    result: ResultView | None
    entry: EntryView | None
    goal: GoalView | None = None
    countdown: CountdownView | None = None

    def team(self, side: str) -> TeamView:
        return self.home if side == "home" else self.away


@dataclass(frozen=True, slots=True)
class Suspension:
    team: str
    player: str


@dataclass(frozen=True, slots=True)
class NextMatchView:
    match: str | None
    time: str | None
    label: str | None
    home: TeamView
    away: TeamView
    suspended: tuple[Suspension, ...] = ()  # the office's ``next``: who may not play
    waiting: bool = False  # the office does not know its teams yet: not to be played
    replay: bool = False  # the office voided the match's result: it is played again


@dataclass(frozen=True, slots=True)
class TableView:
    group: str
    rows: tuple[Row, ...]  # the wire's table row: one definition for office, hall, display


@dataclass(frozen=True, slots=True)
class BetweenView:
    next: NextMatchView | None
    tables: tuple[TableView, ...]
    page: int = 0  # when not all tables fit: which screenful (the daemon counts it up)
    public_url: str | None = None  # the public site's address: shown as a QR code


@dataclass(frozen=True, slots=True)
class FeedbackView:
    """The outcome of the timekeeper's last press (firmware_py/feedback.py), for the
    operator line: ``GOAL HOME #12 OK`` / ``TIME-OUT HOME REFUSED: ...``; ``shorter``: the
    wordings for a narrower line, shortest last (``REFUSED: no time-outs in group games``,
    ``no time-outs in group games``): the reason matters more than the press just made."""

    text: str
    accepted: bool
    shorter: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StatusView:
    """``restored``: the clock came back from the journal after a power loss and the
    timekeeper has not confirmed it yet. ``office_online``: None when there is no office.
    ``recording``: false while the journal cannot be written (the game is only in memory).
    ``journal_damaged``: the byte offset of a record damaged in the middle of the journal,
    until the timekeeper's NEXT hold.
    ``set_aside``: journals of another tournament or hall were moved there at start.
    ``schedule``: why the local schedule (``[schedule] file``) is not used.
    ``operator_line``: the footer shows the entry being typed and ``feedback`` (false while
    the timekeeper has a view of their own: docs/timekeeper.md, "The operator view").
    ``board_link_lost``: a second board (``scoreboard run --mirror``) has not heard from the
    hall's board for a while; its clock runs on from the last anchor."""

    restored: bool = False
    office_online: bool | None = None
    recording: bool = True
    journal_damaged: int | None = None
    set_aside: str | None = None
    schedule: str | None = None
    operator_line: bool = True
    feedback: FeedbackView | None = None
    board_link_lost: bool = False


# ------------------------------------------------------------------ typed getters


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DocumentError(f"{path}: expected a whole number, got {_type_name(value)}"
                            f" {value!r}")
    return value


def _opt_int(value: Any, path: str) -> int | None:
    return None if value is None else _int(value, path)


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise DocumentError(f"{path}: expected true or false, got {value!r}")
    return value


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise DocumentError(f"{path}: expected a string, got {_type_name(value)} {value!r}")
    return value


def _opt_str(value: Any, path: str) -> str | None:
    return None if value is None else _str(value, path)


def _map(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DocumentError(f"{path}: expected an object, got {_type_name(value)}")
    return value


def _list(value: Any, path: str) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise DocumentError(f"{path}: expected a list, got {_type_name(value)}")
    return value


def _side(value: Any, path: str) -> str:
    side = _str(value, path)
    if side not in TEAMS:
        raise DocumentError(f"{path}: expected 'home' or 'away', got {side!r}")
    return side


def _opt_side(value: Any, path: str) -> str | None:
    return None if value is None else _side(value, path)


def _team(value: Any, path: str, side: str) -> TeamView:
    team = _map(value, path)
    name = _str(team.get("name", side.capitalize()), f"{path}.name")
    primary, secondary = DEFAULT_COLOURS[side]
    colours = team.get("colours")
    if colours is not None:
        pair = _list(colours, f"{path}.colours")
        if not pair:
            raise DocumentError(f"{path}.colours: expected one or two colours, got none")
        try:
            primary = parse_hex(_str(pair[0], f"{path}.colours[0]"))
            secondary = parse_hex(_str(pair[1], f"{path}.colours[1]")) if len(pair) > 1 \
                else secondary
        except ColourError as err:
            raise DocumentError(f"{path}.colours: {err}") from err
    return TeamView(" ".join(name.split()), primary, secondary)


def _pair_of_ints(value: Any, path: str) -> tuple[int, int]:
    both = _map(value, path)
    return (_int(both.get("home", 0), f"{path}.home"), _int(both.get("away", 0), f"{path}.away"))


def _player(value: Any, path: str) -> str:
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _str(value, path)


def _penalties(value: Any, path: str) -> tuple[PenaltyView, ...]:
    out = []
    for i, raw in enumerate(_list(value, path)):
        at = f"{path}[{i}]"
        p = _map(raw, at)
        out.append(PenaltyView(
            player=_player(p.get("player"), f"{at}.player"),
            kind=_str(p.get("kind", ""), f"{at}.kind"),
            remaining_ms=_int(p.get("remaining_ms", 0), f"{at}.remaining_ms"),
            running=_bool(p.get("running", True), f"{at}.running"),
        ))
    return tuple(out)


def _shots(value: Any, path: str) -> tuple[bool, ...]:
    return tuple(_bool(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path)))


def read_state(doc: Mapping[str, Any]) -> StateView:
    """The typed view of a state document; ``DocumentError`` names the first bad key."""
    doc = _map(doc, "state document")
    if "phase" not in doc:
        raise DocumentError("phase: missing (is this a state document?)")
    phase = _str(doc["phase"], "phase")
    if phase not in PHASES:
        raise DocumentError(f"phase: expected one of {', '.join(PHASES)}, got {phase!r}")
    teams = _map(doc.get("teams", {}), "teams")
    penalties = _map(doc.get("penalties") or {}, "penalties")
    strength = doc.get("strength")
    timeout = doc.get("timeout")
    shootout = doc.get("shootout")
    result = doc.get("result")
    entry = doc.get("entry")
    goal = doc.get("goal")
    countdown = doc.get("countdown")
    return StateView(
        phase=phase,
        period=_int(doc.get("period", 1), "period"),
        clock_ms=_int(doc.get("clock_ms", 0), "clock_ms"),
        running=_bool(doc.get("running", False), "running"),
        stop_time=_bool(doc.get("stop_time", False), "stop_time"),
        home=_team(teams.get("home", {}), "teams.home", "home"),
        away=_team(teams.get("away", {}), "teams.away", "away"),
        score=_pair_of_ints(doc.get("score", {}), "score"),
        penalties=(_penalties(penalties.get("home", []), "penalties.home"),
                   _penalties(penalties.get("away", []), "penalties.away")),
        strength=None if strength is None else _pair_of_ints(strength, "strength"),
        shift_ms=_opt_int(doc.get("shift_ms"), "shift_ms"),
        timeout=None if timeout is None else TimeoutView(
            team=_side(_map(timeout, "timeout").get("team"), "timeout.team"),
            remaining_ms=_int(timeout.get("remaining_ms", 0), "timeout.remaining_ms")),
        shootout=None if shootout is None else ShootoutView(
            home=_shots(_map(shootout, "shootout").get("home", []), "shootout.home"),
            away=_shots(shootout.get("away", []), "shootout.away"),
            next=_opt_side(shootout.get("next"), "shootout.next")),
        extra_player=_opt_side(doc.get("extra_player"), "extra_player"),
        result=None if result is None else ResultView(
            home=_int(_map(result, "result").get("home"), "result.home"),
            away=_int(result.get("away"), "result.away"),
            decided_by=_str(result.get("decided_by", "regulation"), "result.decided_by")),
        entry=None if entry is None else _entry(entry),
        goal=None if goal is None else GoalView(
            team=_side(_map(goal, "goal").get("team"), "goal.team"),
            player=_player(goal.get("player"), "goal.player"),
            name=_opt_str(goal.get("name"), "goal.name")),
        countdown=None if countdown is None else CountdownView(
            label=_str(_map(countdown, "countdown").get("label", "START"), "countdown.label"),
            remaining_ms=_int(countdown.get("remaining_ms", 0), "countdown.remaining_ms")),
    )


def _entry(value: Any) -> EntryView:
    entry = _map(value, "entry")
    player = entry.get("player")
    keys = _key_pairs(entry.get("keys", []), "entry.keys", "meaning", _str)
    return EntryView(
        what=_str(entry.get("what", ""), "entry.what"),
        team=_opt_side(entry.get("team"), "entry.team"),
        player=None if player in (None, "") else _player(player, "entry.player"),
        stage=_str(entry.get("stage", "number"), "entry.stage"),
        kinds=tuple(_str(k, f"entry.kinds[{i}]")
                    for i, k in enumerate(_list(entry.get("kinds", []), "entry.kinds"))),
        prompt=_opt_str(entry.get("prompt"), "entry.prompt"),
        typed=_str(entry.get("typed") or "", "entry.typed"),
        keys=keys,
        coincidental=_bool(entry.get("coincidental", False), "entry.coincidental"),
        **_said(entry.get("say")),
    )


def _said(value: Any) -> dict[str, Any]:
    """``entry.say`` (``{"prompt": phrase, "keys": [[key, phrase], ...]}``) as the
    ``EntryView`` fields ``say_prompt`` and ``say_keys``."""
    if value is None:
        return {}
    said = _map(value, "entry.say")
    prompt = said.get("prompt")
    keys = _key_pairs(said.get("keys", []), "entry.say.keys", "phrase", _phrase)
    return {"say_prompt": None if prompt is None else _phrase(prompt, "entry.say.prompt"),
            "say_keys": keys}


def _key_pairs(value: Any, path: str, second: str,
               read: Callable[[Any, str], _T]) -> tuple[tuple[str, _T], ...]:
    """A list of ``[key, second]`` pairs (the keypad's keys and what each does), the
    second read by ``read``."""
    pairs = []
    for i, pair in enumerate(_list(value, path)):
        items = _list(pair, f"{path}[{i}]")
        if len(items) != 2:
            raise DocumentError(f"{path}[{i}]: expected [key, {second}], got {items!r}")
        pairs.append((_str(items[0], f"{path}[{i}][0]"), read(items[1], f"{path}[{i}][1]")))
    return tuple(pairs)


def _phrase(value: Any, path: str) -> Phrase:
    """A keypad phrase in JSON, ``[key, {field: text, number or phrase}]``."""
    items = _list(value, path)
    if len(items) != 2 or not isinstance(items[0], str) or not isinstance(items[1], dict):
        raise DocumentError(f"{path}: expected [key, {{field: value}}], got {items!r}")
    fields: list[tuple[str, str | int | Phrase]] = []
    for name, field in sorted(items[1].items()):
        at = f"{path}.{name}"
        if isinstance(field, list):
            fields.append((name, _phrase(field, at)))
        elif isinstance(field, str) or (isinstance(field, int) and not isinstance(field, bool)):
            fields.append((name, field))
        else:
            raise DocumentError(f"{at}: expected text, a number or a phrase, got {field!r}")
    return Phrase(items[0], tuple(fields))


def read_between(data: Mapping[str, Any]) -> BetweenView:
    data = _map(data, "between")
    raw_next = data.get("next")
    following = None
    if raw_next is not None:
        nxt = _map(raw_next, "next")
        following = NextMatchView(
            match=_opt_str(nxt.get("match"), "next.match"),
            time=_opt_str(nxt.get("time"), "next.time"),
            label=_opt_str(nxt.get("label"), "next.label"),
            home=_team(nxt.get("home", {}), "next.home", "home"),
            away=_team(nxt.get("away", {}), "next.away", "away"),
            suspended=tuple(_suspension(s, f"next.suspended[{i}]") for i, s in enumerate(
                _list(nxt.get("suspended") or [], "next.suspended"))),
            waiting=_bool(nxt.get("waiting", False), "next.waiting"),
            replay=_bool(nxt.get("replay", False), "next.replay"),
        )
    tables = []
    for i, raw in enumerate(_list(data.get("tables", []), "tables")):
        at = f"tables[{i}]"
        table = _map(raw, at)
        rows = []
        for j, raw_row in enumerate(_list(table.get("rows", []), f"{at}.rows")):
            rat = f"{at}.rows[{j}]"
            row = _map(raw_row, rat)
            rows.append(Row.of(
                " ".join(_str(row.get("team"), f"{rat}.team").split()),
                # the figures of a table row as the office sends them (wire.FIGURES)
                {key: _int(row.get(key, 0), f"{rat}.{key}") for key in FIGURES},
            ))
        tables.append(TableView(_str(table.get("group", ""), f"{at}.group"), tuple(rows)))
    page = _int(data.get("page", 0), "page")
    url = _opt_str(data.get("public_url"), "public_url")
    if url is not None and not 0 < len(url.encode("utf-8")) <= qr.capacity(qr.MAX_VERSION, "M"):
        raise DocumentError(f"public_url: {len(url.encode('utf-8'))} bytes: a QR code holds 1 "
                            f"to {qr.capacity(qr.MAX_VERSION, 'M')}")
    return BetweenView(following, tuple(tables), page, url)


def _suspension(value: Any, path: str) -> Suspension:
    item = _map(value, path)
    return Suspension(_side(item.get("team"), f"{path}.team"),
                      _player(item.get("player"), f"{path}.player"))


def read_status(data: Mapping[str, Any] | None) -> StatusView:
    if data is None:
        return StatusView()
    data = _map(data, "status")
    online = data.get("office_online")
    feedback = data.get("feedback")
    return StatusView(
        restored=_bool(data.get("restored", False), "status.restored"),
        office_online=None if online is None else _bool(online, "status.office_online"),
        recording=_bool(data.get("recording", True), "status.recording"),
        journal_damaged=_opt_int(data.get("journal_damaged"), "status.journal_damaged"),
        set_aside=None if data.get("set_aside") is None
        else _str(data["set_aside"], "status.set_aside"),
        schedule=None if data.get("schedule") is None
        else _str(data["schedule"], "status.schedule"),
        operator_line=_bool(data.get("operator_line", True), "status.operator_line"),
        board_link_lost=_bool(data.get("board_link_lost", False), "status.board_link_lost"),
        feedback=None if feedback is None else FeedbackView(
            text=_str(_map(feedback, "status.feedback").get("text"), "status.feedback.text"),
            accepted=_bool(feedback.get("accepted", True), "status.feedback.accepted"),
            shorter=tuple(_str(w, f"status.feedback.shorter[{i}]") for i, w in enumerate(
                _list(feedback.get("shorter", []), "status.feedback.shorter")))),
    )
