"""A match the office replays (docs/office.md, "The office standings service", "Held matches, needs
review and alerts": ``office review --replay``): the hall plays it as a fresh game in the
same journal, numbered above the voided events and above everything its journal holds,
once per replay order; the first game stays in the journal."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from arena.core.commands import Command, End, Goal, Start
from arena.core.phase import Phase, Stage, Team
from arena.core.units import seconds
from arena.core.values import MatchSetup, TeamInfo
from firmware_py.journal import scan
from firmware_py.matchfiles import MatchFiles
from firmware_py.recorder import Recorder, current_game, open_or_create, replay_due

PRESET = "floorball-2x15.toml"
TOML = resources.files("arena.presets").joinpath(PRESET).read_text("utf-8")
FIRST = MatchSetup(match_id="F", stage=Stage.PLAYOFF,
                   home=TeamInfo("Lions", ("#10233f", "#ffffff")),
                   away=TeamInfo("Bears", ("#f2f2f2", "#10233f")))
# The office's correction moved a team: the replay is played by the new pairing.
AGAIN = MatchSetup(match_id="F", stage=Stage.PLAYOFF,
                   home=TeamInfo("Lions", ("#10233f", "#ffffff")),
                   away=TeamInfo("Wolves", ("#202020", "#ffcc00")))


def game(scorer: Team, at: int) -> list[Command]:
    """One goal, then the two periods and the break ended: a final 1:0 for ``scorer``."""
    return [Start(at=seconds(at)), Goal(at=seconds(at + 1), team=scorer),
            End(at=seconds(at + 2)), End(at=seconds(at + 3)), End(at=seconds(at + 4))]


def play(recorder: Recorder, commands: list[Command]) -> None:
    for command in commands:
        fed = recorder.command(command)
        assert fed.refused is None, fed.refused


def event_seqs(path: Path) -> list[int]:
    return [r["seq"] for r in scan(path.read_bytes(), str(path)).records
            if r.get("type") == "event"]


def test_a_replay_numbers_above_the_voided_game_which_stays_in_the_journal(
        tmp_path: Path) -> None:
    path = tmp_path / "F.journal"
    first = open_or_create(path, TOML, PRESET, FIRST).recorder
    play(first, game(Team.HOME, 10))
    assert first.match.state.phase is Phase.FINAL and first.replay_above is None
    voided = first.match.state.seq
    first.journal.close()  # type: ignore[union-attr]

    again = open_or_create(path, TOML, PRESET, AGAIN, replay_above=voided).recorder
    state = again.match.state
    # A fresh game: pregame, no goals, no penalties, the clock at full length.
    assert state.phase is Phase.PREGAME and state.goals == () and state.box == ()
    assert state.clock.remaining(seconds(100)) == seconds(15 * 60)  # rules 001: 2 x 15 min
    assert again.replay_above == voided and again.match.setup.away.name == "Wolves"
    play(again, game(Team.AWAY, 100))
    assert again.match.state.result is not None
    assert again.match.state.score()[Team.AWAY] == 1
    again.journal.close()  # type: ignore[union-attr]

    seqs = event_seqs(path)
    # Both games' events, gapless: the replay's first event is the voided final's seq + 1.
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 2 * voided - 2
    records = scan(path.read_bytes(), str(path)).records
    setups = [r for r in records if r["type"] == "match"]
    assert [s.get("replay") for s in setups] == [None, {"above_seq": voided}]
    assert setups[1]["teams"]["away"]["name"] == "Wolves"
    assert min(r["seq"] for r in current_game(records) if r["type"] == "event") == voided + 1


def test_the_replay_is_started_once_and_a_restart_rebuilds_the_replayed_game(
        tmp_path: Path) -> None:
    path = tmp_path / "F.journal"
    first = open_or_create(path, TOML, PRESET, FIRST).recorder
    play(first, game(Team.HOME, 10))
    voided = first.match.state.seq
    first.journal.close()  # type: ignore[union-attr]
    again = open_or_create(path, TOML, PRESET, AGAIN, replay_above=voided).recorder
    play(again, game(Team.AWAY, 100)[:2])  # the replay under way: 0:1, period 1
    again.journal.close()  # type: ignore[union-attr]
    size = path.stat().st_size

    # A restart reads the office's retained `next` again: the same order, not a third game.
    resumed = open_or_create(path, TOML, PRESET, AGAIN, replay_above=voided)
    state = resumed.recorder.match.state
    assert path.stat().st_size == size  # nothing journalled: the replay is the one on
    assert not replay_due(resumed.recorder, voided)
    assert state.phase is Phase.PERIOD and state.score() == {Team.HOME: 0, Team.AWAY: 1}
    assert state.seq == event_seqs(path)[-1] > voided and resumed.recorder.replay_above == voided
    assert resumed.warnings == []  # the two games' inputs replay to exactly their events
    assert [e.seq for e in resumed.events] == event_seqs(path)  # nothing of game 1 lost
    play(resumed.recorder, game(Team.AWAY, 100)[2:])
    final = resumed.recorder.match.state.seq
    resumed.recorder.journal.close()  # type: ignore[union-attr]

    # A second replay order (the replay's final voided in turn): a third game above it.
    third = open_or_create(path, TOML, PRESET, FIRST, replay_above=final).recorder
    assert third.replay_above == final and third.match.state.phase is Phase.PREGAME
    third.journal.close()  # type: ignore[union-attr]


def test_a_hall_without_the_journal_numbers_above_the_offices_seq(tmp_path: Path) -> None:
    """Another hall, or one whose journal was lost: only the office's number is known."""
    path = tmp_path / "F.journal"
    recorder = open_or_create(path, TOML, PRESET, AGAIN, replay_above=40).recorder
    play(recorder, game(Team.HOME, 10))
    recorder.journal.close()  # type: ignore[union-attr]
    seqs = event_seqs(path)
    assert seqs[0] == 41 and seqs == list(range(41, 41 + len(seqs)))
    resumed = open_or_create(path, TOML, PRESET, AGAIN, replay_above=40)
    assert resumed.recorder.match.state.phase is Phase.FINAL
    assert resumed.recorder.match.state.seq == seqs[-1]


def test_a_replay_numbers_above_the_journal_when_it_holds_more_than_the_office(
        tmp_path: Path) -> None:
    """Events after the final the office never got (say, sent after the replay was
    ordered): the hall's own highest seq wins, so none is numbered twice."""
    path = tmp_path / "F.journal"
    first = open_or_create(path, TOML, PRESET, FIRST).recorder
    play(first, game(Team.HOME, 10))
    own = first.match.state.seq
    first.journal.close()  # type: ignore[union-attr]
    again = open_or_create(path, TOML, PRESET, AGAIN, replay_above=own - 2).recorder
    assert again.replay_above == own
    play(again, game(Team.HOME, 100)[:1])
    again.journal.close()  # type: ignore[union-attr]
    records = scan(path.read_bytes(), str(path)).records
    assert min(r["seq"] for r in current_game(records) if r["type"] == "event") == own + 1


def test_a_replayed_match_counts_as_played_only_once_its_replay_is_final(
        tmp_path: Path) -> None:
    files = MatchFiles(tmp_path)
    path = files.journal("F")
    first = open_or_create(path, TOML, PRESET, FIRST).recorder
    play(first, game(Team.HOME, 10))
    first.journal.close()  # type: ignore[union-attr]
    assert files.played() == {"F"}
    again = open_or_create(path, TOML, PRESET, AGAIN,
                           replay_above=first.match.state.seq).recorder
    assert files.played() == set()  # the voided final no longer counts
    play(again, game(Team.AWAY, 100))
    again.journal.close()  # type: ignore[union-attr]
    assert files.played() == {"F"}
    assert files.script_progress("F", again.replay_above) != files.script_progress("F")
