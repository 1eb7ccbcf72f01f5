"""The recorder: a match journalled as it is played, and rebuilt from its journal."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import pytest

from arena.core.commands import (
    Command,
    End,
    Goal,
    Horn,
    SetClock,
    Start,
    Stop,
    Undo,
)
from arena.core.errors import PresetError
from arena.core.events import Event
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage, Team
from arena.core.preset import parse_preset
from arena.core.units import seconds
from arena.core.values import MatchSetup, TeamInfo
from firmware_py import journal as journal_module
from firmware_py.journal import Journal, JournalError, Record, Recovery, encode
from firmware_py.recorder import Recorder, open_or_create

PRESET_NAME = "ice-hockey-2x20"  # 2 x 20 min, 1 min break, group draws stand
PRESET_SOURCE = f"{PRESET_NAME}.toml"
PRESET_TOML = resources.files("arena.presets").joinpath(PRESET_SOURCE).read_text("utf-8")
SETUP = MatchSetup(
    match_id="A3",
    stage=Stage.GROUP,
    home=TeamInfo("Lions", ("#10233f", "#ffffff")),
    away=TeamInfo("Bjørnene", ("#f2f2f2", "#10233f")),
)


@dataclass(frozen=True)
class Advance:
    """Time passing with no press: what the daemon's loop does at a deadline."""

    now: int


Step = Command | Advance

# A short game: goals, a stop and restart, clock corrections and their undo, a period that
# runs out, a press refused while the break ran out (its events are still journalled), a
# manual horn, an undone goal, a shortened last period, and presses refused after the end.
GAME: list[Step] = [
    Start(at=seconds(10)),
    Goal(at=seconds(100), team=Team.HOME, player=7),
    Goal(at=seconds(200), team=Team.AWAY),
    Stop(at=seconds(300)),
    Stop(at=seconds(310)),  # refused: already stopped; nothing happens, nothing is journalled
    Start(at=seconds(320)),
    SetClock(at=seconds(400), ms=600_000),
    Undo(at=seconds(410)),
    SetClock(at=seconds(420), ms=5_000),
    Advance(seconds(424)),  # nothing falls due yet: not journalled
    Advance(seconds(430)),  # period 1 ends at 425 s; the break begins
    Goal(at=seconds(440), team=Team.HOME, player=11),  # entered in the break: period 1
    Stop(at=seconds(500)),  # the break ended at 485 s (journalled); the stop itself refused
    Start(at=seconds(510)),
    Goal(at=seconds(600), team=Team.AWAY, player=4),
    Undo(at=seconds(605)),
    Horn(at=seconds(610), on=True),
    Horn(at=seconds(612), on=False),
    Stop(at=seconds(700)),
    End(at=seconds(710)),
    Start(at=seconds(720)),  # refused: the match is over
]


# ---------------------------------------------------------------- helpers


def new_match() -> Match:
    return Match(parse_preset(tomllib.loads(PRESET_TOML), PRESET_SOURCE), SETUP)


def do(recorder: Recorder, step: Step) -> list[Event]:
    if isinstance(step, Advance):
        return recorder.advance(step.now)
    return recorder.command(step).events


def feed_core(match: Match, step: Step) -> None:
    """The core alone, no recorder: the reference a journal must rebuild."""
    if isinstance(step, Advance):
        match.advance(step.now)
    else:
        feed(match, step)


def reference_state(steps: list[Step]) -> Match:
    match = new_match()
    for step in steps:
        feed_core(match, step)
    return match


def records_of(path: Path) -> list[Record]:
    journal, recovery = Journal.open(path)
    journal.close()
    assert recovery.warnings == []
    return recovery.records


def event_seqs(records: list[Record]) -> list[int]:
    return [r["seq"] for r in records if r["type"] == "event"]


@dataclass
class Played:
    recorder: Recorder
    events: list[Event]
    input_ends: list[int | None]  # per step: where its input record ends in the file, if any


def play(path: Path, steps: list[Step]) -> Played:
    """Play ``steps`` through a recorder journalling to ``path``; the journal is closed after."""
    journal, _ = Journal.open(path)
    with journal:
        recorder = Recorder.create(journal, PRESET_TOML, PRESET_SOURCE, SETUP)
        events: list[Event] = []
        input_ends: list[int | None] = []
        for step in steps:
            before = path.stat().st_size
            events += do(recorder, step)
            added = path.read_bytes()[before:]
            input_ends.append(before + added.index(b"\n") + 1 if added else None)
    return Played(recorder, events, input_ends)


def survivors(played: Played, cut: int) -> list[Step]:
    """The steps of ``GAME`` up to the first whose input record a cut at ``cut`` lost."""
    steps: list[Step] = []
    for step, end in zip(GAME, played.input_ends, strict=True):
        if end is not None and end > cut:
            break
        steps.append(step)
    return steps


def resume(path: Path) -> tuple[Recorder, list[Event], list[str], list[str]]:
    """Open and resume; returns the recorder (its journal open), the journalled events, the
    journal's warnings and the recorder's."""
    journal, recovery = Journal.open(path)
    resumed = Recorder.resume(journal, recovery.records)
    return resumed.recorder, resumed.events, recovery.warnings, resumed.warnings


def journal_of(recorder: Recorder) -> Journal:
    assert recorder.journal is not None, "the recorder has no journal"
    return recorder.journal


def fake_wall() -> Iterator[float]:
    value = 1_700_000_000.0
    while True:
        value += 0.25
        yield value


# ---------------------------------------------------------------- a whole game


def test_the_game_exercises_what_it_claims_to() -> None:
    match = reference_state(GAME)
    refused = [step for step in GAME if not isinstance(step, Advance)
               and feed(reference_state(GAME[: GAME.index(step)]), step).refused is not None]

    assert [type(s).__name__ for s in refused] == ["Stop", "Stop", "Start"]
    assert match.state.phase is Phase.FINAL
    assert match.state.result is not None
    assert (match.state.result.home, match.state.result.away) == (2, 1)


def test_a_resumed_game_has_the_same_state_and_the_journal_the_same_events(
    tmp_path: Path,
) -> None:
    path = tmp_path / "A3.journal"
    played = play(path, GAME)

    recorder, journalled, journal_warnings, resume_warnings = resume(path)
    with journal_of(recorder):
        assert journal_warnings == [] and resume_warnings == []
        assert recorder.match.state == played.recorder.match.state
        assert recorder.match.state == reference_state(GAME).state
        assert [e.to_json() for e in journalled] == [e.to_json() for e in played.events]

    records = records_of(path)
    assert event_seqs(records) == list(range(1, len(played.events) + 1))
    assert records[0]["type"] == "match"
    assert records[0]["preset_toml"] == PRESET_TOML


def test_the_journal_holds_inputs_before_their_events_and_only_what_happened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "A3.journal"
    play(path, GAME)

    records = records_of(path)
    inputs = [r for r in records if r["type"] in ("command", "advance")]

    # The refused stop at 310 s, the idle advance at 424 s and the refused start at 720 s
    # changed nothing and are not there; the refused stop at 500 s let the break end.
    assert [(r["type"], r["at"]) for r in inputs] == [
        ("command", seconds(10)), ("command", seconds(100)), ("command", seconds(200)),
        ("command", seconds(300)), ("command", seconds(320)), ("command", seconds(400)),
        ("command", seconds(410)), ("command", seconds(420)), ("advance", seconds(430)),
        ("command", seconds(440)), ("advance", seconds(500)), ("command", seconds(510)),
        ("command", seconds(600)), ("command", seconds(605)), ("command", seconds(610)),
        ("command", seconds(612)), ("command", seconds(700)), ("command", seconds(710)),
    ]
    assert inputs[1]["command"] == {"do": "goal", "team": "home", "player": 7}
    kinds = [r["type"] for r in records]
    assert kinds[0] == "match" and kinds[1] != "event"
    for index, kind in enumerate(kinds):
        if kind in ("command", "advance"):
            assert kinds[index + 1] == "event"  # journalled only because something happened
    assert all(r["match"] == "A3" for r in records if r["type"] == "event")


def test_a_resumed_recorder_goes_on_journalling_and_resumes_again(tmp_path: Path) -> None:
    path = tmp_path / "A3.journal"
    first, rest = GAME[:12], GAME[12:]
    played = play(path, first)

    recorder, _, _, _ = resume(path)
    with journal_of(recorder):
        more = [e for step in rest for e in do(recorder, step)]

    again, journalled, journal_warnings, resume_warnings = resume(path)
    with journal_of(again):
        assert journal_warnings == [] and resume_warnings == []
        assert again.match.state == reference_state(GAME).state
        assert [e.to_json() for e in journalled] == [e.to_json() for e in played.events + more]
    assert event_seqs(records_of(path)) == list(range(1, len(journalled) + 1))


# ---------------------------------------------------------------- torn tail


def test_resuming_after_the_last_record_was_torn_rebuilds_what_survived(tmp_path: Path) -> None:
    whole = tmp_path / "whole.journal"
    played = play(whole, GAME)
    data = whole.read_bytes()
    last = data.rindex(b"\n", 0, len(data) - 1) + 1
    cuts = sorted({last + 1, last + 9, last + 10, (last + len(data)) // 2, len(data) - 1})

    for cut in cuts:
        path = tmp_path / f"cut-{cut}.journal"
        path.write_bytes(data[:cut])
        survived = survivors(played, cut)

        recorder, _, journal_warnings, _ = resume(path)
        with journal_of(recorder):
            assert len(journal_warnings) == 1 and str(last) in journal_warnings[0]
            assert recorder.match.state == reference_state(survived).state, cut


def test_resuming_after_a_cut_anywhere_in_the_last_append_rebuilds_what_survived(
    tmp_path: Path,
) -> None:
    # The last append is a command and its events; a cut inside the command record loses
    # the command, a cut after it keeps it.
    whole = tmp_path / "whole.journal"
    played = play(whole, GAME)
    data = whole.read_bytes()
    last_input_end = max(end for end in played.input_ends if end is not None)
    group_start = data.rindex(b"\n", 0, last_input_end - 1) + 1

    for cut in range(group_start, len(data) + 1, 7):
        path = tmp_path / f"cut-{cut}.journal"
        path.write_bytes(data[:cut])
        survived = survivors(played, cut)

        recorder, _, _, _ = resume(path)
        with journal_of(recorder):
            assert recorder.match.state == reference_state(survived).state, cut


def test_events_stay_gapless_after_resuming_from_a_torn_last_event(tmp_path: Path) -> None:
    # A power cut tore the last event of an append (the command and its first events are
    # whole). Whatever the recovery does - drop the whole torn append, or journal the events
    # the replay regenerated - the journal's events must stay numbered 1..n with no hole,
    # and every event the resumed match has counted (its seq) must be in the journal: the
    # journal is the MQTT outbox, and a hole is an event the office never receives.
    steps = GAME[:3]  # start, a goal, a goal
    whole = tmp_path / "whole.journal"
    play(whole, steps)
    data = whole.read_bytes()
    last = data.rindex(b"\n", 0, len(data) - 1) + 1
    path = tmp_path / "torn.journal"
    path.write_bytes(data[: last + 20])

    recorder, _, _, _ = resume(path)
    with journal_of(recorder):
        do(recorder, Stop(at=seconds(300)))
        seq = recorder.match.state.seq

    seqs = event_seqs(records_of(path))
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert seqs[-1] == seq


# ---------------------------------------------------------------- the journal fails


def failing_append(*records: Record) -> None:
    raise JournalError("journal test: cannot append: No space left on device")


@pytest.mark.parametrize("index", [0, 1, 6, 10, 11, 12, 19])
def test_a_command_the_journal_cannot_take_is_applied_and_kept_in_memory_until_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: int
) -> None:
    """The game goes on from memory (a STOP refused or a period that never ends is worse);
    what could not be written is written, in order and with its seqs, when the disk is
    back, and the file then replays to exactly the game."""
    path = tmp_path / "A3.journal"
    journal, _ = Journal.open(path)
    with journal:
        recorder = Recorder.create(journal, PRESET_TOML, PRESET_SOURCE, SETUP)
        for step in GAME[:index]:
            do(recorder, step)
        size = path.stat().st_size
        assert recorder.recording

        with monkeypatch.context() as patched:
            patched.setattr(journal, "append", failing_append)
            patched.setattr(journal, "ensure_open", failing_append)
            for step in GAME[index:]:
                do(recorder, step)  # nothing raises: the game is played from memory
            assert not recorder.recording and recorder.fault is not None
            assert "No space left" in recorder.fault
            assert recorder.flush() is False  # still failing: kept, nothing lost
            assert recorder.unwritten

        assert recorder.match.state == reference_state(GAME).state
        assert path.stat().st_size == size
        assert recorder.flush() is True
        assert recorder.recording and recorder.fault is None and recorder.unwritten == []

    resumed, _, _, warnings = resume(path)
    with journal_of(resumed):
        assert warnings == []
        assert resumed.match.state == reference_state(GAME).state
    seqs = event_seqs(records_of(path))
    assert seqs == list(range(1, len(seqs) + 1)), seqs


def test_an_advance_the_journal_cannot_take_still_ends_the_period(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "A3.journal"
    journal, _ = Journal.open(path)
    with journal:
        recorder = Recorder.create(journal, PRESET_TOML, PRESET_SOURCE, SETUP)
        for step in GAME[:10]:
            do(recorder, step)
        monkeypatch.setattr(journal, "append", failing_append)

        events = recorder.advance(seconds(430))  # the period ends at 425 s

        assert events and recorder.match.state.phase is not Phase.PERIOD
        assert [r["type"] for r in recorder.unwritten] == ["advance"] + ["event"] * len(events)


def test_a_real_write_failure_leaves_the_journal_whole_and_the_records_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "A3.journal"
    journal, _ = Journal.open(path)
    with journal:
        recorder = Recorder.create(journal, PRESET_TOML, PRESET_SOURCE, SETUP)
        for step in GAME[:2]:
            do(recorder, step)
        size = path.stat().st_size

        class DiskFull:
            def __getattr__(self, name: str) -> object:
                return getattr(os, name)

            @staticmethod
            def write(fd: int, data: bytes) -> int:
                return os.write(fd, data[:10])

        with monkeypatch.context() as patched:
            patched.setattr(journal_module, "os", DiskFull())
            do(recorder, GAME[2])
            assert recorder.fault is not None and "short write" in recorder.fault

        assert path.stat().st_size == size  # the half record was cut off
        assert recorder.flush()
    resumed, _, _, warnings = resume(path)
    with journal_of(resumed):
        assert warnings == [] and resumed.match.state == reference_state(GAME[:3]).state


# ---------------------------------------------------------------- open_or_create


def test_open_or_create_starts_a_journal_with_the_match_record_and_resumes_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hall-1" / "A3.journal"
    wall = fake_wall()

    created = open_or_create(path, PRESET_TOML, PRESET_SOURCE, SETUP,
                             wall=lambda: next(wall), boot_id="boot-1")
    with journal_of(created.recorder):
        assert created.events == [] and created.warnings == []
        events = [e for step in GAME[:12] for e in do(created.recorder, step)]
        state = created.recorder.match.state

    records = records_of(path)
    assert records[0]["type"] == "match"
    assert records[0]["match"] == "A3" and records[0]["stage"] == "group"
    assert records[0]["teams"]["away"] == {"name": "Bjørnene", "colours": ["#f2f2f2", "#10233f"]}
    assert all(r["boot"] == "boot-1" for r in records)
    walls = [r["wall"] for r in records]
    assert walls == sorted(walls) and len(set(walls)) == len(walls)
    assert walls[0] == 1_700_000_000.25

    other_setup = MatchSetup(match_id="B7")  # the journal's own setup wins on resume
    resumed = open_or_create(path, PRESET_TOML, PRESET_SOURCE, other_setup,
                             wall=lambda: next(wall), boot_id="boot-2")
    with journal_of(resumed.recorder):
        assert resumed.warnings == []
        assert resumed.recorder.match.state == state
        assert resumed.recorder.match.setup == SETUP
        assert [e.to_json() for e in resumed.events] == [e.to_json() for e in events]
        do(resumed.recorder, GAME[12])

    after = records_of(path)
    assert after[: len(records)] == records  # resuming appends nothing by itself
    assert {r["boot"] for r in after[len(records):]} == {"boot-2"}


def test_records_carry_no_wall_or_boot_when_none_is_given(tmp_path: Path) -> None:
    path = tmp_path / "A3.journal"
    created = open_or_create(path, PRESET_TOML, PRESET_SOURCE, SETUP)
    with journal_of(created.recorder):
        do(created.recorder, GAME[0])

    assert all("wall" not in r and "boot" not in r for r in records_of(path))


def test_open_or_create_starts_afresh_when_only_a_torn_setup_record_is_there(
    tmp_path: Path,
) -> None:
    path = tmp_path / "A3.journal"
    path.write_bytes(encode({"type": "match", "match": "A3"})[:15])

    created = open_or_create(path, PRESET_TOML, PRESET_SOURCE, SETUP)
    with journal_of(created.recorder):
        assert len(created.warnings) == 1 and "torn" in created.warnings[0]
        assert created.recorder.match.state == new_match().state

    assert [r["type"] for r in records_of(path)] == ["match"]


def test_open_or_create_closes_the_journal_when_it_cannot_resume_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "A3.journal"
    path.write_bytes(encode({"type": "command", "at": 1, "command": {"do": "start"}}))
    opened: list[Journal] = []
    closed: list[Journal] = []
    real_open, real_close = Journal.open, Journal.close

    def open_and_note(journal_path: str | Path) -> tuple[Journal, Recovery]:
        journal, recovery = real_open(journal_path)
        opened.append(journal)
        return journal, recovery

    def close_and_note(journal: Journal) -> None:
        closed.append(journal)
        real_close(journal)

    monkeypatch.setattr(Journal, "open", staticmethod(open_and_note))
    monkeypatch.setattr(Journal, "close", close_and_note)

    with pytest.raises(PresetError, match="does not start with a match record"):
        open_or_create(path, PRESET_TOML, PRESET_SOURCE, SETUP)

    assert len(opened) == 1
    leaked = [journal for journal in opened if journal not in closed]
    for journal in leaked:
        real_close(journal)  # do not leak it into the other tests
    assert leaked == [], "the journal's file descriptor is left open"


# ---------------------------------------------------------------- events that disagree


def test_journalled_events_that_disagree_with_the_inputs_give_a_warning_and_the_replay_stands(
    tmp_path: Path,
) -> None:
    path = tmp_path / "A3.journal"
    played = play(path, GAME)
    lines = path.read_bytes().splitlines(keepends=True)
    records = [json.loads(line[9:]) for line in lines]
    index = next(i for i, r in enumerate(records)
                 if r["type"] == "event" and r["event"] == "goal" and r["data"]["player"] == 7)
    records[index]["data"]["player"] = 8
    lines[index] = encode(records[index])  # a valid checksum: only the meaning is wrong
    path.write_bytes(b"".join(lines))

    recorder, journalled, journal_warnings, resume_warnings = resume(path)
    with journal_of(recorder):
        assert journal_warnings == []
        assert len(resume_warnings) == 1
        assert str(path) in resume_warnings[0]
        assert recorder.match.state == played.recorder.match.state
        assert recorder.match.state.goals[0].player == 7
        assert any(e.data.get("player") == 8 for e in journalled)


def test_a_placeholder_team_survives_a_restart_and_is_still_refused_start(
        tmp_path: Path) -> None:
    # A placeholder team: a match whose team is not known yet stays unplayable after a restart too.
    path = tmp_path / "hall-1" / "SF1.journal"
    setup = MatchSetup(match_id="SF1", stage=Stage.PLAYOFF,
                       home=TeamInfo("1st A", ("#10233f", "#ffffff"), placeholder=True),
                       away=SETUP.away)
    created = open_or_create(path, PRESET_TOML, PRESET_SOURCE, setup)
    with journal_of(created.recorder):
        pass
    assert records_of(path)[0]["teams"]["home"]["placeholder"] is True
    assert "placeholder" not in records_of(path)[0]["teams"]["away"]
    resumed = open_or_create(path, PRESET_TOML, PRESET_SOURCE, SETUP)
    with journal_of(resumed.recorder):
        assert resumed.recorder.match.setup == setup
        fed = feed(resumed.recorder.match, Start(at=0))
        assert fed.refused is not None and fed.refused.reason == "teams not known: 1st A"


def test_the_rosters_are_part_of_the_journalled_setup_and_survive_a_restart(
        tmp_path: Path) -> None:
    # Rosters: a restart names the scorers as before it; a team without a roster
    # journals exactly as it always did (no key).
    path = tmp_path / "hall-1" / "A3.journal"
    setup = replace(SETUP, home=replace(SETUP.home, roster=((7, "A. Sjöberg"), (19, "B. B"))))
    created = open_or_create(path, PRESET_TOML, PRESET_SOURCE, setup)
    with journal_of(created.recorder):
        pass
    teams = records_of(path)[0]["teams"]
    assert teams["home"]["roster"] == {"7": "A. Sjöberg", "19": "B. B"}
    assert set(teams["away"]) == {"name", "colours"}
    resumed = open_or_create(path, PRESET_TOML, PRESET_SOURCE, SETUP)  # the config's: no roster
    with journal_of(resumed.recorder):
        assert resumed.recorder.match.setup == setup
        assert resumed.recorder.match.setup.home.player_name(7) == "A. Sjöberg"


def test_a_clock_correction_undone_and_one_cancelled_replay_from_the_journal(
        tmp_path: Path) -> None:
    """Rules 000 'Penalties' (a minor is 2 min): a clock set forward past two minors ends
    them; its undo puts them back, a second correction is cancelled after the clock ran on.
    The journal holds the commands, so resuming rebuilds the same state and the same events,
    the penalties back in the box with their time."""
    from arena.core.commands import Cancel, Penalty  # noqa: PLC0415

    steps: list[Step] = [
        Start(at=seconds(10)), Stop(at=seconds(40)),
        Penalty(at=seconds(41), team=Team.HOME, player=7, kind="minor"),
        Penalty(at=seconds(42), team=Team.AWAY, player=4, kind="minor"),
        SetClock(at=seconds(50), ms=15 * 60_000), Undo(at=seconds(55)),
        SetClock(at=seconds(60), ms=16 * 60_000), Start(at=seconds(65)),
        Advance(seconds(90)), Stop(at=seconds(95)),
    ]
    played = play(tmp_path / "A3.journal", steps)
    correction = next(e.seq for e in reversed(played.events) if e.kind.value == "clock_set")
    recorder, _, _, _ = resume(tmp_path / "A3.journal")
    with journal_of(recorder):  # resumed once, the second correction cancelled
        assert recorder.command(Cancel(at=seconds(100), seq=correction)).refused is None
    recorder, journalled, journal_warnings, resume_warnings = resume(tmp_path / "A3.journal")
    with journal_of(recorder):
        assert journal_warnings == [] and resume_warnings == []
        never = Match(parse_preset(tomllib.loads(PRESET_TOML), PRESET_SOURCE), SETUP)
        for command in (Start(seconds(10)), Stop(seconds(40)), steps[2], steps[3],
                        Start(seconds(65)), Stop(seconds(95))):
            assert isinstance(command, Command)
            feed(never, command)
        never.advance(seconds(100))
        assert [(p.player, p.expiry, p.done) for p in recorder.match.state.box] == [
            (p.player, p.expiry, p.done) for p in never.state.box]
        assert recorder.match.state.clock.remaining(seconds(100)) == \
            never.state.clock.remaining(seconds(100))
        assert [e.kind.value for e in journalled][-1] == "undone"


def test_a_penalty_part_carried_over_the_intermission_is_there_after_resuming(
    tmp_path: Path,
) -> None:
    """Rules 002 'Rules' (a minor lasts until the end of the shift) and 'Overtime' (the
    penalised stay in the box over the break): a double minor given seconds before the
    period's end still has its second part, a whole shift, in the intermission, and the
    journal rebuilds it so after a restart there."""
    from arena.core.commands import Penalty  # noqa: PLC0415
    from arena.core.state import state_document  # noqa: PLC0415

    source = "youth-hockey-3x18.toml"
    text = resources.files("arena.presets").joinpath(source).read_text("utf-8")
    path = tmp_path / "Y1.journal"
    journal, _ = Journal.open(path)
    with journal:
        recorder = Recorder.create(journal, text, source, SETUP)
        recorder.command(Start(at=seconds(0)))
        recorder.command(Penalty(at=seconds(1075), team=Team.HOME, player=7,
                                 kind="double_minor"))
        recorder.advance(seconds(1200))  # period 1 ended at 1080 s: the intermission
    resumed, _, journal_warnings, resume_warnings = resume(path)
    with journal_of(resumed):
        assert journal_warnings == [] and resume_warnings == []
        resumed.advance(seconds(1300))
        doc = state_document(resumed.match, seconds(1300))
        assert doc["phase"] == "intermission"
        assert doc["penalties"]["home"] == [
            {"player": 7, "kind": "double_minor", "remaining_ms": 60_000, "running": True}]
        assert doc["strength"] == {"home": 4, "away": 5}
