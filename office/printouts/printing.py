"""The printouts' shell: reads the store and the ledgers, hands them to ``office.printouts.sheets``,
and has Chromium print a page to PDF.

Used by ``office sheet`` / ``office print`` (the ledgers folded from the store now) and by
the office page's server (``/sheet/<match>``, ``/print/...``: the running service's
ledgers). Why Chromium for PDF (docs/public.md, "Printouts"): no new dependency, and the PDF is
exactly what the print stylesheet shows in the browser, A4 page breaks included.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote

from arena import presets as bundled
from arena.core.errors import PresetError
from arena.core.preset import Preset
from arena.tournament.event import Event
from arena.tournament.model import ResultState
from arena.words import LANGUAGES
from office.inforce import ledgers_in_force
from office.printouts import sheets
from office.storage import reports
from office.storage.store import Store
from office.views.ledger import Ledger
from office.views.placings import placings

PDF_TIMEOUT_S = 120.0  # a cold Chromium start on a Pi takes seconds; a hang must not stay

# What the printouts read: the event in force and each category's ledger, by name.
Source = Callable[[], tuple[Event, Mapping[str, Ledger]]]


class PrintoutError(ValueError):
    """A printout that cannot be made: the message says what and why."""


def check_lang(lang: str) -> str:
    if lang not in LANGUAGES:
        raise PrintoutError(f"--lang: {lang!r} is not a language of ours "
                            f"(one of {', '.join(LANGUAGES)})")
    return lang


def ledgers_from_store(event: Event, store: Store, now: datetime | None) -> dict[str, Ledger]:
    """Each category's ledger as the service would fold it now; ``event`` is the schedule in
    force (``office.inforce.event_in_force``), the one every printout prints."""
    return ledgers_in_force(event, store, now)


class Printouts:
    """Every printout of one event, in one language."""

    def __init__(self, source: Source, store: Store, lang: str = "en",
                 wall: Callable[[], datetime] = datetime.now,
                 link: Callable[[str], str | None] | None = None) -> None:
        self.source = source
        self.store = store
        self.lang = check_lang(lang)
        self.wall = wall
        # A match's result link (None: none to print): the running office's, or the one
        # the store keeps (``stored_link``).
        self.link = link if link is not None else stored_link(store)

    def sheet(self, match_id: str, lang: str | None = None) -> str:
        event, ledgers = self.source()
        category = event.category_of(match_id)
        scheduled = event.match(match_id)
        if category is None or scheduled is None:
            known = ", ".join(m.id for _, m in event.schedule())
            raise PrintoutError(f"no match {match_id!r} in the schedule (matches: {known})")
        ledger = ledgers.get(category.name)
        view = ledger.matches.get(match_id) if ledger is not None else None
        outcome = view.outcome if view is not None else None
        home, away = scheduled.home.label(), scheduled.away.label()
        if ledger is not None:
            pairing = ledger.pairings.get(match_id)
            home = pairing.home if pairing is not None and pairing.home else home
            away = pairing.away if pairing is not None and pairing.away else away
        if view is not None and view.hall_teams is not None and home == scheduled.home.label():
            home = view.hall_teams[0]  # a placeholder the hall played under its own names
        if view is not None and view.hall_teams is not None and away == scheduled.away.label():
            away = view.hall_teams[1]
        teams = category.tournament.teams
        match = sheets.SheetMatch(
            event=event.name, category=None if event.plain else category.title,
            scheduled=scheduled, home=home, away=away,
            home_roster=teams[home].roster if home in teams else {},
            away_roster=teams[away].roster if away in teams else {},
            state=outcome.state if outcome is not None else ResultState.SCHEDULED,
            result=outcome.result if outcome is not None else None,
            correction=view.correction.reason
            if view is not None and view.correction is not None else None,
            uncredited=view.uncredited if view is not None else (),
            voided=ledger is not None and match_id in ledger.voided)
        facts = sheets.read_events(self.store.events(match_id))
        return sheets.game_sheet(match, facts, _preset(scheduled.preset), lang or self.lang,
                                 self.link(match_id))

    def schedule(self, hall: str | None = None, lang: str | None = None) -> str:
        event, ledgers = self.source()
        if hall is not None and hall not in event.halls():
            raise PrintoutError(f"no hall {hall!r} in the schedule (halls: "
                                f"{', '.join(event.halls())})")
        return sheets.hall_schedule(event, ledgers, hall, lang or self.lang, self.wall())

    def tables(self, lang: str | None = None) -> str:
        event, ledgers = self.source()
        return sheets.group_tables(event, ledgers, lang or self.lang, self.wall())

    def placings(self, lang: str | None = None) -> str:
        event, ledgers = self.source()
        placed = {name: placings(ledger) for name, ledger in ledgers.items()}
        return sheets.final_placings(event, placed, lang or self.lang, self.wall())

    def page(self, path: str, query: Mapping[str, list[str]]) -> str | None:
        """The printout at an office page address (``?lang=``: another language than the
        event's); None: no printout there. A bad match, hall or language raises
        ``PrintoutError``."""
        langs = query.get("lang")
        lang = check_lang(langs[0]) if langs else None
        if path.startswith("/sheet/") and path.count("/") == 2:
            return self.sheet(unquote(path.removeprefix("/sheet/")), lang)
        if path == "/print/schedule":
            halls = query.get("hall")
            return self.schedule(halls[0] if halls else None, lang)
        if path == "/print/tables":
            return self.tables(lang)
        if path == "/print/placings":
            return self.placings(lang)
        return None


def stored_link(store: Store) -> Callable[[str], str | None]:
    """The result links as the store keeps them: each match's token, under the public
    address the service was last started with (``office serve --public-url``); none
    without that address."""
    base = store.kv_get(reports.LINK_BASE_KEY)
    tokens = reports.links(store) if isinstance(base, str) else {}

    def link(match: str) -> str | None:
        token = tokens.get(match)
        return None if token is None or not isinstance(base, str) \
            else reports.result_link(base, token)

    return link


def _preset(name: str) -> Preset | None:
    """The match's preset, for the game time; a sheet is still printed without it."""
    try:
        return bundled.load(name)
    except (PresetError, OSError, KeyError, ValueError):
        return None


def find_chromium() -> str | None:
    """Debian's Chromium (``apt-get install chromium``), as the page tests use it."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def print_pdf(html: str, out: Path, chromium: str | None = None) -> None:
    """Have headless Chromium print ``html`` to the PDF file ``out``, with the page's own
    A4 size and margins and without the browser's header and footer."""
    browser = chromium or find_chromium()
    if browser is None:
        raise PrintoutError("--pdf needs Chromium (Debian: apt-get install chromium), which "
                            "is not installed; --html writes the page, print it from a browser")
    with tempfile.TemporaryDirectory(prefix="office-print-") as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(html, encoding="utf-8")
        target = out.resolve()
        args = [browser, "--headless", "--disable-gpu", "--no-first-run",
                # Root (a container, CI) cannot use the sandbox; the page is our own file.
                "--no-sandbox", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                f"--user-data-dir={tmp}/profile", "--no-pdf-header-footer",
                f"--print-to-pdf={target}", page.as_uri()]
        try:
            done = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=PDF_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired as err:
            raise PrintoutError(f"Chromium did not print within {PDF_TIMEOUT_S:.0f} s") from err
        except OSError as err:
            raise PrintoutError(f"cannot run {browser}: {err.strerror or err}") from err
        if done.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise PrintoutError(f"Chromium could not print {out} (exit {done.returncode}): "
                                + " / ".join(tail))
