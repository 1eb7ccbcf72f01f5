"""The public site's pages, rendered on the server from the public snapshot
(``office.views.public``).

Pure: a public snapshot and a language in, HTML strings out. Every page is whole without any
script (a phone shows the tables before JavaScript runs, or with it off); a small inline
script then asks for the same page again every second (a conditional request: 304 while
nothing changed) and swaps the new ``<main>`` in, and counts a running clock down between
two answers.

Pages, as paths relative to the site's root (the server and the static export share them;
every link is relative, so the export works from any folder of a web server or a CDN):

- ``""`` (``index.html``): the halls live, each category's tables with the "why" column,
  the bracket, the placings, the top scorers, and links to every team;
- ``schedule/``: every match, by day;
- ``category/<slug>/`` (an event of several categories), ``team/<slug>/``, ``hall/<slug>/``:
  that one's tables, schedule, bracket, placings and scorers.

A slug is the name reduced to ``a-z 0-9 -`` (a file name on any file system, a URL without
escaping); names that reduce to the same slug are told apart by a number. The snapshot's
``slugs`` are the ones the office published and keeps for good (``office.views.slugs``); a
page it names none for gets one made here, past every slug it names.

Every word goes through ``arena.words`` (keys ``site.*``). The markup is in the templates
beside this module (``templates/site/``: one layout, a page template each, the sections as
macros), autoescaped by ``arena.templates``: this module picks what a page shows, the
templates say how, and no name from the files reaches a page unescaped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena import words
from arena.core.preset import Criterion
from arena.templates import Templates
from office.views import slugs
from office.views.jsonread import dicts

PAGE_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"
)

SCORERS_SHOWN = 10  # on the front page and a category's; a team's page shows all of its own

_WHY = frozenset(c.value for c in Criterion)  # each has a site.why.* word
_PHASES = ("pregame", "period", "intermission", "overtime_break", "overtime", "shootout",
           "final")
_STATES = ("scheduled", "live", "final", "confirmed", "pending")
_GROUP_PLACE = re.compile(r"^(.*\D)(\d+)$")  # "A1": first of group A (names end in no digit)

# Phone first: one column, nothing wider than the screen (long names wrap anywhere, the
# table columns a phone can spare are hidden below 560 px); a wide screen gets two columns
# and a larger type.
CSS = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;font-size:16px}
body{margin:0;font-family:system-ui,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;line-height:1.35;
 color:#14181d;background:#eef0f3;overflow-wrap:anywhere;font-variant-numeric:tabular-nums}
a{color:#0b57a4}
header{background:#10233f;color:#fff;padding:.5rem .75rem}
header a{color:#fff}
header .name{font-size:1.2rem;font-weight:700;text-decoration:none}
nav{display:flex;flex-wrap:wrap;gap:.2rem .9rem;margin-top:.3rem;font-size:.95rem}
main{max-width:90rem;margin:0 auto;padding:.4rem}
section{background:#fff;border-radius:.4rem;padding:.5rem .6rem;margin:.4rem 0;min-width:0}
h1{font-size:1.3rem;margin:.3rem .2rem}
h2{font-size:1.1rem;margin:.1rem 0 .4rem}
h3{font-size:1rem;margin:.6rem 0 .2rem}
table{width:100%;border-collapse:collapse}
th,td{padding:.25rem .3rem;text-align:right;vertical-align:top}
th{font-size:.8rem;color:#59626d;font-weight:600}
th:not(.l):not(.why),td:not(.l):not(.why){white-space:nowrap;overflow-wrap:normal;width:1%}
td{border-top:1px solid #e1e4e8}
.l{text-align:left}
td.time{white-space:nowrap;overflow-wrap:normal;width:1%}
.why{text-align:left;font-size:.8rem;color:#59626d;overflow-wrap:normal}
.wide{display:none}
.muted{color:#59626d}
.badge{font-size:.75rem;padding:0 .35rem;border-radius:.6rem;background:#e1e4e8;
 margin-left:.3rem;white-space:nowrap}
.badge.live{background:#d7263d;color:#fff}
.badge.provisional{background:#f5b301}
tr.me td{font-weight:700}
.halls{display:grid;gap:.4rem;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr))}
.hall{border:1px solid #e1e4e8;border-radius:.4rem;padding:.4rem .5rem}
.hall .score{font-size:1.6rem;font-weight:700}
.hall .clock{font-size:1.3rem;font-weight:700;margin-left:.4rem}
.teamlist{display:flex;flex-wrap:wrap;gap:.2rem .9rem;list-style:none;padding:0;margin:0}
footer{text-align:center;color:#59626d;font-size:.8rem;padding:.6rem}
@media (min-width:560px){.wide{display:table-cell}}
@media (min-width:1200px){html{font-size:18px}
 main{display:grid;grid-template-columns:1fr 1fr;gap:0 .8rem;align-items:start}
 main>h1,main>.full{grid-column:1/-1}}
"""

# Polls the page it is on (a conditional request: the browser revalidates its copy, the
# server answers 304 while nothing changed) and swaps in the new <main>; between answers
# a running clock counts down by itself. Without it the page is still whole.
JS = """
(function(){
var main=document.getElementById("main"),last=null,base=performance.now();
function fmt(ms){var s=Math.max(0,Math.ceil(ms/1000));var m=Math.floor(s/60);s=s%60;
 return m+":"+(s<10?"0":"")+s;}
function tick(){var gone=performance.now()-base;
 document.querySelectorAll(".clock[data-running='1']").forEach(function(c){
  c.textContent=fmt(Number(c.dataset.ms)-gone);});}
function poll(){fetch(location.pathname,{cache:"no-cache"}).then(function(r){
  if(!r.ok)throw new Error(r.status);return r.text();}).then(function(text){
  if(text!==last){var doc=new DOMParser().parseFromString(text,"text/html");
   var fresh=doc.getElementById("main");
   if(fresh&&last!==null){main.innerHTML=fresh.innerHTML;base=performance.now();
    document.body.dataset.updates=String(Number(document.body.dataset.updates||0)+1);}
   last=text;}
  document.body.dataset.live="ok";}).catch(function(){document.body.dataset.live="error";})
 .then(function(){setTimeout(poll,1000);});}
setInterval(tick,250);setTimeout(poll,1000);
})();
"""


def shows_halls(path: str) -> bool:
    """Whether the page at ``path`` shows the halls' live state (which changes every second
    while a clock runs); the others change only with results and the schedule."""
    return path == "" or path.startswith("hall/")


def _opt(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_TEMPLATES = Templates("office.web")


@dataclass(frozen=True, slots=True)
class Link:
    """A name on a page, linked where it has a page of its own (``href`` None: plain)."""

    text: str
    href: str | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """A match's score as a page shows it: the goals, how it was decided, its badges as
    (class, word)."""

    score: str | None
    decided: str | None
    badges: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Live:
    """A hall's match being played, as its card shows it."""

    match: str | None
    home: str
    away: str
    score_home: int | None
    score_away: int | None
    phase: str
    clock_ms: int | None  # None: no clock shown (none sent, or the final or a shootout)
    running: bool

    @property
    def clock(self) -> str:
        return _clock(self.clock_ms or 0)


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of a group's table."""

    team: str
    link: Link
    rank: int | None
    played: int | None
    won: int | None
    drawn: int | None
    lost: int | None
    goals_for: int | None
    goals_against: int | None
    goal_difference: str
    points: int | None
    why: str


class Site:
    """The pages of one public snapshot. Cheap to make; each page is rendered on demand."""

    def __init__(self, doc: Mapping[str, Any], lang: str = words.DEFAULT) -> None:
        words.table(lang)  # a language that does not exist fails here, not on a page
        self.doc = doc
        self.lang = lang
        tournament = doc.get("tournament")
        self.name = _str(tournament.get("name")) if isinstance(tournament, Mapping) else ""
        self.groups = dicts(doc.get("groups"))
        self.matches = dicts(doc.get("matches"))
        self.bracket = dicts(doc.get("bracket"))
        self.halls = dicts(doc.get("halls"))
        self.placings = dicts(doc.get("placings"))
        self.scorers = dicts(doc.get("scorers"))
        # An event of several categories names them; a plain tournament is one, unnamed.
        self.categories: list[str | None] = (
            [n for c in dicts(doc.get("categories")) if (n := _str(c.get("name")))]
            if "categories" in doc else [None])
        self.titles = {_str(c.get("name")): _str(c.get("title")) or _str(c.get("name"))
                       for c in dicts(doc.get("categories"))}
        # A team is its category's (names repeat across categories: two "Lions", two pages).
        # The office's slugs, kept since first published: a reload never renumbers one.
        kept = slugs.from_json(doc.get("slugs"))
        teams = slugs.assign((slugs.Named(slugs.TEAM, _opt(g.get("category")), t)
                              for g in self.groups for r in dicts(g.get("rows"))
                              if (t := _str(r.get("team")))), kept)
        self.team_slugs = {(n.category, n.name): s for n, s in teams.items()}
        halls = slugs.assign((slugs.Named(slugs.HALL, None, h) for x in self.halls
                              if (h := _str(x.get("hall")))), kept)
        self.hall_slugs = {n.name: s for n, s in halls.items()}
        categories = slugs.assign((slugs.Named(slugs.CATEGORY, None, c)
                                   for c in self.categories if c is not None), kept)
        self.category_slugs = {n.name: s for n, s in categories.items()}
        self._by_id = {_str(m.get("id")): m for m in self.matches}

    def w(self, key: str, **fields: object) -> str:
        """A word of the site in its language (plain text: the templates escape it)."""
        return words.word(key, self.lang, **fields)

    # -- the pages ---------------------------------------------------------------------

    def paths(self) -> list[str]:
        """Every page's path ("" the front page, "team/lions/" ...)."""
        out = ["", "schedule/"]
        out += [f"category/{s}/" for s in self.category_slugs.values()]
        out += [f"team/{s}/" for s in self.team_slugs.values()]
        out += [f"hall/{s}/" for s in self.hall_slugs.values()]
        return out

    def page(self, path: str) -> str | None:
        """The page at ``path`` (as ``paths`` names it), or None: no such page."""
        if path == "":
            return self._render("front", path, "", categories=self.categories,
                                scorers=SCORERS_SHOWN)
        if path == "schedule/":
            return self._render("schedule", path, self.w("site.schedule"),
                                matches=self.matches)
        kind, _, rest = path.partition("/")
        key = rest[:-1] if rest.endswith("/") and rest.count("/") == 1 else None
        if key is None:
            return None
        if kind == "team":
            for team, s in self.team_slugs.items():
                if s == key:
                    return self._team(team, path)
        elif kind in ("category", "hall"):
            table = self.category_slugs if kind == "category" else self.hall_slugs
            render = self._category if kind == "category" else self._hall
            for name, s in table.items():
                if s == key:
                    return render(name, path)
        return None

    def _category(self, name: str, path: str) -> str:
        matches = [m for m in self.matches if m.get("category") == name]
        return self._render("category", path, self.category_title(name), category=name,
                            matches=matches, scorers=SCORERS_SHOWN)

    def _team(self, key: tuple[str | None, str], path: str) -> str:
        category, team = key
        groups = [g for g in self.groups if g.get("category") == category
                  and any(r.get("team") == team for r in dicts(g.get("rows")))]
        matches = [m for m in self.matches if m.get("category") == category
                   and team in (m.get("home"), m.get("away"))]
        placed = [p for p in self.placings
                  if p.get("team") == team and p.get("category") == category]
        mine = [s for s in self.scorers
                if s.get("team") == team and s.get("category") == category]
        return self._render("team", path, team, team=team, groups=groups, matches=matches,
                            placed=placed, mine=mine)

    def _hall(self, hall: str, path: str) -> str:
        here = [h for h in self.halls if h.get("hall") == hall]
        matches = [m for m in self.matches if m.get("hall") == hall]
        return self._render("hall", path, hall, here=here, matches=matches)

    def _render(self, kind: str, path: str, heading: str, **context: Any) -> str:
        root = self._root(path)
        home = root or "./"
        nav = [Link(self.w("site.home"), home), Link(self.w("site.schedule"),
                                                     f"{root}schedule/")]
        nav += [Link(self.category_title(c), f"{root}category/{s}/")
                for c, s in self.category_slugs.items()]
        nav += [Link(h, f"{root}hall/{s}/") for h, s in self.hall_slugs.items()]
        return _TEMPLATES.render(
            f"site/{kind}.html.j2", site=self, w=self.w, num=_int, text=_str, path=path,
            root=root, home=home, nav=nav, heading=heading, name=self.name, lang=self.lang,
            css=CSS, js=JS, **context)

    # -- what the templates ask ----------------------------------------------------------

    def groups_of(self, category: str | None) -> list[Mapping[str, Any]]:
        return [g for g in self.groups if g.get("category") == category]

    def of_category(self, items: Sequence[Mapping[str, Any]],
                    category: str | None) -> list[Mapping[str, Any]]:
        return [i for i in items if i.get("category") == category]

    def category_title(self, category: str | None) -> str:
        if category is None:
            return ""
        return self.titles.get(category) or category

    def category_href(self, category: str) -> str:
        return f"category/{self.category_slugs[category]}/"

    def team_list(self, root: str) -> list[tuple[Link, str | None]]:
        """Every team linked to its page, with its category (None: a plain tournament)."""
        return [(Link(t, f"{root}team/{s}/"), c) for (c, t), s in self.team_slugs.items()]

    def team_link(self, team: str, category: Any, root: str) -> Link:
        """The team's name, linked to its page if it has one."""
        found = self.team_slugs.get((_opt(category), team))
        return Link(team, f"{root}team/{found}/" if found is not None else None)

    def hall_link(self, hall: str, root: str) -> Link:
        found = self.hall_slugs.get(hall)
        return Link(hall, f"{root}hall/{found}/" if found is not None else None)

    def next_match(self, hall: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self._by_id.get(_str(hall.get("next")))

    def live(self, hall: Mapping[str, Any]) -> Live | None:
        live = hall.get("live")
        if not isinstance(live, Mapping):
            return None
        teams = live.get("teams") if isinstance(live.get("teams"), Mapping) else {}
        score = live.get("score") if isinstance(live.get("score"), Mapping) else {}
        assert isinstance(teams, Mapping) and isinstance(score, Mapping)
        phase = _str(live.get("phase"))
        period = _int(live.get("period"))
        shown = (self.w(f"site.phase.{phase}", period=period or 1) if phase in _PHASES
                 else phase)
        ms = _int(live.get("clock_ms"))
        return Live(match=None if live.get("match") is None else str(live.get("match")),
                    home=_str(teams.get("home")), away=_str(teams.get("away")),
                    score_home=_int(score.get("home")), score_away=_int(score.get("away")),
                    phase=shown,
                    clock_ms=ms if phase not in ("final", "shootout") else None,
                    running=live.get("running") is True)

    def table_rows(self, g: Mapping[str, Any], root: str) -> list[TableRow]:
        out = []
        for r in dicts(g.get("rows")):
            team = _str(r.get("team"))
            gf, ga = _int(r.get("goals_for")), _int(r.get("goals_against"))
            gd = f"{gf - ga:+d}".replace("+0", "0") if gf is not None and ga is not None else ""
            out.append(TableRow(
                team=team, link=self.team_link(team, g.get("category"), root),
                rank=_int(r.get("rank")), played=_int(r.get("played")), won=_int(r.get("won")),
                drawn=_int(r.get("drawn")), lost=_int(r.get("lost")), goals_for=gf,
                goals_against=ga, goal_difference=gd, points=_int(r.get("points")),
                why=self._why(r)))
        return out

    def _why(self, row: Mapping[str, Any]) -> str:
        if row.get("lots_needed"):
            return self.w("site.why.lots_needed")
        why = _str(row.get("decided_by"))
        return self.w(f"site.why.{why}") if why in _WHY else ""

    def days(self, matches: Sequence[Mapping[str, Any]]
             ) -> list[tuple[str, list[Mapping[str, Any]]]]:
        """The matches by day (their start's date), in their order."""
        out: list[tuple[str, list[Mapping[str, Any]]]] = []
        for m in matches:
            day = _str(m.get("start"))[:10]
            if not out or out[-1][0] != day:
                out.append((day, []))
            out[-1][1].append(m)
        return out

    def label(self, m: Mapping[str, Any]) -> str:
        """What a schedule's line says under the teams: the group, else the match's id."""
        what = _str(m.get("group"))
        return self.w("site.group", name=what) if what else str(m.get("id") or "")

    def time(self, m: Mapping[str, Any]) -> str:
        return _str(m.get("start"))[11:16]

    def side(self, m: Mapping[str, Any], side: str, root: str) -> Link:
        team = _str(m.get(side))
        slot = _str(m.get(f"{side}_slot"))
        if team and (_opt(m.get("category")), team) in self.team_slugs:
            return self.team_link(team, m.get("category"), root)
        if slot and slot != team:  # a team's own slot is its name, never a placeholder
            return Link(self._slot_text(slot))
        return Link(team or self.w("site.tbd"))

    def _slot_text(self, slot: str) -> str:
        """A slot of the bracket as a person reads it, in the site's language."""
        if slot.startswith(("W:", "L:")):
            key = "site.slot.winner" if slot[0] == "W" else "site.slot.loser"
            return words.word(key, self.lang, match=slot[2:])
        found = _GROUP_PLACE.match(slot)
        if found:
            return words.word("site.slot.group_place", self.lang, group=found.group(1),
                              place=int(found.group(2)))
        return slot

    def result(self, m: Mapping[str, Any]) -> Result:
        state = _str(m.get("state"))
        score = m.get("score")
        text = decided = None
        if isinstance(score, Mapping):
            home, away = _int(score.get("home")), _int(score.get("away"))
            text = f"{'' if home is None else home}:{'' if away is None else away}"
            how = _str(m.get("decided_by"))
            if how in ("overtime", "shootout", "forfeit"):
                decided = self.w(f"site.decided.{how}")
        badges: list[tuple[str, str]] = []
        if state == "live":
            badges.append(("badge live", self.w("site.state.live")))
        elif state in ("final", "pending"):
            badges.append(("badge", self.w(f"site.state.{state}")))
        if m.get("voided"):
            badges.append(("badge", self.w("site.voided")))
        return Result(text, decided, tuple(badges))

    def bracket_view(self, b: Mapping[str, Any]) -> Mapping[str, Any]:
        """A bracket's entry with its match's result and teams once known."""
        m = self._by_id.get(_str(b.get("match")), {})
        return {**b, **{k: v for k, v in m.items() if k in ("score", "state", "decided_by",
                                                             "home", "away")}}

    def place(self, p: Mapping[str, Any]) -> str:
        place = _int(p.get("place"))
        if place is None:
            return self.w("site.eliminated" if p.get("eliminated") else "site.not_placed")
        return f"{place}."

    @staticmethod
    def _root(path: str) -> str:
        return "../" * path.count("/")


def _clock(ms: int) -> str:
    """m:ss, rounded up as the hall display shows it (a second shows until it is over)."""
    total = max(0, (ms + 999) // 1000)
    return f"{total // 60}:{total % 60:02d}"
