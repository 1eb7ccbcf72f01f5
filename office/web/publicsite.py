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
escaping); names that reduce to the same slug are told apart by a number.

Every word goes through ``arena.words`` (keys ``site.*``); every name from the files
is escaped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any, TypeVar

from arena import words
from office.views.jsonread import dicts

PAGE_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"
)

SCORERS_SHOWN = 10  # on the front page and a category's; a team's page shows all of its own

_WHY = ("points", "goal_difference", "goals_for", "head_to_head_points",
        "head_to_head_goal_difference", "head_to_head_goals_for", "penalty_minutes", "lots")
_PHASES = ("pregame", "period", "intermission", "overtime_break", "overtime", "shootout",
           "final")
_STATES = ("scheduled", "live", "final", "confirmed", "pending")
Key = TypeVar("Key")
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


def slug(name: str) -> str:
    """``name`` as ``a-z 0-9 -`` ("Střešovice B" -> "stresovice-b"); "x" if nothing is left."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    out = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    return out[:60].strip("-") or "x"


def _slugs(names: Iterable[str]) -> dict[str, str]:
    """A distinct slug for each name, in order (a clash gets -2, -3, ...)."""
    return _keyed_slugs((name, name) for name in names)


def _keyed_slugs(items: Iterable[tuple[Key, str]]) -> dict[Key, str]:
    """A distinct slug for each key, made from its name, in order."""
    out: dict[Key, str] = {}
    taken: set[str] = set()
    for key, name in items:
        if key in out:
            continue
        base = candidate = slug(name)
        n = 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        out[key] = candidate
    return out


def _opt(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _e(value: Any) -> str:
    """Any value as escaped text (None as nothing)."""
    return "" if value is None else escape(str(value), quote=True)


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
        self.team_slugs = _keyed_slugs(
            ((_opt(g.get("category")), t), t if g.get("category") is None
             else f"{g.get('category')} {t}")
            for g in self.groups for r in dicts(g.get("rows")) if (t := _str(r.get("team"))))
        self.hall_slugs = _slugs(h for x in self.halls if (h := _str(x.get("hall"))))
        self.category_slugs = _slugs(c for c in self.categories if c is not None)
        self._by_id = {_str(m.get("id")): m for m in self.matches}

    def _team_link(self, team: str, category: Any, root: str) -> str:
        """The team's name, linked to its page if it has one."""
        found = self.team_slugs.get((_opt(category), team))
        return (f'<a href="{root}team/{found}/">{_e(team)}</a>' if found is not None
                else _e(team))

    def w(self, key: str, **fields: object) -> str:
        return escape(words.word(key, self.lang, **fields))

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
            return self._front()
        if path == "schedule/":
            return self._page(path, self.w("site.schedule"),
                              [self._schedule(self.matches, path, by_day=True)])
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

    def _front(self) -> str:
        parts = [self._halls_section(self.halls, "")]
        for category in self.categories:
            title = self._category_title(category)
            link = (f' <a href="category/{self.category_slugs[category]}/">'
                    f'{self.w("site.more")}</a>' if category is not None else "")
            heading = f"<h1 class=\"full\">{_e(title)}{link}</h1>" if category else ""
            parts.append(heading)
            parts += self._category_parts(category, "", scorers=SCORERS_SHOWN)
        parts.append(self._teams_section(""))
        return self._page("", "", parts)

    def _category(self, name: str, path: str) -> str:
        parts = self._category_parts(name, path, scorers=SCORERS_SHOWN)
        matches = [m for m in self.matches if m.get("category") == name]
        parts.insert(len(self._groups_of(name)), self._schedule(matches, path, by_day=True))
        return self._page(path, _e(self._category_title(name)), parts)

    def _team(self, key: tuple[str | None, str], path: str) -> str:
        category, team = key
        groups = [g for g in self.groups if g.get("category") == category
                  and any(r.get("team") == team for r in dicts(g.get("rows")))]
        matches = [m for m in self.matches if m.get("category") == category
                   and team in (m.get("home"), m.get("away"))]
        parts = [self._group_table(g, path, me=team) for g in groups]
        parts.append(self._schedule(matches, path, by_day=True))
        placed = [p for p in self.placings
                  if p.get("team") == team and p.get("category") == category]
        if placed:
            parts.append(self._placings_section(placed, path))
        mine = [s for s in self.scorers
                if s.get("team") == team and s.get("category") == category]
        if mine:
            parts.append(self._scorers_section(mine, path, len(mine)))
        return self._page(path, _e(team), parts)

    def _hall(self, hall: str, path: str) -> str:
        here = [h for h in self.halls if h.get("hall") == hall]
        matches = [m for m in self.matches if m.get("hall") == hall]
        return self._page(path, _e(hall), [self._halls_section(here, path),
                                           self._schedule(matches, path, by_day=True)])

    def _category_parts(self, category: str | None, path: str, *, scorers: int) -> list[str]:
        groups = self._groups_of(category)
        parts = [self._group_table(g, path) for g in groups]
        bracket = [b for b in self.bracket if b.get("category") == category]
        if bracket:
            parts.append(self._bracket_section(bracket, path))
        placings = [p for p in self.placings if p.get("category") == category]
        if placings:
            parts.append(self._placings_section(placings, path))
        top = [s for s in self.scorers if s.get("category") == category]
        if top:
            parts.append(self._scorers_section(top, path, scorers))
        return parts

    def _groups_of(self, category: str | None) -> list[Mapping[str, Any]]:
        return [g for g in self.groups if g.get("category") == category]

    def _category_title(self, category: str | None) -> str:
        if category is None:
            return ""
        return self.titles.get(category) or category

    # -- the frame ---------------------------------------------------------------------

    def _root(self, path: str) -> str:
        return "../" * path.count("/")

    def _page(self, path: str, heading: str, parts: Sequence[str]) -> str:
        root = self._root(path)
        home = root or "./"
        nav = [f'<a href="{home}">{self.w("site.home")}</a>',
               f'<a href="{root}schedule/">{self.w("site.schedule")}</a>']
        nav += [f'<a href="{root}category/{s}/">{_e(self._category_title(c))}</a>'
                for c, s in self.category_slugs.items()]
        nav += [f'<a href="{root}hall/{s}/">{_e(h)}</a>' for h, s in self.hall_slugs.items()]
        title = f"{heading} · {_e(self.name)}" if heading else _e(self.name)
        h1 = f'<h1 class="full">{heading}</h1>' if heading else ""
        return (
            f'<!doctype html>\n<html lang="{_e(self.lang)}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title><style>{CSS}</style></head>\n"
            f'<body><header><a class="name" href="{home}">{_e(self.name)}</a>'
            f'<nav>{"".join(nav)}</nav></header>\n'
            f'<main id="main" data-page="{_e(path)}">{h1}{"".join(parts)}</main>\n'
            f'<footer>{self.w("site.footer")}</footer>'
            f"<script>{JS}</script></body></html>\n")

    # -- the parts ---------------------------------------------------------------------

    def _halls_section(self, halls: Sequence[Mapping[str, Any]], path: str) -> str:
        if not halls:
            return ""
        root = self._root(path)
        cards = []
        for h in halls:
            name = _str(h.get("hall"))
            online = h.get("online")
            status = ("" if online is not False
                      else f' <span class="badge">{self.w("site.offline")}</span>')
            live = h.get("live")
            body = self._live(live) if isinstance(live, Mapping) else (
                f'<div class="muted">{self.w("site.no_match")}</div>')
            nxt = self._by_id.get(_str(h.get("next")))
            if nxt is not None:
                body += (f'<div class="next">{self.w("site.next")}: '
                         f'{_e(self._time(nxt))} {self._pairing(nxt, root)}</div>')
            link = (f'<a href="{root}hall/{self.hall_slugs[name]}/">{_e(name)}</a>'
                    if name in self.hall_slugs else _e(name))
            cards.append(f'<div class="hall" data-hall="{_e(name)}"><b>{link}</b>{status}'
                         f"{body}</div>")
        return (f'<section class="full"><h2>{self.w("site.live")}</h2>'
                f'<div class="halls">{"".join(cards)}</div></section>')

    def _live(self, live: Mapping[str, Any]) -> str:
        teams = live.get("teams") if isinstance(live.get("teams"), Mapping) else {}
        score = live.get("score") if isinstance(live.get("score"), Mapping) else {}
        assert isinstance(teams, Mapping) and isinstance(score, Mapping)
        home, away = _str(teams.get("home")), _str(teams.get("away"))
        phase = _str(live.get("phase"))
        period = _int(live.get("period"))
        shown = (self.w(f"site.phase.{phase}", period=period or 1)
                 if phase in _PHASES else _e(phase))
        ms = _int(live.get("clock_ms"))
        clock = ""
        if ms is not None and phase not in ("final", "shootout"):
            running = "1" if live.get("running") is True else "0"
            clock = (f'<span class="clock" data-ms="{ms}" data-running="{running}">'
                     f"{_clock(ms)}</span>")
        return (f'<div class="live" data-match="{_e(live.get("match"))}">'
                f"<div>{_e(home)} – {_e(away)}</div>"
                f'<div><span class="score">{_e(_int(score.get("home")))}:'
                f'{_e(_int(score.get("away")))}</span>{clock}</div>'
                f'<div class="muted">{shown}</div></div>')

    def _group_table(self, g: Mapping[str, Any], path: str, *, me: str | None = None) -> str:
        root = self._root(path)
        name = _str(g.get("name"))
        badge = (f'<span class="badge provisional">{self.w("site.provisional")}</span>'
                 if g.get("provisional") else
                 f'<span class="badge">{self.w("site.complete")}</span>'
                 if g.get("complete") else "")
        head = (f'<tr><th>{self.w("site.col.rank")}</th><th class="l">'
                f'{self.w("site.col.team")}</th><th>{self.w("site.col.played")}</th>'
                f'<th class="wide">{self.w("site.col.won")}</th>'
                f'<th class="wide">{self.w("site.col.drawn")}</th>'
                f'<th class="wide">{self.w("site.col.lost")}</th>'
                f'<th class="wide">{self.w("site.col.goals")}</th>'
                f'<th>{self.w("site.col.gd")}</th><th>{self.w("site.col.points")}</th>'
                f'<th class="why">{self.w("site.col.why")}</th></tr>')
        rows = []
        for r in dicts(g.get("rows")):
            team = _str(r.get("team"))
            gf, ga = _int(r.get("goals_for")), _int(r.get("goals_against"))
            gd = f"{gf - ga:+d}".replace("+0", "0") if gf is not None and ga is not None else ""
            link = self._team_link(team, g.get("category"), root)
            cls = ' class="me"' if team == me else ""
            rows.append(
                f'<tr data-team="{_e(team)}"{cls}><td class="rank">{_e(_int(r.get("rank")))}'
                f'</td><td class="l team">{link}</td><td>{_e(_int(r.get("played")))}</td>'
                f'<td class="wide">{_e(_int(r.get("won")))}</td>'
                f'<td class="wide">{_e(_int(r.get("drawn")))}</td>'
                f'<td class="wide">{_e(_int(r.get("lost")))}</td>'
                f'<td class="wide">{_e(gf)}:{_e(ga)}</td><td class="gd">{gd}</td>'
                f'<td class="points">{_e(_int(r.get("points")))}</td>'
                f'<td class="why">{self._why(r)}</td></tr>')
        category = _str(g.get("category"))
        return (f'<section class="group" data-group="{_e(name)}" data-category="{_e(category)}">'
                f'<h2>{self.w("site.group", name=name)}{badge}</h2>'
                f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></section>")

    def _why(self, row: Mapping[str, Any]) -> str:
        if row.get("lots_needed"):
            return self.w("site.why.lots_needed")
        why = _str(row.get("decided_by"))
        return self.w(f"site.why.{why}") if why in _WHY else ""

    def _schedule(self, matches: Sequence[Mapping[str, Any]], path: str, *,
                  by_day: bool) -> str:
        root = self._root(path)
        out = [f'<section class="schedule"><h2>{self.w("site.schedule")}</h2>']
        day = None
        rows: list[str] = []

        def flush() -> None:
            if rows:
                out.append(f"<table><tbody>{''.join(rows)}</tbody></table>")
                rows.clear()

        for m in matches:
            start = _str(m.get("start"))
            if by_day and start[:10] != day:
                flush()
                day = start[:10]
                out.append(f"<h3>{_e(day)}</h3>")
            hall = _str(m.get("hall"))
            hall_link = (f'<a href="{root}hall/{self.hall_slugs[hall]}/">{_e(hall)}</a>'
                         if hall in self.hall_slugs else _e(hall))
            what = _str(m.get("group"))
            label = self.w("site.group", name=what) if what else _e(m.get("id"))
            rows.append(
                f'<tr data-match="{_e(m.get("id"))}"><td class="l time">{_e(self._time(m))}'
                f'<div class="muted">{hall_link}</div></td>'
                f'<td class="l teams">{self._pairing(m, root)}'
                f'<div class="muted">{label}</div></td>'
                f'<td class="score">{self._result(m)}</td></tr>')
        flush()
        if not matches:
            out.append(f'<p class="muted">{self.w("site.none")}</p>')
        out.append("</section>")
        return "".join(out)

    def _time(self, m: Mapping[str, Any]) -> str:
        return _str(m.get("start"))[11:16]

    def _pairing(self, m: Mapping[str, Any], root: str) -> str:
        return (f"{self._side(m, 'home', root)} – {self._side(m, 'away', root)}")

    def _side(self, m: Mapping[str, Any], side: str, root: str) -> str:
        team = _str(m.get(side))
        slot = _str(m.get(f"{side}_slot"))
        if team and (_opt(m.get("category")), team) in self.team_slugs:
            return self._team_link(team, m.get("category"), root)
        if slot and slot != team:  # a team's own slot is its name, never a placeholder
            return _e(self._slot_text(slot))
        return _e(team) or self.w("site.tbd")

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

    def _result(self, m: Mapping[str, Any]) -> str:
        state = _str(m.get("state"))
        score = m.get("score")
        text = ""
        if isinstance(score, Mapping):
            text = f"{_e(_int(score.get('home')))}:{_e(_int(score.get('away')))}"
            how = _str(m.get("decided_by"))
            if how in ("overtime", "shootout", "forfeit"):
                text += f' <span class="muted">{self.w(f"site.decided.{how}")}</span>'
        if state == "live":
            text += f'<span class="badge live">{self.w("site.state.live")}</span>'
        elif state == "final":
            text += f'<span class="badge">{self.w("site.state.final")}</span>'
        elif state == "pending":
            text += f'<span class="badge">{self.w("site.state.pending")}</span>'
        if m.get("voided"):
            text += f'<span class="badge">{self.w("site.voided")}</span>'
        return text

    def _bracket_section(self, bracket: Sequence[Mapping[str, Any]], path: str) -> str:
        root = self._root(path)
        rows = []
        for b in bracket:
            m = self._by_id.get(_str(b.get("match")), {})
            view = {**b, **{k: v for k, v in m.items() if k in ("score", "state", "decided_by",
                                                                  "home", "away")}}
            rows.append(f'<tr data-match="{_e(b.get("match"))}"><td class="l time">'
                        f'{_e(b.get("match"))}<div class="muted">{_e(self._time(b))}</div></td>'
                        f'<td class="l teams">{self._pairing(view, root)}</td>'
                        f'<td class="score">{self._result(view)}</td></tr>')
        return (f'<section class="bracket"><h2>{self.w("site.bracket")}</h2>'
                f"<table><tbody>{''.join(rows)}</tbody></table></section>")

    def _placings_section(self, placings: Sequence[Mapping[str, Any]], path: str) -> str:
        root = self._root(path)
        rows = []
        for p in placings:
            place = _int(p.get("place"))
            team = _str(p.get("team"))
            if place is None:
                shown = self.w("site.eliminated" if p.get("eliminated") else "site.not_placed")
            else:
                shown = f"{place}."
            who = (self._team_link(team, p.get("category"), root) if team else
                   f'<span class="muted">{self.w("site.tbd")} ({_e(p.get("match"))})</span>')
            badge = (f'<span class="badge provisional">{self.w("site.provisional")}</span>'
                     if p.get("provisional") else "")
            rows.append(f'<tr><td class="place">{shown}</td><td class="l team">{who}{badge}'
                        "</td></tr>")
        return (f'<section class="placings"><h2>{self.w("site.placings")}</h2>'
                f"<table><tbody>{''.join(rows)}</tbody></table></section>")

    def _scorers_section(self, scorers: Sequence[Mapping[str, Any]], path: str,
                         shown: int) -> str:
        root = self._root(path)
        rows = []
        for s in scorers[:shown]:
            team = _str(s.get("team"))
            number = _int(s.get("player"))
            name = _str(s.get("name"))
            who = f"{_e(name)} <span class=\"muted\">#{_e(number)}</span>" if name else \
                f"#{_e(number)}"
            team_link = self._team_link(team, s.get("category"), root)
            rows.append(f'<tr><td class="rank">{_e(_int(s.get("rank")))}</td>'
                        f'<td class="l">{who}<div class="muted">{team_link}</div></td>'
                        f'<td class="goals">{_e(_int(s.get("goals")))}</td></tr>')
        head = (f'<tr><th>{self.w("site.col.rank")}</th><th class="l">'
                f'{self.w("site.col.player")}</th><th>{self.w("site.col.goals_scored")}</th>'
                "</tr>")
        return (f'<section class="scorers"><h2>{self.w("site.scorers")}</h2>'
                f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
                "</section>")

    def _teams_section(self, path: str) -> str:
        root = self._root(path)
        items = [f'<li><a href="{root}team/{s}/">{_e(t)}</a>'
                 + (f' <span class="muted">{_e(c)}</span>' if c is not None else "") + "</li>"
                 for (c, t), s in self.team_slugs.items()]
        return (f'<section class="full teams"><h2>{self.w("site.teams")}</h2>'
                f'<ul class="teamlist">{"".join(items)}</ul></section>')


def _clock(ms: int) -> str:
    """m:ss, rounded up as the hall display shows it (a second shows until it is over)."""
    total = max(0, (ms + 999) // 1000)
    return f"{total // 60}:{total % 60:02d}"
