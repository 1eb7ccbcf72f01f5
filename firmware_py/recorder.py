"""The recorder: feeds the core and journals what it was fed and what came of it.

The journal holds the match's *inputs* (its setup, every accepted command, every advance
that made something happen) and its *outputs* (the events, with gapless ``seq``). The core
is deterministic, so replaying the inputs rebuilds exactly the same state; the events are the
MQTT outbox and the audit trail, and on recovery they must agree with the replayed ones.

When the journal cannot be written (a full disk, a card gone read-only) the game must go on:
a period that never ends and a STOP that is refused are worse than a record kept in memory.
So the command is applied all the same and its records (input and events, seqs as the core
gave them) are kept in ``unwritten``, in order; every later record queues behind them, so the
file never gets a record before an earlier one. ``flush()`` (the daemon retries it, backing
off) writes them all in one append when the disk is back. ``recording`` tells the shell to
say so loudly: what is only in memory is lost with the process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.core.commands import Command, parse_command
from arena.core.errors import CommandError, PresetError
from arena.core.events import Event, EventKind
from arena.core.match import Match, feed
from arena.core.phase import Stage
from arena.core.values import Fed, MatchSetup, MatchState, TeamInfo
from arena.presets import journal_text, parse_journalled
from arena.wire import roster_document
from firmware_py.journal import Journal, JournalError, Record, Recovery
from firmware_py.nextmatch import team_from_next

log = logging.getLogger(__name__)

WallClock = Callable[[], float]

# Records the shell (the daemon) adds to a match's journal for itself: the timeline (how the
# boot's monotonic clock maps onto the match's, journalled after a power loss) and a replay
# script's origin. They are not inputs of the match: replay passes over them in silence.
# ``damage``: the timekeeper confirmed playing on from a journal damaged in the middle; its
# ``seq_floor`` (the highest seq ever seen in the file) is applied on replay too, so no seq
# the office may hold is given to another event.
SHELL_RECORDS = frozenset({"timeline", "script", "clock", "damage"})
# A setup (``match``) record after the first starts a fresh game of the same match: the
# office voided the result (``office review --replay``) and sent the match again. Its
# ``replay.above_seq`` is the seq its events number above (a first game's record carries it
# too when the match is replayed in a hall that holds no journal of it). The earlier games
# stay in the journal, their events sent and kept; replay rebuilds the last game.
REPLAY = "replay"


def _team_record(team: TeamInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"name": team.name, "colours": list(team.colours)}
    if team.placeholder:  # only then: older journals stay byte for byte what they were
        out["placeholder"] = True
    if team.roster:  # the same: a match without rosters journals as it always did
        out["roster"] = roster_document(team.roster)
    return out


def _team_of(record: Mapping[str, Any]) -> TeamInfo:
    # The roster is part of the setup: a restart names the scorers as before it.
    return team_from_next(record)


def setup_record(preset_toml: str, preset_source: str, setup: MatchSetup, *,
                 replay_above: int | None = None) -> Record:
    record: Record = {
        "type": "match",
        "match": setup.match_id,
        "stage": setup.stage.value,
        "teams": {"home": _team_record(setup.home), "away": _team_record(setup.away)},
        "preset_source": preset_source,
        "preset_toml": preset_toml,  # the whole text: a later edit of the file changes nothing
    }
    if replay_above is not None:  # only then: older journals stay byte for byte the same
        record[REPLAY] = {"above_seq": replay_above}
    return record


def replay_floor(record: Record) -> int | None:
    """The seq a setup record's game numbers its events above, if it is a replay."""
    replay = record.get(REPLAY)
    if not isinstance(replay, dict):
        return None
    return int(replay["above_seq"])


def current_game(records: list[Record]) -> list[Record]:
    """The records of the journal's last game: from its last setup record on (a journal
    holds a match's earlier games too, voided by the office and replayed)."""
    starts = [i for i, r in enumerate(records) if r.get("type") == "match"]
    return records[starts[-1]:] if starts else records


def match_from_setup_record(record: Record) -> Match:
    try:
        preset = parse_journalled(record["preset_toml"], record["preset_source"])
        teams = record["teams"]
        setup = MatchSetup(
            match_id=record["match"],
            stage=Stage(record["stage"]),
            home=_team_of(teams["home"]),
            away=_team_of(teams["away"]),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise PresetError(f"journal setup record is unusable: {err!r}") from err
    return Match(preset, setup)


@dataclass
class Resumed:
    """A match rebuilt from its journal, and what did not add up."""

    recorder: Recorder
    events: list[Event]  # every event of the match, as the journal recorded them
    warnings: list[str] = field(default_factory=list)
    recovery: Recovery | None = None  # what reading the file found (damage, highest seq)


class Recorder:
    def __init__(
        self,
        match: Match,
        journal: Journal | None = None,
        *,
        wall: WallClock | None = None,
        boot_id: str = "",
    ) -> None:
        self.match = match
        self.journal = journal
        self._wall = wall
        self._boot_id = boot_id
        self.unwritten: list[Record] = []  # applied, not yet on the disk, in journal order
        self.fault: str | None = None  # why the journal cannot be written, while it cannot
        # The current game is a replay numbered above this seq (None: the match's first).
        self.replay_above: int | None = None

    @property
    def recording(self) -> bool:
        """Everything applied is on the disk and the journal is open for the next record."""
        return not self.unwritten and (self.journal is None or self.journal.writable)

    def flush(self) -> bool:
        """Write what was kept in memory, in order, in one append; True when all is on the
        disk (and the journal open again)."""
        if self.journal is None:
            return True
        try:
            self.journal.ensure_open()
            if self.unwritten:
                self.journal.append(*self.unwritten)
        except JournalError as err:
            self.fault = str(err)
            return False
        self.unwritten.clear()
        self.fault = None
        return True

    def _write(self, records: list[Record]) -> None:
        """Journal records, or keep them in memory behind the ones already kept."""
        if self.journal is None:
            return
        if self.unwritten:
            self.unwritten += records  # never ahead of an earlier record
            return
        try:
            self.journal.append(*records)
        except JournalError as err:
            self.unwritten += records
            self.fault = str(err)

    @classmethod
    def create(cls, journal: Journal, preset_toml: str, preset_source: str, setup: MatchSetup,
               *, wall: WallClock | None = None, boot_id: str = "",
               replay_above: int | None = None) -> Recorder:
        """A new match, its setup journalled first. The journal keeps the preset's whole
        text, self-contained (a preset that extends another is kept resolved).
        ``replay_above``: the office's replay of a match this journal never held (another
        hall played it, or the journal was lost): its events number above that seq."""
        match, record = _game(preset_toml, preset_source, setup, replay_above)
        recorder = cls(match, journal, wall=wall, boot_id=boot_id)
        recorder._begin(record, replay_above)
        return recorder

    def replay(self, preset_toml: str, preset_source: str, setup: MatchSetup,
               above: int) -> None:
        """Start the match again as a fresh game (the office voided its result): the clock,
        score and penalties from zero, the events numbered above ``above`` and above every
        seq this journal gave (the earlier games' events are kept and still sent). Journalled
        as a new setup record, so a restart rebuilds this game, not the voided one."""
        floor = max(above, self.match.state.seq)
        self.match, record = _game(preset_toml, preset_source, setup, floor)
        self._begin(record, floor)

    def _begin(self, record: Record, replay_above: int | None) -> None:
        """Journal a game's setup record; a replay numbers above ``replay_above``."""
        self.replay_above = replay_above
        if replay_above is not None:
            self.raise_seq(replay_above)
        self._write([self._stamp(record)])

    @classmethod
    def resume(cls, journal: Journal, records: list[Record], *, wall: WallClock | None = None,
               boot_id: str = "") -> Resumed:
        """Rebuild a match from its journal's records (see ``Journal.open``)."""
        if not records or records[0].get("type") != "match":
            raise PresetError(f"journal {journal.path}: does not start with a match record")
        recorder = cls(match_from_setup_record(records[0]), None, wall=wall,
                       boot_id=boot_id)  # no journalling while replaying
        journalled: list[Event] = []
        regenerated: list[Event] = []
        warnings: list[str] = []
        for index, record in enumerate(records, start=1):
            kind = record.get("type")
            try:
                if kind == "match":
                    # The first game, or a replay: a fresh match from its own setup (the
                    # teams may have changed with the office's correction).
                    if index > 1:
                        recorder.match = match_from_setup_record(record)
                    recorder.replay_above = replay_floor(record)
                    if recorder.replay_above is not None:
                        recorder.raise_seq(recorder.replay_above)
                elif kind == "command":
                    command = parse_command(record["command"], int(record["at"]))
                    regenerated += recorder.command(command).events
                elif kind == "advance":
                    regenerated += recorder.advance(int(record["at"]))
                elif kind == "event":
                    journalled.append(event_from_record(record))
                elif kind == "damage":
                    recorder.raise_seq(int(record["seq_floor"]))
                elif kind in SHELL_RECORDS:
                    continue
                else:
                    warnings.append(f"journal {journal.path}: record {index}: unknown type "
                                    f"{kind!r} skipped")
            except (KeyError, TypeError, ValueError, CommandError, PresetError) as err:
                warnings.append(f"journal {journal.path}: record {index} unusable ({err!r}), "
                                "skipped")
        recorder.journal = journal
        replayed = [e.to_json() for e in regenerated]
        held = [e.to_json() for e in journalled]
        if len(replayed) > len(held) and replayed[: len(held)] == held:
            # A power cut tore an append after its input record: the input is durable, so its
            # events did happen. Journal the lost ones now, before anything new, so the seqs
            # stay gapless and the outbox sends them.
            missing = regenerated[len(held):]
            match_id = recorder.match.setup.match_id
            recorder._write([recorder._stamp(event_record(match_id, e)) for e in missing])
            warnings.append(
                f"journal {journal.path}: events {missing[0].seq}..{missing[-1].seq} were lost "
                "in a torn write after their input; re-journalled from the replay"
            )
            journalled = regenerated
        elif replayed != held:
            differ = next((i for i, (a, b) in enumerate(zip(replayed, held, strict=False))
                           if a != b), min(len(replayed), len(held)))
            warnings.append(
                f"journal {journal.path}: replaying the inputs gave {len(replayed)} events, the "
                f"journal holds {len(held)}, differing from event {differ + 1} on; the replayed "
                "state stands"
            )
        return Resumed(recorder, journalled, warnings)

    def raise_seq(self, floor: int) -> None:
        """Number the next event above ``floor``: seqs seen in a damaged journal are never
        given again (the office de-duplicates by seq and would drop the new event)."""
        if self.match.state.seq < floor:
            self.match.restore(replace(self.match.state, seq=floor))

    def _stamp(self, record: Record) -> Record:
        if self._wall is not None:
            record["wall"] = self._wall()
        if self._boot_id:
            record["boot"] = self._boot_id
        return record

    def command(self, command: Command, tag: Record | None = None) -> Fed:
        """Feed one command; journal it and its events (if any) before returning them.

        ``tag`` adds fields to the input record (the daemon notes the replay-script line a
        command came from, so a restart never plays that line twice).
        """
        before = self.match.state
        fed = feed(self.match, command)
        if not fed.events or self.journal is None:
            return fed
        records: list[Record] = []
        if fed.refused is None:
            records.append(
                self._stamp({"type": "command", "at": command.at, "command": command.to_json(),
                             **(tag or {})})
            )
        else:
            # Refused, but time passed to the press: journal that as an advance, so the
            # events it produced are reproduced on replay.
            records.append(self._stamp({"type": "advance", "at": command.at, **(tag or {})}))
        self._commit(before, records, fed.events)
        return fed

    def note(self, record: Record) -> None:
        """Journal one of the shell's own records (``SHELL_RECORDS``), stamped and durable."""
        if record.get("type") not in SHELL_RECORDS:
            raise ValueError(f"not a shell record: {record.get('type')!r}")
        if self.journal is not None:
            self._write([self._stamp(record)])

    def advance(self, now: int) -> list[Event]:
        """Let time pass; journal it only if something happened."""
        before = self.match.state
        events = self.match.advance(now)
        if events and self.journal is not None:
            self._commit(before, [self._stamp({"type": "advance", "at": now})], events)
        return events

    def _commit(self, before: MatchState, inputs: list[Record], events: list[Event]) -> None:
        records = inputs + [self._stamp(event_record(self.match.setup.match_id, e))
                            for e in events]
        try:
            self._write(records)
        except Exception:
            # Not the disk (that is kept in memory): an encoding bug. Nothing half-applied.
            self.match.restore(before)
            raise


def _game(preset_toml: str, preset_source: str, setup: MatchSetup,
          replay_above: int | None) -> tuple[Match, Record]:
    """A fresh game and its setup record; the journal keeps the preset's whole text."""
    preset_toml = journal_text(preset_toml, preset_source)
    return (Match(parse_journalled(preset_toml, preset_source), setup),
            setup_record(preset_toml, preset_source, setup, replay_above=replay_above))


def replay_due(recorder: Recorder, above: int) -> bool:
    """The office's replay above ``above`` is still to start here: the journal's last game
    numbers at or below it (the voided game, or an older one). A game numbered above it
    began after every seq the office held when it ordered the replay: it is that replay
    (the retained ``next`` read again after a restart), never to be started over."""
    floor = recorder.replay_above
    return floor is None or floor < above


def event_record(match_id: str, event: Event) -> Record:
    return {"type": "event", "match": match_id, "seq": event.seq, "at": event.at,
            "event": event.kind.value, "data": dict(event.data)}


def event_from_record(record: Record) -> Event:
    return Event(int(record["seq"]), int(record["at"]), EventKind(record["event"]),
                 record["data"])


def open_or_create(path: Path, preset_toml: str, preset_source: str, setup: MatchSetup, *,
                   wall: WallClock | None = None, boot_id: str = "",
                   degrade: bool = False, replay_above: int | None = None) -> Resumed:
    """Resume the match journalled at ``path``, or start it there if the file is new.

    ``degrade``: if the file cannot be opened for writing (a read-only or full disk), read
    what it holds and play on from memory (``Recorder.recording`` is False, ``fault`` says
    why) instead of raising. ``replay_above``: the office replays the match
    (``replay_due``): a fresh game numbered above it, unless the journal's last game
    already is that replay."""
    fault: str | None = None
    try:
        journal, recovery = Journal.open(path)
    except JournalError as err:
        if not degrade:
            raise
        fault = str(err)
        journal, recovery = Journal.open_detached(path)
    for warning in recovery.warnings:
        log.warning("%s", warning)
    try:
        if not recovery.records:
            floor = None if replay_above is None else max(replay_above, recovery.max_seq)
            recorder = Recorder.create(journal, preset_toml, preset_source, setup, wall=wall,
                                       boot_id=boot_id, replay_above=floor)
            resumed = Resumed(recorder, [], list(recovery.warnings))
        else:
            resumed = Recorder.resume(journal, recovery.records, wall=wall, boot_id=boot_id)
            resumed.warnings[:0] = recovery.warnings
            recorder = resumed.recorder
            if replay_above is not None and replay_due(recorder, replay_above):
                # Above every seq the file ever held, a damaged record's included.
                recorder.replay(preset_toml, preset_source, setup,
                                max(replay_above, recovery.max_seq))
    except BaseException:
        journal.close()
        raise
    resumed.recovery = recovery
    if fault is not None and resumed.recorder.fault is None:
        resumed.recorder.fault = fault
    return resumed
