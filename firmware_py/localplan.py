"""A hall without an office (docs/technician.md, "A hall without an office"): the local
schedule read at start (an event file or a tournament file), the matches played here, the
next one after a final (of whichever category plays next in this hall), a placeholder match
waiting for the timekeeper, and the timekeeper's pick from the keypad's SCHEDULE entry."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.core.entry import PickMatch, ScheduledChoice
from arena.core.errors import Reason, because
from arena.core.phase import Phase
from firmware_py.logfmt import kv
from firmware_py.nextmatch import in_progress, showing_final
from firmware_py.schedule import LocalSchedule, ScheduleError
from firmware_py.schedule import load as load_schedule

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon

log = logging.getLogger("firmware_py.daemon")


class LocalPlan:
    """The local schedule (or why there is none) and what has been played of it."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self.schedule: LocalSchedule | None = None
        self.problem: str | None = None  # why the schedule is not used
        self._played: set[str] = set()
        # A placeholder match (its teams not known yet) waiting for the timekeeper's pick.
        self.offer: Mapping[str, object] | None = None
        self._offered: tuple[ScheduledChoice, ...] | None = None

    def load(self) -> None:
        """``[schedule] file``: read once at start. A missing or broken file, or a hall it
        does not know, is logged and shown on the board; the board plays without it."""
        cfg = self._daemon.config
        if cfg.schedule.file is None:
            return
        try:
            schedule = load_schedule(cfg.schedule, cfg.mqtt.hall if cfg.mqtt else None)
        except ScheduleError as err:
            self.problem = str(err)
            kv(log, logging.ERROR, "schedule not used", problem=str(err))
            return
        self.schedule = schedule
        kv(log, logging.INFO, "schedule", file=cfg.schedule.file, hall=schedule.hall,
           tournament=schedule.event.id, categories=len(schedule.event.categories),
           matches=len(schedule.remaining(())))

    def first(self, current: str | None) -> dict[str, Any] | None:
        """With a schedule: the matches played here (their journals are final) and, for a
        fresh hall (no match on the board yet), the first one left. A match the board is
        on came from the schedule if its id is there: its time and label are shown."""
        schedule = self.schedule
        if schedule is None:
            return None
        self._played = self._daemon.files.played()
        if current is not None:
            doc = schedule.document(current, confirmed=True)
            if doc is not None:
                self._daemon.loader.loaded_next = doc
            return None
        return self._next(schedule, on_board=None)

    def _next(self, schedule: LocalSchedule, on_board: str | None) -> dict[str, Any] | None:
        """The next match in this hall, as a ``next`` document; one whose teams are still
        placeholders waits for the timekeeper (``offer``) and None is returned."""
        left = schedule.remaining(self._played, on_board)
        if not left:
            return None
        doc = schedule.document(left[0].id)
        assert doc is not None  # a match of the schedule
        if doc.get("teams_known") is False:
            self.offer = doc
            self._daemon.dirty = True
            return None
        return doc

    def offer_choices(self) -> None:
        """The keypad's SCHEDULE entry lists this hall's matches still to play."""
        daemon = self._daemon
        if self.schedule is None or daemon.console is None or daemon.session is None:
            return
        choices = self.schedule.choices(self._played, daemon.session.match_id)
        if choices != self._offered:
            self._offered = choices
            daemon.console.offer_schedule(choices, self.schedule.teams())

    def office_decides(self) -> None:
        """An office sent a `next`: it replaces a local pick not yet started."""
        self.offer = None

    def take_local(self) -> None:
        """After a final (once it has been up for the final hold): the next match in this
        hall, unless an office decides (it has sent a `next`)."""
        daemon = self._daemon
        schedule = self.schedule
        if schedule is None or daemon.office.next_seen:
            return
        session = daemon.session_on_board()
        state = session.recorder.match.state
        if state.phase is not Phase.FINAL:
            return
        if session.match_id not in self._played:
            self._played.add(session.match_id)
            self.offer_choices()
        if showing_final(state, daemon.timeline.now(), daemon.final_hold):
            return
        if self.offer is not None:
            return  # a placeholder match: the timekeeper picks its teams
        doc = self._next(schedule, on_board=session.match_id)
        if doc is not None:
            daemon.loader.load_next(doc)

    def more_to_play(self, on_board: str) -> bool:
        """The schedule's next match follows the final hold (the office does not decide)."""
        return (self.schedule is not None and not self._daemon.office.next_seen
                and self.offer is None
                and bool(self.schedule.remaining(self._played, on_board)))

    def pick(self, pick: PickMatch) -> None:
        """The timekeeper picked the next match from the schedule (the keypad's SCHEDULE
        entry). Loaded like the office's `next`: its journal and the current pointer are
        written at once, so a restart comes back to it."""
        daemon = self._daemon
        reason = self._refusal(pick)
        if reason is not None:
            kv(log, logging.WARNING, "next match not picked", match=pick.match,
               reason=reason if isinstance(reason, str) else reason.text)
            daemon.feedback.note(pick.match, reason, pick.at)
            daemon.dirty = True
            return
        schedule = self.schedule
        doc = None if schedule is None else schedule.document(pick.match, pick.home,
                                                              pick.away, confirmed=True)
        if doc is None:  # _refusal has said so already
            raise RuntimeError(f"picked {pick.match}: not a match of the schedule")
        kv(log, logging.INFO, "next match picked at the table", match=pick.match,
           home=doc["teams"]["home"]["name"], away=doc["teams"]["away"]["name"])
        self.offer = None
        daemon.loader.load_next(doc)
        daemon.feedback.note(pick.match, None, pick.at)

    def _refusal(self, pick: PickMatch) -> Reason | str | None:
        daemon = self._daemon
        session = daemon.session_on_board()
        if self.schedule is None:
            return self.problem or because(
                "no_schedule", "no schedule: [schedule] file in the config")
        link = daemon.link
        if daemon.office.next_seen and link is not None and link.connected:
            return because("office_sends", "the office sends the next match")
        if in_progress(session.recorder.match.state):
            return because("in_progress", "a match is in progress: pick after its final")
        if not session.recorder.recording or session.damaged:
            return because("journal_first", "the journal must be written first")
        if pick.match == session.match_id:
            return because("on_board", "already on the board")
        category = self.schedule.category_of(pick.match)
        if pick.match in self._played or category is None:
            return because("not_in_schedule", f"{pick.match} is not left in this hall's "
                           "schedule", match=pick.match)
        if pick.home is not None and pick.home == pick.away:
            return because("plays_itself", f"{pick.home} cannot play itself", name=pick.home)
        # The keypad lists the teams of every category in this hall: a match is played by
        # its own category's teams (their colours and rosters), never another's.
        for team in (pick.home, pick.away):
            if team is not None and team not in category.tournament.teams:
                return because("other_category", f"{team} is not a team of {category.title}",
                               name=team, category=category.title)
        return None

    def next_in_hall(self) -> str | None:
        """The scheduled start of the match after the board's in this hall, from the local
        schedule (None without one, or for a match it does not hold)."""
        schedule, session = self.schedule, self._daemon.session
        if schedule is None or session is None:
            return None
        hall = schedule.matches()
        ids = [m.id for m in hall]
        if session.match_id not in ids:
            return None
        at = ids.index(session.match_id)
        return hall[at + 1].start.isoformat(timespec="minutes") if at + 1 < len(hall) else None
