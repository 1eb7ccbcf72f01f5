"""The office page, rendered on the server from the office's snapshot (``office.views.snapshot``).

Pure: a snapshot and a language in, HTML out. The page is whole before any script runs (a
screenshot, a browser with JavaScript off, a slow office PC all show the tables at once);
its small script only keeps it live: it long-polls ``/api/live?since=N`` and swaps in the
new ``#live`` part this module renders (``live``), keeping open what the reader opened.

The page is made of sections, each a partial template of its own in
``templates/office/`` (``_<name>.html.j2``) and one line of ``SECTIONS``: its id, its
column and its template. Adding a section is one partial and one line. Each section is
rendered on its own: one malformed part of the snapshot shows as a line saying so in its
section (and in the log), never as a blank page.

Every word goes through ``arena.words`` (keys ``office.*``, with the printouts' ``print.*``
for the tables' columns and the public site's ``site.*`` for slots and phases); names from
the files only ever reach the page through the autoescaped templates (``arena.templates``).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote

from arena import words
from arena.core.preset import Criterion
from arena.templates import Templates
from office.rules.why import LOTS_NEEDED, why_keys
from office.views.jsonread import dicts, mapping, strings
from office.web import officealerts

log = logging.getLogger(__name__)

_TEMPLATES = Templates("office.web")


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the page: ``id`` (its element's), ``column`` (``top``: full width;
    ``left`` or ``right``: the two columns of a wide screen, one after the other on a
    phone), its partial template, and the parts of the snapshot it ``reads`` (``day``: the
    snapshot's date, which the times are shown against): it is rendered again only when
    one of those changed (``SectionCache``)."""

    id: str
    column: str
    template: str
    reads: tuple[str, ...]


SECTIONS: tuple[Section, ...] = (
    Section("alerts", "top", "office/_alerts.html.j2",
            ("review", "alerts", "held", "office", "day")),
    Section("halls", "top", "office/_halls.html.j2", ("halls", "matches", "groups", "day")),
    Section("groups", "left", "office/_groups.html.j2", ("groups",)),
    Section("bracket", "left", "office/_bracket.html.j2",
            ("bracket", "matches", "groups", "day")),
    Section("placings", "left", "office/_placings.html.j2", ("placings",)),
    Section("eliminated", "left", "office/_eliminated.html.j2", ("eliminated",)),
    Section("suspensions", "left", "office/_suspensions.html.j2", ("suspensions",)),
    Section("office", "left", "office/_office.html.j2", ("office", "day")),
    Section("results", "right", "office/_results.html.j2", ("matches", "groups", "day")),
    Section("scorers", "right", "office/_scorers.html.j2", ("scorers",)),
    Section("green-cards", "right", "office/_green_cards.html.j2", ("green_cards",)),
    Section("links", "right", "office/_links.html.j2", ("halls",)),
)
COLUMNS = ("top", "left", "right")

_WHY = frozenset(c.value for c in Criterion)  # each has a print.why.* word
_PHASES = ("pregame", "intermission", "overtime_break", "overtime", "shootout", "final")
_STATES = ("scheduled", "live", "final", "confirmed", "corrected", "needs_review")
_HOW = ("overtime", "shootout", "forfeit")
_GROUP_PLACE = re.compile(r"^(.*\D)(\d+)$")  # "A1": first of group A
_EXPORTS = ("tables", "results", "placings", "scorers")


def _asset(name: str) -> str:
    return resources.files("office.web").joinpath(name).read_text(encoding="utf-8")


CSS = _asset("office.css")
JS = _asset("office.js")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text(value: Any) -> str:
    """A value as a page shows it: nothing for None, numbers as numbers."""
    if value is None or isinstance(value, bool):
        return ""
    return str(value) if isinstance(value, str | int | float) else ""


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a match: the team once known, else its slot in words (``filled`` False)."""

    text: str
    filled: bool


@dataclass(frozen=True, slots=True)
class Rendered:
    """A section rendered: its HTML, or ``error`` (what could not be shown)."""

    section: Section
    html: str
    error: str = ""


class SectionCache:
    """The sections last rendered, each with the parts of the snapshot it read.

    The service's snapshot reuses a part whole while nothing in it changed
    (``office.views.pagecache``): a hall's clock moving makes a new snapshot four times a
    second, and only the halls' section is rendered again (at 3,000 matches the results
    alone take a second to render). A list is the same part only when it is the very
    object (a list once handed out is never written to); anything else when equal."""

    def __init__(self) -> None:
        self._kept: dict[tuple[Any, ...], tuple[tuple[Any, ...], Rendered]] = {}
        self._entries: dict[tuple[Any, ...], dict[int, tuple[Mapping[str, Any], str]]] = {}
        self._lock = threading.Lock()

    def entries(self, key: tuple[Any, ...], entries: Sequence[Mapping[str, Any]],
                render: Callable[[Mapping[str, Any]], str]) -> list[str]:
        """Each entry of a list rendered, an entry kept from the last list of ``key`` (the
        very object: the office replaces a changed entry, never edits it) as it was: one
        result of 3,000 renders one row again, not the whole section."""
        with self._lock:
            kept = self._entries.get(key, {})
        out, now = [], {}
        for e in entries:
            old = kept.get(id(e))
            html = old[1] if old is not None and old[0] is e else render(e)
            now[id(e)] = (e, html)
            out.append(html)
        with self._lock:
            self._entries[key] = now
        return out

    def get(self, key: tuple[Any, ...], parts: tuple[Any, ...]) -> Rendered | None:
        with self._lock:
            kept = self._kept.get(key)
        if kept is None or len(kept[0]) != len(parts):
            return None
        same = all(a is b or (not isinstance(a, list) and not isinstance(b, list) and a == b)
                   for a, b in zip(kept[0], parts, strict=True))
        return kept[1] if same else None

    def put(self, key: tuple[Any, ...], parts: tuple[Any, ...], rendered: Rendered) -> None:
        with self._lock:
            self._kept[key] = (parts, rendered)


class OfficeView:
    """The office page of one snapshot in one language.

    ``printouts``: the server serves the printouts (links to them are shown);
    ``results``: the server serves the result links and the office's result form
    (``/results/``, office.web.resultdesk: a link to them is shown);
    ``lang_query``: the ``?lang=`` the page was asked in, kept in its links ("" none);
    ``cache``: the sections rendered for an earlier snapshot, reused where it is the same."""

    def __init__(self, doc: Mapping[str, Any], lang: str = words.DEFAULT, *,
                 printouts: bool = False, results: bool = False, lang_query: str = "",
                 cache: SectionCache | None = None) -> None:
        words.table(lang)  # a language that does not exist fails here, not on a page
        self.doc = doc
        self.cache = cache
        self.lang = lang
        self.printouts = printouts
        self.results = results
        self.lang_query = lang_query
        tournament = mapping(doc.get("tournament"))
        self.name = _str(tournament.get("name")) or self.w("office.title")
        self.version = _int(doc.get("version")) or 0
        self.generated = _str(doc.get("generated"))
        self.day = self.generated[:10]
        self.groups = dicts(doc.get("groups"))
        self.group_names = {_str(g.get("name")) for g in self.groups}
        self.matches = dicts(doc.get("matches"))
        self.by_id = {_str(m.get("id")): m for m in self.matches}
        self.office = mapping(doc.get("office"))

    # -- words and small pieces ------------------------------------------------------------

    def w(self, key: str, **fields: object) -> str:
        """A word of the page in its language (plain text: the templates escape it)."""
        return words.word(key, self.lang, **fields)

    def hm(self, iso: Any) -> str:
        """"2026-12-05T09:00:00" -> "09:00"; another day than the snapshot's has its date."""
        found = re.match(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})", _str(iso))
        if not found:
            return _str(iso)
        day, at = found.groups()
        return at if day == self.day else f"{day[5:]} {at}"

    def as_of(self) -> str:
        return self.w("office.as_of", time=self.generated[11:19]) if self.generated else ""

    def href(self, path: str, **query: str) -> str:
        """An address of this server with the page's ``?lang=`` kept."""
        params = {**query, **({"lang": self.lang_query} if self.lang_query else {})}
        tail = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
        return f"{path}?{tail}" if tail else path

    def languages(self) -> list[tuple[str, str, bool]]:
        """(code, name, current) of each language the page can be read in."""
        return [(code, words.NAMES[code], code == self.lang) for code in words.LANGUAGES]

    def slot(self, slot: str) -> str:
        """A placeholder as the schedule writes it, in words: "A1", "W:SF1"."""
        if slot.startswith(("W:", "L:")):
            return self.w("site.slot.winner" if slot[0] == "W" else "site.slot.loser",
                          match=slot[2:])
        found = _GROUP_PLACE.match(slot)
        if found and found.group(1) in self.group_names:
            return self.w("site.slot.group_place", group=found.group(1),
                          place=int(found.group(2)))
        return slot or "?"

    def side(self, m: Mapping[str, Any], which: str) -> Side:
        """The team once known, else the slot in words. The service may send an unfilled
        side as null or as the slot's label itself; both read as not filled yet."""
        team, slot = _str(m.get(which)), _str(m.get(f"{which}_slot"))
        filled = team != "" and (team == slot or team != _english_label(slot, self.group_names))
        return Side(team if filled else self.slot(slot), filled)

    def score(self, score: Any) -> str:
        s = mapping(score)
        home, away = _int(s.get("home")), _int(s.get("away"))
        if home is None and away is None:
            return ""
        return f"{text(home)} : {text(away)}"

    def how(self, decided_by: Any) -> str:
        how = _str(decided_by)
        return self.w(f"site.decided.{how}") if how in _HOW else ""

    def state(self, state: Any) -> str:
        s = _str(state) or "scheduled"
        return self.w(f"office.state.{s}") if s in _STATES else s

    def whys(self, rows: Any) -> list[str]:
        """The "why" of each row of a group table, in order: a team the lots placed says
        lots whatever separates it from the next (office.rules.why)."""
        keys = why_keys([(_str(r.get("decided_by")) or None, r.get("lots_needed") is True)
                         for r in self.items(rows)])
        return [self.w(f"print.why.{k}") if k in _WHY or k == LOTS_NEEDED else (k or "")
                for k in keys]

    def phase(self, live: Mapping[str, Any]) -> str:
        phase = _str(live.get("phase"))
        if phase == "period":
            return self.w("site.phase.period", period=text(live.get("period")))
        if phase == "intermission":
            return self.w("site.phase.intermission", period=text(live.get("period")))
        return self.w(f"site.phase.{phase}") if phase in _PHASES else phase

    @staticmethod
    def clock(ms: Any) -> str:
        """Time left, rounded up as the hall display shows it (0.4 s left is 00:01)."""
        if not isinstance(ms, int | float) or isinstance(ms, bool):
            return ""
        total = max(0, -(-int(ms) // 1000))
        return f"{total // 60:02d}:{total % 60:02d}"

    @staticmethod
    def signed(n: int) -> str:
        return f"+{n}" if n > 0 else str(n)

    def goals(self, row: Mapping[str, Any]) -> tuple[str, str]:
        """(goals for:against, goal difference) of a table row."""
        gf, ga = _int(row.get("goals_for")), _int(row.get("goals_against"))
        shown = f"{text(gf)}:{text(ga)}" if gf is not None or ga is not None else ""
        return shown, self.signed(gf - ga) if gf is not None and ga is not None else ""

    def who(self, x: Mapping[str, Any]) -> str:
        """``#7 A. Player``: a player by number and, when known, name."""
        name = _str(x.get("name"))
        return f"#{text(x.get('player'))}" + (f" {name}" if name else "")

    @staticmethod
    def obj(value: Any) -> Mapping[str, Any]:
        """A mapping of the snapshot, or an empty one for anything else."""
        return mapping(value)

    @staticmethod
    def items(value: Any) -> list[Mapping[str, Any]]:
        """The mappings of a list of the snapshot (anything else skipped)."""
        return dicts(value)

    @staticmethod
    def strings(value: Any) -> list[str]:
        return strings(value)

    @staticmethod
    def category(x: Mapping[str, Any]) -> str:
        """``U11 · `` before a name in an event of several categories."""
        cat = _str(x.get("category"))
        return f"{cat} · " if cat else ""

    # -- the sections' data ----------------------------------------------------------------

    def alerts(self) -> officealerts.Alerts:
        return officealerts.group(self.doc, self.w, self.hm)

    def notes(self, m: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(class, text) of what a result carries: the confirm time, a correction, missing
        events, voided (each on a line under the match)."""
        out: list[tuple[str, str]] = []
        if m.get("state") == "final" and m.get("confirm_at"):
            out.append(("confirm", self.w("office.note.confirms", time=self.hm(m["confirm_at"]))))
        corr = m.get("correction")
        if isinstance(corr, Mapping):
            out.append(("correction", self.w("office.note.corrected",
                                             reason=_str(corr.get("reason")))))
        gaps = [text(g) for g in m.get("gaps") or [] if isinstance(g, int)] \
            if isinstance(m.get("gaps"), list) else []
        if gaps:
            out.append(("gaps", self.w("office.note.gaps", events=", ".join(gaps))))
        if m.get("voided") is True:
            out.append(("voided", self.w("office.note.voided")))
        return out

    def bracket(self) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
        """(bracket entry, its match as played) of each playoff match."""
        return [(b, self.by_id.get(_str(b.get("match")), {}))
                for b in dicts(self.doc.get("bracket"))]

    def bracket_head(self, b: Mapping[str, Any]) -> str:
        parts = [_str(b.get("category")), _str(b.get("match")),
                 self.hm(b.get("start")) if b.get("start") else "", _str(b.get("hall"))]
        return " · ".join(p for p in parts if p)

    def halls(self) -> list[Mapping[str, Any]]:
        return dicts(self.doc.get("halls"))

    @staticmethod
    def online(hall: Mapping[str, Any]) -> str:
        value = hall.get("online")
        return "true" if value is True else "false" if value is False else "unknown"

    def next_line(self, hall: Mapping[str, Any]) -> str:
        nxt = _str(hall.get("next"))
        if not nxt:
            return ""
        m = self.by_id.get(nxt)
        what = ""
        if m is not None:
            what = f" {self.side(m, 'home').text} – {self.side(m, 'away').text}"
            if m.get("start"):
                what += f" · {self.hm(m.get('start'))}"
        return self.w("office.hall.next", match=nxt) + what

    def ban(self, s: Mapping[str, Any]) -> str:
        banned = s.get("banned")
        if not isinstance(banned, int) or isinstance(banned, bool):
            return self.w("office.ban.rest")  # no end: the rest of the tournament
        return self.w("office.ban.matches", n=banned) if banned > 0 else "—"

    @staticmethod
    def suspension_active(s: Mapping[str, Any]) -> bool:
        banned = s.get("banned")
        return bool(strings(s.get("pending"))) or (_int(s.get("waiting")) or 0) > 0 \
            or not isinstance(banned, int) or isinstance(banned, bool)

    def place(self, p: Mapping[str, Any]) -> str:
        place = _int(p.get("place"))
        return "–" if place is None else f"{place}{'=' if p.get('shared') else '.'}"

    def exports(self) -> list[tuple[str, str, str]]:
        """(what, its CSV address, its .xlsx address) of each export."""
        return [(self.w(f"office.export.{what}"), f"/{what}.csv", f"/{what}.xlsx")
                for what in _EXPORTS]

    def printout_links(self) -> list[tuple[str, str]]:
        """(words, address) of every printout but the game sheets (a link on each match)."""
        if not self.printouts:
            return []
        out = [(self.w("print.tables"), self.href("/print/tables")),
               (self.w("print.placings"), self.href("/print/placings")),
               (self.w("office.print.schedule_all"), self.href("/print/schedule"))]
        out += [(self.w("print.schedule_of", hall=hall), self.href("/print/schedule", hall=hall))
                for h in self.halls() if (hall := _str(h.get("hall")))]
        return out

    def sheet_href(self, match_id: str) -> str | None:
        return self.href(f"/sheet/{quote(match_id, safe='')}") if self.printouts and match_id \
            else None

    # -- rendering -------------------------------------------------------------------------

    def each(self, template: str, entries: Sequence[Mapping[str, Any]]) -> list[str]:
        """Each entry rendered by ``template`` (a partial of one entry, ``x``), through the
        cache when there is one; the HTML is the templates' own, autoescaped."""
        def render(x: Mapping[str, Any]) -> str:
            return _TEMPLATES.render(template, v=self, w=self.w, text=text, x=x)

        if self.cache is None:
            return [render(x) for x in entries]
        # What an entry's rendering reads besides the entry: the words, the links, the day
        # the times are shown against, the group names the slots are worded with.
        key = (template, self.lang, self.lang_query, self.printouts, self.results, self.day,
               frozenset(self.group_names))
        return self.cache.entries(key, entries, render)

    def sections(self) -> list[Rendered]:
        return [self._section(s) for s in SECTIONS]

    def _section(self, s: Section) -> Rendered:
        key = (s.id, self.lang, self.lang_query, self.printouts, self.results)
        parts = tuple(self.day if k == "day" else self.doc.get(k) for k in s.reads)
        kept = self.cache.get(key, parts) if self.cache is not None else None
        if kept is not None:
            return kept
        try:
            done = Rendered(s, _TEMPLATES.render(s.template, v=self, w=self.w, text=text))
        except Exception as err:  # one odd part must not blank the page
            log.warning("office page: cannot show %s", s.id, exc_info=True)
            return Rendered(s, "", self.w("office.cannot_show", what=s.id,
                                          error=f"{type(err).__name__}: {err}"))
        if self.cache is not None:
            self.cache.put(key, parts, done)
        return done

    def live(self) -> str:
        """The part of the page the script swaps in: everything but the connection status."""
        return _TEMPLATES.render("office/live.html.j2", v=self, w=self.w, text=text,
                                 columns=_columns(self.sections()))

    def page(self) -> str:
        return _TEMPLATES.render("office/page.html.j2", v=self, w=self.w, css=CSS, js=JS,
                                 live=self.live())


def _english_label(slot: str, groups: set[str]) -> str:
    """A slot as the service labels an unfilled side (``ScheduledMatch``'s ``Slot.label``:
    "1st A", "Winner SF1"), to tell it from a team's name."""
    if slot.startswith(("W:", "L:")):
        return f"{'Winner' if slot[0] == 'W' else 'Loser'} {slot[2:]}"
    found = _GROUP_PLACE.match(slot)
    if found and found.group(1) in groups:
        n = int(found.group(2))
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix} {found.group(1)}"
    return slot


def _columns(rendered: Sequence[Rendered]) -> dict[str, list[Rendered]]:
    return {c: [r for r in rendered if r.section.column == c] for c in COLUMNS}
