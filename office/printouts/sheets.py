"""The office's printouts as HTML: the game sheet of a match, a hall's schedule
for its door, the group tables with the "why" column, the final placings.

Pure: values in, one HTML document out, every visible word through ``arena.words.word`` in
the event's language. This module picks what a printout holds, as plain text; the markup is
in the templates beside it (``templates/``: one layout, a template per printout, the table as
a macro), autoescaped by ``arena.templates``. One stylesheet serves the screen and
the paper: ``@page`` sets A4 and its margins, each hall's schedule and each category starts
a new page, no colour carries meaning. The shell (``office.printouts.printing``) reads the store and
the ledgers; ``office sheet --pdf`` has Chromium print exactly this page.

The game sheet is read off the match's stored events, not off the office's digest (which
keeps only the final): goals, penalties, time-outs and shootout shots as the hall sent
them, an ``undone`` or ``cancelled`` striking the event it names and a ``corrected`` giving
it its new number, as the core does to its own record (docs/developer.md 4.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from arena import qr
from arena.core.lengths import phase_length
from arena.core.phase import Phase
from arena.core.preset import Preset
from arena.core.units import NS_PER_MS
from arena.templates import Templates
from arena.tournament.event import Category, Event
from arena.tournament.model import GameResult, GroupTable, ResultState, ScheduledMatch, Stage
from arena.words import table, word
from office.rules.why import why_keys
from office.views.ledger import Ledger
from office.views.placings import Placing

_TEMPLATES = Templates("office.printouts")

PRINT_CSS = """
@page { size: A4; margin: 12mm 12mm 14mm 12mm; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10pt; color: #000;
       background: #fff; margin: 0 auto; max-width: 186mm; padding: 4mm; }
h1 { font-size: 16pt; margin: 0 0 3mm; }
h2 { font-size: 11pt; margin: 3.5mm 0 1.5mm; border-bottom: 0.4mm solid #000;
     break-after: avoid; page-break-after: avoid; }
h3 { font-size: 10.5pt; margin: 3mm 0 1mm; }
table { border-collapse: collapse; width: 100%; margin-bottom: 2mm; }
th, td { border: 0.2mm solid #000; padding: 0.4mm 1.5mm; text-align: left;
         vertical-align: top; }
th { font-weight: bold; }
td.n, th.n { text-align: right; white-space: nowrap; }
table.facts th { width: 32%; }
.sides { display: flex; gap: 4mm; }
.sides > section { flex: 1; min-width: 0; }
.result { font-size: 14pt; font-weight: bold; }
.signatures { break-inside: avoid; page-break-inside: avoid; }
.sign { display: flex; flex-wrap: wrap; gap: 0 6mm; }
.sign div { flex: 1 1 40%; border-top: 0.3mm solid #000; padding-top: 1mm;
            margin-top: 11mm; }
.note { font-size: 8.5pt; }
.qr-row { display: flex; gap: 4mm; align-items: center; break-inside: avoid;
          page-break-inside: avoid; }
.qr-row svg { flex: none; width: 30mm; height: 30mm; }
.url { font-family: "DejaVu Sans Mono", monospace; word-break: break-all; }
.door th, .door td { font-size: 12pt; padding: 1.2mm 2mm; }  /* read from a step away */
.page { break-after: page; page-break-after: always; }
.page:last-child { break-after: auto; page-break-after: auto; }
tr, .sign div { break-inside: avoid; page-break-inside: avoid; }
thead { display: table-header-group; }
@media print { body { padding: 0; max-width: none; } }
"""


class HallEvent(Protocol):
    """What a sheet reads of a stored event (``office.storage.store.StoredEvent`` is one)."""

    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class GameTime:
    """When in the game: the period (past the preset's periods: overtime) and the clock
    as the hall showed it (remaining, in ms)."""

    period: int
    clock_ms: int


@dataclass(frozen=True, slots=True)
class SheetGoal:
    seq: int
    side: str  # "home" / "away"
    player: int | None
    at: GameTime
    score: tuple[int, int] = (0, 0)  # after this goal (filled once every strike is known)


@dataclass(frozen=True, slots=True)
class SheetPenalty:
    seq: int
    side: str
    player: int
    kind: str
    minutes: int
    at: GameTime


@dataclass(frozen=True, slots=True)
class SheetTimeout:
    seq: int
    side: str
    at: GameTime


@dataclass(frozen=True, slots=True)
class SheetShot:
    seq: int
    side: str
    player: int | None
    scored: bool


@dataclass(frozen=True, slots=True)
class SheetFacts:
    """What the hall recorded of one match, every strike and correction applied."""

    goals: tuple[SheetGoal, ...] = ()
    penalties: tuple[SheetPenalty, ...] = ()
    timeouts: tuple[SheetTimeout, ...] = ()
    shots: tuple[SheetShot, ...] = ()
    forfeit: str | None = None  # the side that lost by forfeit


def read_events(events: Iterable[HallEvent]) -> SheetFacts:
    """Fold a match's events (any order; a repeated seq counts once) into its sheet."""
    by_seq: dict[int, HallEvent] = {}
    for e in events:
        by_seq.setdefault(e.seq, e)
    items: dict[int, SheetGoal | SheetPenalty | SheetTimeout | SheetShot] = {}
    struck: set[int] = set()
    numbers: dict[int, int] = {}  # seq -> corrected player number (the latest correction)
    forfeit: str | None = None
    period, clock = 1, 0
    for seq in sorted(by_seq):
        e = by_seq[seq]
        d = e.data
        period = _int(d.get("period"), period)
        clock = _int(d.get("clock_ms"), clock)
        at = GameTime(period, clock)
        side = d.get("team")
        if e.type in ("undone", "cancelled"):
            target = d.get("undone_seq", d.get("cancelled_seq"))
            if isinstance(target, int):
                struck.add(target)
            continue
        if e.type == "corrected":
            target, player = d.get("corrected_seq"), d.get("player")
            if isinstance(target, int) and isinstance(player, int):
                numbers[target] = player
            continue
        if e.type == "forfeit" and side in ("home", "away"):
            forfeit = str(side)
            continue
        if side not in ("home", "away"):
            continue
        player = d.get("player")
        number = player if isinstance(player, int) and not isinstance(player, bool) else None
        if e.type == "goal":
            items[seq] = SheetGoal(seq, str(side), number, at)
        elif e.type == "penalty" and number is not None:
            items[seq] = SheetPenalty(seq, str(side), number, str(d.get("kind", "")),
                                      _int(d.get("minutes"), 0), at)
        elif e.type == "timeout_started":
            items[seq] = SheetTimeout(seq, str(side), at)
        elif e.type == "shot":
            items[seq] = SheetShot(seq, str(side), number, d.get("scored") is True)
    kept = [replace(i, player=numbers[i.seq])
            if not isinstance(i, SheetTimeout) and i.seq in numbers else i
            for s, i in sorted(items.items()) if s not in struck]
    goals: list[SheetGoal] = []
    home = away = 0
    for g in (i for i in kept if isinstance(i, SheetGoal)):
        home, away = (home + 1, away) if g.side == "home" else (home, away + 1)
        goals.append(replace(g, score=(home, away)))
    return SheetFacts(
        goals=tuple(goals),
        penalties=tuple(i for i in kept if isinstance(i, SheetPenalty)),
        timeouts=tuple(i for i in kept if isinstance(i, SheetTimeout)),
        shots=tuple(i for i in kept if isinstance(i, SheetShot)),
        forfeit=forfeit)


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def game_time(at: GameTime, preset: Preset | None, lang: str) -> str:
    """``P1 01:05``: the period and the time played in it (a game sheet counts up), from
    the remaining clock and the period's length (overtime's past the preset's periods).
    Without the preset: the clock as the hall showed it."""
    overtime = preset is not None and at.period > preset.periods
    label = (word("sheet.overtime", lang, n=at.period - preset.periods)
             if preset is not None and overtime else word("sheet.period", lang, n=at.period))
    if preset is None:
        return f"{label} {_mmss(at.clock_ms)}"
    # A sheet of a preset without overtime (none was played) keeps the period's length.
    length = phase_length(preset, Phase.OVERTIME if overtime else Phase.PERIOD,
                          at.period) or preset.period_length
    played = max(0, length // NS_PER_MS - at.clock_ms)
    return f"{label} {_mmss(played)}"


def _mmss(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


# --- the game sheet ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SheetMatch:
    """One match as the sheet names it: the schedule's entry, the teams (the bracket's or
    the hall's names once known, else the slots), their rosters, and what the office
    counts (``result`` None: no result yet)."""

    event: str
    category: str | None  # None: a plain tournament file
    scheduled: ScheduledMatch
    home: str
    away: str
    home_roster: Mapping[int, str]
    away_roster: Mapping[int, str]
    state: ResultState
    result: GameResult | None = None
    correction: str | None = None  # the reason of the office's correction that stands
    # The teams whose goals here no longer count for the scorers: the correction took
    # their score below what the hall recorded (``ledger.MatchView.uncredited``).
    uncredited: tuple[str, ...] = ()
    voided: bool = False  # a team eliminated (rules 001 'Waiting period'): nothing counts


@dataclass(frozen=True, slots=True)
class Table:
    """A printed table: its header and its rows as plain text (the template escapes them);
    the columns in ``numeric`` are set right. No rows: the table says "none"."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[int, ...] = ()


def _tab(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()
         ) -> Table:
    return Table(tuple(header), tuple(tuple(r) for r in rows), tuple(numeric))


@dataclass(frozen=True, slots=True)
class PrintedResult:
    """The sheet's result: home:away of its header, and how it was decided."""

    score: str
    decided: str


@dataclass(frozen=True, slots=True)
class PrintedLink:
    """A match's result link as the sheet prints it: the address, and its QR code as one
    SVG path of dark modules (``size``: modules a side, the quiet zone included)."""

    url: str
    size: int
    path: str


def printed_link(url: str) -> PrintedLink:
    code = qr.encode(url)
    q = qr.QUIET_ZONE
    # One unit square per dark module: "M x,y h1 v1 h-1 z" (digits and letters only, so the
    # template's escaping leaves it as it is).
    path = "".join(f"M{x + q},{y + q}h1v1h-1z" for y, row in enumerate(code.rows)
                   for x, dark in enumerate(row) if dark)
    return PrintedLink(url, code.size + 2 * q, path)


def game_sheet(match: SheetMatch, facts: SheetFacts, preset: Preset | None,
               lang: str = "en", link: str | None = None) -> str:
    """The game sheet of one match as an A4 HTML document; ``link``: the match's result
    link, printed as a QR code for the referee's phone (office.web.resultdesk)."""
    m = match.scheduled
    names = {"home": match.home, "away": match.away}
    rosters = {"home": match.home_roster, "away": match.away_roster}

    def who(side: str, player: int | None) -> str:
        if player is None:
            return word("sheet.unknown_player", lang)
        name = rosters[side].get(player)
        return f"#{player}" + (f" {name}" if name else "")

    def t(key: str, **fields: object) -> str:
        return word(key, lang, **fields)

    facts_rows = [("sheet.event", match.event)]
    if match.category is not None:
        facts_rows.append(("sheet.category", match.category))
    facts_rows += [("sheet.match", m.id), ("sheet.stage", _stage(m, lang)),
                   ("sheet.hall", m.hall), ("sheet.date", m.start.strftime("%Y-%m-%d %H:%M"))]
    after = [("sheet.correction", match.correction)] if match.correction else []
    sides = [(t(title), names[side], _tab(
        [t("sheet.number"), t("sheet.player")],
        [[str(n), rosters[side][n]] for n in sorted(rosters[side])], numeric=(0,))
        if rosters[side] else None) for side, title in (("home", "sheet.home"),
                                                         ("away", "sheet.away"))]
    goals = _tab(
        [t("sheet.time"), t("sheet.team"), t("sheet.scorer"), t("sheet.score")],
        [[game_time(g.at, preset, lang), names[g.side], who(g.side, g.player),
          f"{g.score[0]}:{g.score[1]}"] for g in facts.goals], numeric=(0, 3))
    penalties = _tab(
        [t("sheet.time"), t("sheet.team"), t("sheet.player"), t("sheet.kind"),
         t("sheet.minutes")],
        [[game_time(p.at, preset, lang), names[p.side], who(p.side, p.player),
          _kind(p.kind, lang), str(p.minutes)] for p in facts.penalties], numeric=(0, 4))
    timeouts = _tab([t("sheet.time"), t("sheet.team")],
                    [[game_time(x.at, preset, lang), names[x.side]] for x in facts.timeouts],
                    numeric=(0,))
    shootout = None
    if facts.shots:
        rows, tally = [], {"home": 0, "away": 0}
        for i, s in enumerate(facts.shots, start=1):
            tally[s.side] += s.scored
            rows.append([str(i), names[s.side], who(s.side, s.player),
                         t("sheet.scored" if s.scored else "sheet.missed"),
                         f"{tally['home']}:{tally['away']}"])
        shootout = _tab([t("sheet.shot"), t("sheet.team"), t("sheet.shooter"), "",
                         t("sheet.tally")], rows, numeric=(0, 4))
    signers = [t("sheet.referee") + " 1", t("sheet.referee") + " 2", t("sheet.timekeeper"),
               t("sheet.official", team=match.home), t("sheet.official", team=match.away)]
    return _TEMPLATES.render(
        "game_sheet.html.j2", title=f"{word('sheet.title', lang)} {m.id}", lang=lang,
        css=PRINT_CSS, t=t, match=match, facts=[(t(k), v) for k, v in facts_rows],
        after=[(t(k), v) for k, v in after],
        uncounted=t("sheet.goals_uncounted", teams=", ".join(match.uncredited))
        if match.uncredited else None,
        result=_result(match, lang),
        state=t("sheet.state.voided" if match.voided else "sheet.state." + match.state.value),
        forfeit=None if facts.forfeit is None else t("sheet.forfeit",
                                                      team=names[facts.forfeit]),
        sides=sides, goals=goals, penalties=penalties, timeouts=timeouts, shootout=shootout,
        signers=signers, link=None if link is None else printed_link(link))


def _result(match: SheetMatch, lang: str) -> PrintedResult | None:
    r = match.result
    if r is None:
        return None
    # The result may name the teams the other way round from the schedule (a hall that
    # swapped them): print it as home - away of the sheet's header.
    goals = {r.home: r.home_goals, r.away: r.away_goals}
    home, away = goals.get(match.home, r.home_goals), goals.get(match.away, r.away_goals)
    return PrintedResult(f"{home}:{away}", word(f"sheet.decided.{r.decided_by.value}", lang))


def _stage(m: ScheduledMatch, lang: str) -> str:
    if m.stage is Stage.GROUP:
        return word("sheet.stage.group", lang, group=m.group or "")
    return word(f"sheet.stage.{m.stage.value}", lang)


def _kind(kind: str, lang: str) -> str:
    """A penalty kind as a person reads it; a kind of a user's own preset has no word of
    ours, so its own name is shown."""
    key = f"sheet.kind.{kind}"
    return word(key, lang) if key in table("en") else kind.replace("_", " ")


@dataclass(frozen=True, slots=True)
class _Page:
    """One page of a printout: its heading under the event's name, its tables (each under
    its own heading and state, or none), and when it was printed."""

    heading: str
    tables: tuple[tuple[str | None, str | None, Table], ...]
    printed: str | None
    door: bool = False


def _pages(title: str, event: Event, pages: Sequence[_Page], lang: str) -> str:
    return _TEMPLATES.render("pages.html.j2", title=title, lang=lang, css=PRINT_CSS,
                             event=event.name, pages=pages, empty=word("sheet.none", lang))


# --- the door schedule, the tables, the placings -------------------------------------------


def _teams(ledger: Ledger, m: ScheduledMatch) -> tuple[str, str]:
    """The match's teams as far as the office knows them (the bracket fills placeholders)."""
    pairing = ledger.pairings.get(m.id)
    home = pairing.home if pairing is not None and pairing.home else m.home.label()
    away = pairing.away if pairing is not None and pairing.away else m.away.label()
    return home, away


def _score(result: GameResult | None, home: str) -> str:
    if result is None:
        return ""
    if result.home != home and result.away == home:  # the hall swapped the sides
        return f"{result.away_goals}:{result.home_goals}"
    return f"{result.home_goals}:{result.away_goals}"


def hall_schedule(event: Event, ledgers: Mapping[str, Ledger], hall: str | None = None,
                  lang: str = "en", at: datetime | None = None) -> str:
    """Each hall's matches in start order, one page a hall (``hall``: that one only), with
    the teams once known and the results so far: for the hall's door."""
    halls = [hall] if hall is not None else list(event.halls())
    several = len(event.categories) > 1
    pages = []
    for h in halls:
        rows = []
        for c, m in event.schedule():
            if m.hall != h:
                continue
            ledger = ledgers.get(c.name)
            home, away = _teams(ledger, m) if ledger else (m.home.label(), m.away.label())
            view = ledger.matches.get(m.id) if ledger else None
            result = view.outcome.result if view is not None else None
            rows.append([m.start.strftime("%Y-%m-%d %H:%M"), m.id,
                         *([c.title] if several else []), _stage(m, lang),
                         home, away, _score(result, home)])
        header = [word("print.start", lang), word("print.match", lang),
                  *([word("print.category", lang)] if several else []),
                  word("print.stage", lang), word("print.home", lang),
                  word("print.away", lang), word("print.result", lang)]
        pages.append(_Page(word("print.schedule_of", lang, hall=h),
                           ((None, None, _tab(header, rows, (0, len(header) - 1))),),
                           _printed(at, lang), door=True))
    return _pages(f"{event.name}: {word('print.schedule', lang)}", event, pages, lang)


def why(row_decided: str | None, lots_needed: bool, lang: str = "en") -> str:
    """The "why" column's words for a row's key (``office.rules.why.why_keys``: what placed
    it above the next one, or the lots that placed it)."""
    if lots_needed:
        return word("print.why.lots_needed", lang)
    return word(f"print.why.{row_decided}", lang) if row_decided else ""


def group_table(t: GroupTable, lang: str = "en") -> tuple[str, str, Table]:
    """One group's table under its heading, with its state and the "why" column."""
    status = [word("print.complete" if t.complete else "print.in_progress", lang)]
    if t.provisional:
        status.append(word("print.provisional", lang))
    columns = ("rank", "team", "played", "won", "drawn", "lost", "goals", "goal_difference",
               "points", "penalty_minutes", "why")
    keys = why_keys([(r.decided_by, r.lots_needed) for r in t.rows])
    rows = [[str(r.rank), r.team, str(r.played), str(r.won), str(r.drawn), str(r.lost),
             f"{r.goals_for}:{r.goals_against}", _signed(r.goals_for - r.goals_against),
             str(r.points), str(r.penalty_minutes), why(key, False, lang)]
            for r, key in zip(t.rows, keys, strict=True)]
    return (word("print.group", lang, group=t.name), ", ".join(status),
            _tab([word(f"print.{k}", lang) for k in columns], rows,
                 numeric=(0, 2, 3, 4, 5, 6, 7, 8, 9)))


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def group_tables(event: Event, ledgers: Mapping[str, Ledger], lang: str = "en",
                 at: datetime | None = None) -> str:
    """Every category's group tables, a category a page."""
    pages = []
    for c in event.categories:
        ledger = ledgers.get(c.name)
        if ledger is None or not c.tournament.groups:
            continue
        tables = tuple(group_table(ledger.tables[g.name], lang) for g in c.tournament.groups
                       if g.name in ledger.tables)
        pages.append(_Page(_category_title(event, c, "print.tables", lang), tables,
                           _printed(at, lang)))
    return _pages(f"{event.name}: {word('print.tables', lang)}", event, pages, lang)


def _category_title(event: Event, c: Category, key: str, lang: str) -> str:
    title = word(key, lang)
    return title if event.plain else f"{title}: {c.title}"


def final_placings(event: Event, placed: Mapping[str, Sequence[Placing]],
                   lang: str = "en", at: datetime | None = None) -> str:
    """Every category's final placings (``office.views.placings``), a category a page."""
    pages = []
    for c in event.categories:
        rows = []
        for p in placed.get(c.name, ()):
            notes = []
            if p.shared:
                notes.append(word("print.shared", lang))
            if p.provisional:
                notes.append(word("print.provisional", lang))
            if p.place is None:
                notes.append(word("print.eliminated" if p.eliminated else "print.not_placed",
                                  lang))
            place = f"{p.place}." if p.place is not None else ""
            rows.append([place, p.team if p.team is not None else p.label, ", ".join(notes)])
        header = [word(k, lang) for k in ("print.place", "print.team", "print.note")]
        pages.append(_Page(_category_title(event, c, "print.placings", lang),
                           ((None, None, _tab(header, rows, (0,))),), _printed(at, lang)))
    return _pages(f"{event.name}: {word('print.placings', lang)}", event, pages, lang)


def _printed(at: datetime | None, lang: str) -> str | None:
    """When the page was printed: tables and results change while the event runs."""
    if at is None:
        return None
    return word("print.printed", lang, at=at.strftime("%Y-%m-%d %H:%M"))
