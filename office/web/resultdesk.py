"""The result forms: a referee's phone enters a match's result through its result link
(``/r/<token>``, served by the public site's server, the one the phones reach), the office
through its own page (``/results/...``, the office's server, never exposed to phones), and
the office's listing of every match's link (``/results/``).

Server-rendered (``arena.templates``, autoescaped), no script: a phone without JavaScript
sends the form as it is. The token in the path is the only key a phone has and names the one
match it may write; it is compared in constant time (``reports.LinkIndex``). Each form
carries a nonce the server signed for that match, that writer and the entry it was shown
with (``reports.make_nonce``): a form from elsewhere is refused (no cross-site writes), the
same form sent twice is stored once, and a form shown before another entry came is refused
as stale. Every write, and every refused one, is logged with its source.

The answers are :class:`Answer` values; the two HTTP servers (``publicweb``, ``officepage``)
only send them.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, quote

from arena import words
from arena.templates import Templates
from arena.tournament.event import Category, Event
from arena.tournament.model import ResultState, ScheduledMatch
from office.storage import reports
from office.storage.reports import OFFICE, PHONE, Outcome
from office.storage.store import Store
from office.views.ledger import Ledger, MatchView
from office.views.reported import CARDS, SIDES, FormError, ReportedResult, parse

log = logging.getLogger("office")

_TEMPLATES = Templates("office.web")
MAX_BODY = 16 * 1024  # a form is a few hundred bytes
CONFIRM_SCOPE = "confirm"  # the nonce of the office's confirm button
# The form pages: our own markup and stylesheet; a form may post to this server only.
FORM_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
CSS = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 40rem; padding: 0.8rem;
       font-size: 1.05rem; line-height: 1.4; }
h1 { font-size: 1.3rem; margin: 0.2rem 0 0.6rem; }
fieldset { border: 1px solid #888; margin: 0 0 0.8rem; padding: 0.5rem 0.7rem; }
legend { font-weight: bold; }
label { display: block; margin: 0.4rem 0 0.1rem; }
input[type=number] { width: 5rem; font-size: 1.4rem; }
input[type=text] { width: 100%; box-sizing: border-box; font-size: 1.1rem; }
button { font-size: 1.2rem; padding: 0.5rem 1.2rem; }
.error { color: #a00; font-weight: bold; }
.message { border: 2px solid #333; padding: 0.5rem; margin: 0 0 0.8rem; }
.field-error { border: 2px solid #a00; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #999; padding: 0.2rem 0.4rem; text-align: left; vertical-align: top; }
main.wide { max-width: none; }
"""

# What a form reads of the running office: the schedule in force and each category's ledger.
Source = Callable[[], tuple[Event, Mapping[str, Ledger]]]


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    html: str
    location: str | None = None  # a redirect (303 after a stored form)
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Match:
    """A scheduled match as a form shows it."""

    scheduled: ScheduledMatch
    category: Category
    teams: tuple[str, str] | None  # None: not known yet (a bracket slot not filled)
    view: MatchView | None


class ResultDesk:
    """The forms of one running office. ``store``: a connection of its own (the service
    notices what it writes as it notices the office's commands); ``base_url``: the public
    site's address as phones reach it (``office serve --public-url``), None: no links."""

    def __init__(self, store: Store, source: Source, *, base_url: str | None,
                 office_lang: str = words.DEFAULT,
                 wall: Callable[[], datetime] = datetime.now) -> None:
        self.store = store
        self.source = source
        self.base_url = base_url
        self.office_lang = office_lang
        self.wall = wall
        self._key = reports.secret(store)
        self._links: dict[str, str] = {}
        self._index = reports.LinkIndex({})

    # --- links ------------------------------------------------------------------------

    def _refresh_links(self) -> None:
        links = reports.links(self.store)
        if links != self._links:
            self._links, self._index = links, reports.LinkIndex(links)

    def link(self, match: str) -> str | None:
        """The match's result link as phones open it (None: no token yet, or no address)."""
        if self.base_url is None:
            return None
        self._refresh_links()
        token = self._links.get(match)
        return None if token is None else reports.result_link(self.base_url, token)

    # --- the phone's form (public server) ----------------------------------------------

    def phone(self, token: str, query: Mapping[str, list[str]], client: str) -> Answer:
        self._refresh_links()
        match = self._index.match_of(token)
        event, ledgers = self.source()
        lang = _lang(query, event.language)
        if match is None:
            log.warning("result link: unknown token from %s", client)
            return self._message(404, lang, "report.link_unknown")
        m = self._match(event, ledgers, match)
        if m is None:
            return self._message(404, lang, "report.link_unknown")
        stored = query.get("stored")
        message = "report.stored" if stored else None
        return self._form(200, m, lang, PHONE, message=message)

    def phone_post(self, token: str, body: bytes, client: str) -> Answer:
        self._refresh_links()
        match = self._index.match_of(token)
        event, ledgers = self.source()
        if match is None:
            log.warning("result link: a form sent with an unknown token from %s", client)
            return self._message(404, event.language, "report.link_unknown")
        return self._post(event, ledgers, match, source=PHONE, body=body,
                          path=f"/r/{quote(token)}", client=client)

    # --- the office's form and listing (office server) ---------------------------------

    def office(self, match: str, query: Mapping[str, list[str]]) -> Answer:
        event, ledgers = self.source()
        lang = _lang(query, self.office_lang)
        m = self._match(event, ledgers, match)
        if m is None:
            return self._message(404, lang, "report.no_match", match=match)
        message = "report.stored_office" if query.get("stored") else None
        return self._form(200, m, lang, OFFICE, message=message)

    def office_post(self, match: str, body: bytes, client: str) -> Answer:
        event, ledgers = self.source()
        if event.match(match) is None:
            return self._message(404, self.office_lang, "report.no_match", match=match)
        return self._post(event, ledgers, match, source=OFFICE, body=body,
                          path=f"/results/{quote(match)}", client=client)

    def confirm_post(self, match: str, body: bytes, client: str) -> Answer:
        """The office confirms the latest entry of ``match``: no phone changes it after."""
        form = _form_fields(body)
        lang = self.office_lang
        if form is None:
            return self._message(400, lang, "report.bad_form")
        base = reports.read_nonce(self._key, CONFIRM_SCOPE, match, _first(form, "nonce"))
        current = reports.latest(reports.reports(self.store, match)).get(match)
        if base is None or current is None or current.id != base:
            log.warning("result of %s: a confirmation refused (form not for the entry "
                        "shown) from %s", match, client)
            return self._message(409, lang, "report.confirm_stale")
        reports.confirm(self.store, match, current.id, self.wall())
        log.info("result of %s: entry %d confirmed by the office (%s)", match, current.id,
                 client)
        return Answer(303, "", location="/results/")

    def listing(self, query: Mapping[str, list[str]]) -> Answer:
        event, ledgers = self.source()
        lang = _lang(query, self.office_lang)
        self._refresh_links()
        entries = reports.latest(reports.reports(self.store))
        confirmed = reports.confirmations(self.store)
        categories = []
        for c in event.categories:
            rows = []
            for s in c.tournament.matches:
                m = self._match(event, ledgers, s.id)
                assert m is not None
                entry = entries.get(s.id)
                token = self._links.get(s.id)
                rows.append({
                    "id": s.id, "start": s.start.strftime("%H:%M"), "hall": s.hall,
                    "home": m.teams[0] if m.teams else s.home.label(),
                    "away": m.teams[1] if m.teams else s.away.label(),
                    "link": None if token is None or self.base_url is None
                    else reports.result_link(self.base_url, token),
                    "state": _state(m.view, lang),
                    "entry": None if entry is None else _entry(entry, lang,
                                                               confirmed.get(s.id)),
                    "confirm": None if entry is None or confirmed.get(s.id) == entry.id
                    else reports.make_nonce(self._key, CONFIRM_SCOPE, s.id, entry.id),
                })
            categories.append({"title": None if event.plain else c.title, "rows": rows})
        html = _TEMPLATES.render("results/links.html.j2", lang=lang, css=CSS,
                                 t=_words(lang), name=event.name, categories=categories,
                                 base_url=self.base_url)
        return Answer(200, html)

    # --- shared -----------------------------------------------------------------------

    def _post(self, event: Event, ledgers: Mapping[str, Ledger], match: str, *, source: str,
              body: bytes, path: str, client: str) -> Answer:
        lang = event.language if source == PHONE else self.office_lang
        m = self._match(event, ledgers, match)
        form = _form_fields(body)
        if m is None or form is None:
            return self._message(400, lang, "report.bad_form")
        nonce = _first(form, "nonce")
        base = reports.read_nonce(self._key, source, match, nonce)
        if base is None:
            log.warning("result of %s: a %s form refused (not made for it) from %s", match,
                        source, client)
            return self._message(400, lang, "report.bad_form")
        if m.teams is None:
            return self._form(409, m, lang, source, message="report.teams_unknown")
        teams = m.category.tournament.teams
        rosters = {t: teams[t].roster for t in m.teams if t in teams}
        try:
            result = parse(form, m.teams, decided=m.scheduled.stage.decided, rosters=rosters)
        except FormError as err:
            return self._form(400, m, lang, source, values=form, nonce=nonce, error=err)
        try:
            written = reports.write(self.store, match, source, nonce=nonce, base=base,
                                    data=result.to_data(), at=self.wall())
        except sqlite3.Error as err:
            log.error("result of %s: the %s form could not be stored: %s", match, source, err)
            return self._message(503, lang, "report.store_failed")
        outcome = written.outcome
        if outcome is Outcome.STORED:
            assert written.report is not None
            log.info("result of %s: %s stored from the %s form (entry %d, %s)", match,
                     result.score, source, written.report.id, client)
            return Answer(303, "", location=f"{path}?stored={written.report.id}")
        log.warning("result of %s: the %s form from %s not stored: %s", match, source, client,
                    outcome.value)
        if outcome is Outcome.SAME:
            return self._form(200, m, lang, source, message="report.same")
        values = form if outcome is Outcome.STALE else None
        return self._form(409, m, lang, source, values=values,
                          message=f"report.{outcome.value}")

    def _match(self, event: Event, ledgers: Mapping[str, Ledger], match: str) -> _Match | None:
        category = event.category_of(match)
        scheduled = event.match(match)
        if category is None or scheduled is None:
            return None
        ledger = ledgers.get(category.name)
        view = ledger.matches.get(match) if ledger is not None else None
        pairing = ledger.pairings.get(match) if ledger is not None else None
        home = pairing.home if pairing is not None else scheduled.home.team
        away = pairing.away if pairing is not None else scheduled.away.team
        teams = (home, away) if home is not None and away is not None else None
        return _Match(scheduled, category, teams, view)

    def _form(self, status: int, m: _Match, lang: str, source: str, *,
              values: Mapping[str, list[str]] | None = None, nonce: str | None = None,
              error: FormError | None = None, message: str | None = None) -> Answer:
        match = m.scheduled.id
        entry = reports.latest(reports.reports(self.store, match)).get(match)
        confirmed = reports.confirmations(self.store).get(match)
        if values is None and entry is not None:
            values = _values(ReportedResult.from_data(entry.data))
        # A phone cannot change an entry the office confirmed or made: it gets no form.
        locked = source == PHONE and entry is not None and (
            entry.source == OFFICE or confirmed == entry.id)
        if locked and message is None:
            message = "report.locked"
        if nonce is None:
            nonce = reports.make_nonce(self._key, source, match, entry.id if entry else 0)
        t = _words(lang)
        board = None
        if m.view is not None and m.view.final_seq and m.view.outcome.result is not None:
            r = m.view.outcome.result
            board = f"{r.home_goals}-{r.away_goals}"
        html = _TEMPLATES.render(
            "results/form.html.j2", lang=lang, css=CSS, t=t, office=source == OFFICE,
            match=_facts(m, lang), teams=m.teams, sides=SIDES, cards=CARDS,
            decided=m.scheduled.stage.decided, values=values or {}, nonce=nonce,
            error=None if error is None else {"field": error.field,
                                              "text": words.word(error.key, lang,
                                                                 **error.fields)},
            message=None if message is None else words.word(message, lang),
            entry=None if entry is None else _entry(entry, lang, confirmed),
            board=board, state=_state(m.view, lang), locked=locked)
        return Answer(status, html)

    def _message(self, status: int, lang: str, key: str, **fields: object) -> Answer:
        html = _TEMPLATES.render("results/message.html.j2", lang=lang, css=CSS,
                                 text=words.word(key, lang, **fields),
                                 title=words.word("report.heading", lang))
        return Answer(status, html)


def _lang(query: Mapping[str, list[str]], default: str) -> str:
    asked = query.get("lang")
    return asked[0] if asked and asked[0] in words.LANGUAGES else default


def _words(lang: str) -> Callable[..., str]:
    def t(key: str, **fields: object) -> str:
        return words.word(key, lang, **fields)
    return t


def _form_fields(body: bytes) -> dict[str, list[str]] | None:
    if len(body) > MAX_BODY:
        return None
    try:
        return parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=60,
                        strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return None


def _first(form: Mapping[str, Sequence[str]], name: str) -> str:
    values = form.get(name) or ()
    return values[0] if len(values) == 1 else ""


def _values(result: ReportedResult) -> dict[str, list[str]]:
    """A stored result as the form's fields (the form shows what is stored)."""
    out: dict[str, list[str]] = {"home_goals": [str(result.home)],
                                 "away_goals": [str(result.away)],
                                 "decided_by": [result.decided_by.value]}
    for side in SIDES:
        out[f"{side}_scorers"] = [" ".join("?" if g.player is None else str(g.player)
                                           for g in result.goals if g.side == side)]
        for colour in CARDS:
            out[f"{side}_{colour}"] = [" ".join(str(c.player) for c in result.cards
                                                if c.side == side and c.colour == colour)]
    return out


def _facts(m: _Match, lang: str) -> dict[str, Any]:
    s = m.scheduled
    return {"id": s.id, "hall": s.hall, "start": s.start.strftime("%Y-%m-%d %H:%M"),
            "category": m.category.title, "home": m.teams[0] if m.teams else s.home.label(),
            "away": m.teams[1] if m.teams else s.away.label()}


def _state(view: MatchView | None, lang: str) -> str:
    state = view.outcome.state if view is not None else ResultState.SCHEDULED
    return words.word(f"sheet.state.{state.value}", lang)


def _entry(entry: reports.Report, lang: str, confirmed: int | None) -> dict[str, Any]:
    result = ReportedResult.from_data(entry.data)
    scorers = {side: ", ".join("?" if g.player is None else f"#{g.player}"
                               for g in result.goals if g.side == side) for side in SIDES}
    cards = [f"{words.word('report.card.' + c.colour, lang)} #{c.player} "
             f"({result.home_team if c.side == 'home' else result.away_team})"
             for c in result.cards]
    return {"id": entry.id, "score": result.score, "source": entry.source,
            "by": words.word(f"report.by.{entry.source}", lang),
            "decided": words.word(f"sheet.decided.{result.decided_by.value}", lang),
            "at": entry.at.strftime("%H:%M:%S"), "scorers": scorers, "cards": cards,
            "confirmed": confirmed == entry.id}
