"""The results entered on a form (a referee's phone, the office's form: office.storage.reports)
into the fold: each match's latest entry is the final its digest holds beside the hall's
(``MatchDigest.report``), so it is read, ranked, reviewed and confirmed as a hall's final
is; a board's final of the same match wins over it, and when the two disagree the office
gets an alert (once per entry, kept across restarts).

The forms are written by the web's threads through their own connection to the store: the
service sees them as it sees the office's commands (the store's ``data_version``)."""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime

from office.serving.rescheduling import Rescheduling
from office.storage import reports
from office.views.ledger import Received
from office.views.reported import ReportedResult, disagreement, final_of

log = logging.getLogger("office")

ALERTED_KEY = "reports_alerted"  # kv: the entries whose disagreement was alerted


class Reporting(Rescheduling):
    """The forms' results, kept as each match's latest entry."""

    _reported: dict[str, Received]  # match -> its latest entry, as the ledger reads it
    _report_ids: dict[str, int]
    _report_results: dict[str, ReportedResult]
    _report_alerted: set[int]

    def _start_reports(self) -> None:
        self._reported, self._report_ids, self._report_results = {}, {}, {}
        alerted = self.store.kv_get(ALERTED_KEY)
        self._report_alerted = {int(i) for i in alerted} if isinstance(alerted, list) else set()
        self._ensure_links()
        if self.public_url is not None and not self.store.read_only:
            # What `office sheet` prints the links with: the address phones reach.
            try:
                self.store.kv_set(reports.LINK_BASE_KEY, self.public_url)
            except sqlite3.Error as err:
                self._store_failed("cannot note the public address", err)
        self._read_reports()

    def _ensure_links(self) -> None:
        """A result link for every match of the schedule in force (a reload's new matches
        included); nothing when the store is read-only."""
        if self.store.read_only:
            return
        try:
            made = reports.ensure_links(self.store, (m.id for _, m in self.event.schedule()),
                                        self.wall())
        except sqlite3.Error as err:
            self._store_failed("cannot make the result links", err)
            return
        if made:
            log.info("result links made for %d matches", made)

    def _read_reports(self) -> None:
        """Each match's latest entry, read again (another connection wrote)."""
        try:
            entries = reports.reports(self.store)
        except sqlite3.Error as err:
            self._store_failed("cannot read the entered results", err)
            return
        for match, report in reports.latest(entries).items():
            if self._report_ids.get(match) == report.id:
                continue
            result = ReportedResult.from_data(report.data)
            self._reported[match] = Received(final_of(match, report.id, result), report.at)
            self._report_ids[match] = report.id
            self._report_results[match] = result
            log.info("result of %s: entry %d (%s, from the %s form) taken into the tables",
                     match, report.id, result.score, report.source)
            self._dirty = True

    def _apply_reports(self, now: datetime) -> None:
        """Every match's latest entry into its digest (a digest made again, after a
        reschedule or a quarantine, gets it back); a board's final that disagrees with it
        is alerted."""
        for match, item in self._reported.items():
            digest = self._events.get(match)
            if digest is None:
                continue
            if digest.reported is not item:
                digest.report(item)
                if self._touched is not None:
                    self._touched.add(match)
            board = digest.board_final
            report = self._report_ids[match]
            if board is None or report in self._report_alerted:
                continue
            differs = disagreement(board.event.data, self._report_results[match])
            if differs is not None:
                self._report_alerted.add(report)
                self._alert(f"{match}: the board's final and the entered result (entry "
                            f"{report}) disagree: {differs}; the board's stands", now)
                try:
                    self.store.kv_set(ALERTED_KEY, sorted(self._report_alerted))
                except sqlite3.Error as err:
                    self._store_failed("cannot note an alert", err)

