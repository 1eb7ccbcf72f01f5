"""The schedule checked when loaded and changed while the event runs: round
robins complete, no hall or team in two matches at once, back-to-back play a warning;
`office reschedule` and `office reload` reach the running service through the store, its
halls get their new `next` at once, and nothing stored is lost (rules 001 'Match schedule':
"The organizer reserves the right to change the published schedule")."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from arena.tournament.event import Event
from arena.tournament.files import load_event, load_tournament
from arena.tournament.model import Tournament
from arena.tournament.reader import TournamentError
from office import schedule
from office.cli.main import main
from office.cli.schedule import remember_started_file
from office.printouts.printing import Printouts
from office.service import OfficeService
from office.views.board import SnapshotBoard
from office.views.ledger import build
from office.views.public import public_snapshot
from office.web.publicsite import Site

from .test_service import CUP, messages_of, retained, service
from .test_tournament import BASE, write

# --- checked when loaded ----------------------------------------------------------------


def _group_of_three(matches: list[tuple[str, str, str, str]], *, slot: str = "") -> str:
    """A file with group A of three teams and these (id, start time, home, away) matches,
    each in its own hall."""
    lines = ['name = "C"', 'id = "c"', 'preset = "ice-hockey-2x20"', slot, "",
             "[[groups]]", 'name = "A"', 'teams = ["Lions", "Bears", "Wolves"]']
    for i, (mid, at, home, away) in enumerate(matches):
        lines += ["", "[[matches]]", f'id = "{mid}"', 'group = "A"', f'hall = "hall-{i + 1}"',
                  f"start = 2026-12-05T{at}:00", f'home = "{home}"', f'away = "{away}"']
    return "\n".join(lines) + "\n"


ROUND = [("A1", "08:00", "Lions", "Bears"), ("A2", "10:00", "Bears", "Wolves"),
         ("A3", "12:00", "Wolves", "Lions")]


def test_a_pair_meeting_twice_and_one_never_is_refused_naming_both(tmp_path: Path) -> None:
    # The review's schedule: Lions v Bears twice, Bears never meet Wolves.
    text = _group_of_three([ROUND[0], ("A2", "10:00", "Bears", "Lions"), ROUND[2]])
    with pytest.raises(TournamentError) as caught:
        load_tournament(write(tmp_path, text))
    message = str(caught.value)
    assert "groups[0]: not a complete round robin (every two teams meet once)" in message
    assert "Lions v Bears meet twice (A1, A2)" in message
    assert "Bears v Wolves never meet" in message


def test_a_double_round_robin_swaps_home_and_away(tmp_path: Path) -> None:
    second = [("B1", "14:00", "Bears", "Lions"), ("B2", "16:00", "Wolves", "Bears"),
              ("B3", "18:00", "Lions", "Wolves")]
    t = load_tournament(write(tmp_path, _group_of_three([*ROUND, *second])))
    assert len(t.group_matches("A")) == 6 and t.warnings == ()
    same_home = [*ROUND, ("B1", "14:00", "Lions", "Bears"), *second[1:]]
    with pytest.raises(TournamentError, match=r"every two teams meet twice\): Lions v Bears "
                       r"meet twice with Lions at home both times \(A1, B1\)"):
        load_tournament(write(tmp_path, _group_of_three(same_home)))


def test_a_group_with_no_match_in_a_schedule_is_refused(tmp_path: Path) -> None:
    text = _group_of_three(ROUND) + '\n[[groups]]\nname = "B"\nteams = ["Owls", "Hawks"]\n'
    # TOML: the [[groups]] table after the matches still belongs to groups.
    with pytest.raises(TournamentError, match=r"groups\[1\]: no match of the group is "
                       r"scheduled \(a round robin of Owls, Hawks\)"):
        load_tournament(write(tmp_path, text))


def test_overlapping_matches_clash_not_only_equal_starts(tmp_path: Path) -> None:
    # ice-hockey-2x20: 2 x 20 min and a 1 min break: a match holds 41 minutes.
    text = _group_of_three([ROUND[0], ("A2", "08:30", "Bears", "Wolves"), ROUND[2]])
    with pytest.raises(TournamentError) as caught:
        load_tournament(write(tmp_path, text))
    assert ("matches[1].home: 'Bears' already plays match A1 at this time "
            "(A1 2026-12-05 08:00-08:41, A2 2026-12-05 08:30-09:11)") in str(caught.value)
    one_hall = text.replace('hall = "hall-2"', 'hall = "hall-1"').replace(
        '"Bears"\naway = "Wolves"', '"Wolves"\naway = "Bears"')
    with pytest.raises(TournamentError) as caught:
        load_tournament(write(tmp_path, one_hall))
    # Every problem at once, each at its key.
    lines = str(caught.value).splitlines()
    assert any("matches[1].start: hall-1 already has match A1 at this time" in x
               for x in lines)
    assert any("matches[1].away: 'Bears' already plays match A1" in x for x in lines)


def test_slot_minutes_is_how_long_a_match_holds_its_hall(tmp_path: Path) -> None:
    t = load_tournament(write(tmp_path, _group_of_three(ROUND, slot="slot_minutes = 90")))
    assert t.matches[0].end - t.matches[0].start == timedelta(minutes=90)
    # 08:00 + 90 min: Bears' 10:00 match is 30 minutes after, less than half a slot.
    assert any("Bears plays back to back: A1" in w for w in t.warnings)
    with pytest.raises(TournamentError, match="slot_minutes: must be a whole number of "
                       "minutes from 1 to 1440, got 0"):
        load_tournament(write(tmp_path, _group_of_three(ROUND, slot="slot_minutes = 0")))


def test_back_to_back_play_is_a_warning_shown_with_the_ledger(tmp_path: Path) -> None:
    text = _group_of_three([ROUND[0], ("A2", "08:50", "Bears", "Wolves"), ROUND[2]])
    t = load_tournament(write(tmp_path, text))
    assert t.warnings == ("A2: Bears plays back to back: A1 (2026-12-05 08:00-08:41) then "
                          "A2 (2026-12-05 08:50-09:31), 9 min apart",)
    assert t.warnings[0] in build(t, ()).warnings  # on the office page with the others


def test_unbalanced_home_and_away_is_a_warning(tmp_path: Path) -> None:
    text = _group_of_three([ROUND[0], ("A2", "10:00", "Bears", "Wolves"),
                            ("A3", "12:00", "Lions", "Wolves")])
    t = load_tournament(write(tmp_path, text))
    assert t.warnings == ("group A: home and away unbalanced: Lions 2 at home, 0 away; "
                          "Wolves 0 at home, 2 away",)


def test_a_match_cannot_start_while_the_one_it_waits_for_is_played(tmp_path: Path) -> None:
    text = BASE.replace("start = 2026-12-05T13:00:00", "start = 2026-12-05T11:30:00")
    with pytest.raises(TournamentError, match=r"matches\[4\]\.home: 'W:SF1': SF1 \(2026-12-05 "
                       r"11:00-11:41\) is still being played when this match starts"):
        load_tournament(write(tmp_path, text))


# --- one match moved, two schedules compared ---------------------------------------------


@pytest.fixture
def cup() -> Tournament:
    return load_tournament(CUP)


def test_reschedule_is_checked_like_the_file(cup: Tournament) -> None:
    with pytest.raises(schedule.ScheduleError) as caught:
        schedule.reschedule(cup, "A3", "hall-3", datetime(2026, 11, 14, 8, 10))
    text = str(caught.value)
    assert text.startswith("A3 to hall-3 2026-11-14 08:10 clashes with the schedule: ")
    assert "'FBC Ostrava' already plays match A1" in text  # A3 is IBF Falun v FBC Ostrava
    assert "'IBF Falun' already plays match A2" in text
    moved = schedule.reschedule(cup, "A2", "hall-1", datetime(2026, 11, 14, 7, 0))
    a2 = moved.match("A2")
    assert a2 is not None and (a2.hall, a2.start) == ("hall-1", datetime(2026, 11, 14, 7))
    assert moved.matches[0].id == "A2"  # still in start order
    with pytest.raises(schedule.ScheduleError, match="A2 has events or a result from hall-2"):
        schedule.reschedule(cup, "A2", "hall-1", None, started={"A2"})
    with pytest.raises(schedule.ScheduleError, match="no match 'Z9'"):
        schedule.reschedule(cup, "Z9", "hall-1", None)
    with pytest.raises(schedule.ScheduleError, match="not a valid hall name"):
        schedule.reschedule(cup, "A2", "hall 1", None)


def test_parse_start_takes_a_date_and_time_or_a_time_on_the_matchs_day() -> None:
    day = datetime(2026, 11, 14, 8, 0)
    assert schedule.parse_start("2026-11-15 10:30", day) == datetime(2026, 11, 15, 10, 30)
    assert schedule.parse_start("10:30", day) == datetime(2026, 11, 14, 10, 30)
    with pytest.raises(schedule.ScheduleError, match="expected YYYY-MM-DD HH:MM"):
        schedule.parse_start("half past ten", day)


def test_diff_names_what_moves_and_what_would_orphan_a_result(tmp_path: Path,
                                                              cup: Tournament) -> None:
    text = CUP.read_text(encoding="utf-8").replace("Unihockey Basel Regio", "UHC Basel")
    text = text.replace("start = 2026-11-14T11:20:00", "start = 2026-11-14T12:10:00", 1)
    new = load_tournament(write(tmp_path, text))
    changes = schedule.diff(Event.single(cup), Event.single(new), started={"B2"})
    texts = [c.text for c in changes]
    assert "team renamed: Unihockey Basel Regio -> UHC Basel (group B)" in texts
    assert "B5 moved: hall-1 2026-11-14 11:20 -> hall-1 2026-11-14 12:10" in texts
    orphans = [c.text for c in changes if c.orphans]
    assert orphans == ["B2 re-paired: Unihockey Basel Regio v SSV Helsinki -> UHC Basel v "
                       "SSV Helsinki: its stored result is of the old teams"]
    assert schedule.diff(Event.single(cup), Event.single(cup)) == []


# --- through the store, to the running service -------------------------------------------


def _next(peer: object, cup: Tournament, hall: str) -> str | None:
    doc = retained(peer, f"arena/v1/{cup.id}/{hall}/next")  # type: ignore[arg-type]
    return None if doc is None else str(doc["match"])


def test_a_reschedule_from_the_shell_changes_both_halls_next_at_once(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    svc, peer, _, store = service(tmp_path, cup)
    svc.pump()
    assert (_next(peer, cup, "hall-1"), _next(peer, cup, "hall-2")) == ("A1", "A2")
    db = str(tmp_path / "office.sqlite")
    code = main(["reschedule", "A2", "--hall", "hall-1", "--start", "2026-11-14 07:00",
                 "--reason", "ice problem in hall 2", "--tournament", str(CUP), "--db", db])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("A2: hall-2 2026-11-14 08:00 -> hall-1 2026-11-14 07:00 "
                          "(IBF Falun v Tatran Střešovice)")
    svc.pump()  # the next turn of the loop: no restart
    assert (_next(peer, cup, "hall-1"), _next(peer, cup, "hall-2")) == ("A2", "B2")
    # Audited: an admin row with the old place and the reason; the page has an alert.
    (row,) = [a for a in store.admin_actions() if a.kind == "reschedule"]
    assert row.data["was"] == {"hall": "hall-2", "start": "2026-11-14T08:00:00"}
    assert row.data["reason"] == "ice problem in hall 2"
    doc = svc.board.current() if svc.board else {}
    assert any("A2 moved to hall-1" in a["text"] for a in doc["alerts"])
    # A restart keeps it: the schedule in force is the file and the office's changes.
    again = OfficeService(cup, store, None)
    a2 = again.event.match("A2")
    assert a2 is not None and a2.hall == "hall-1"


def test_a_refused_reschedule_writes_nothing(tmp_path: Path, cup: Tournament,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _, _, _, store = service(tmp_path, cup)
    code = main(["reschedule", "A2", "--hall", "hall-1", "--start", "08:10",
                 "--tournament", str(CUP), "--db", str(tmp_path / "office.sqlite")])
    assert code == 2
    err = capsys.readouterr().err
    assert "office reschedule: A2 to hall-1 2026-11-14 08:10 clashes" in err
    assert "hall-1 already has match A1 at this time" in err
    assert store.admin_actions() == []


def test_a_started_match_keeps_its_hall_unless_forced(tmp_path: Path, cup: Tournament,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    svc, peer, _, store = service(tmp_path, cup)
    peer.inbox = messages_of(cup, "A2", 1, 0)[:3]  # A2 under way in hall-2
    svc.pump()
    argv = ["reschedule", "A2", "--hall", "hall-3", "--tournament", str(CUP),
            "--db", str(tmp_path / "office.sqlite")]
    assert main(argv) == 2
    assert "A2 has events or a result from hall-2" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0
    svc.pump()
    assert svc.ledger is not None
    assert any("forced" in w and "A2 moved from hall-2" in w for w in svc.ledger.warnings)
    assert len(store.events("A2")) == 3  # nothing stored is lost


def test_a_match_forced_away_while_played_keeps_taking_the_playing_halls_events(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    """Rules 001 'Match schedule': the organiser may change the schedule at any time. A
    match moved while it is played goes on where it is played: the office keeps storing
    that hall's events (its goals and its final), says whose events it takes, and refuses
    them from any other hall; a restart keeps it so."""
    svc, peer, _, store = service(tmp_path, cup)
    a2 = messages_of(cup, "A2", 2, 1)  # sent by hall-2, A2's hall in the file
    peer.inbox = a2[:3]  # A2 under way in hall-2
    svc.pump()
    db = str(tmp_path / "office.sqlite")
    assert main(["reschedule", "A2", "--hall", "hall-3", "--force", "--tournament", str(CUP),
                 "--db", db]) == 0
    out = capsys.readouterr().out
    assert "A2: the office keeps taking hall-2's events of it, until hall-3 sends some" in out
    svc.pump()
    moved = svc.event.match("A2")
    assert moved is not None and moved.hall == "hall-3"
    doc = svc.board.current() if svc.board else {}
    assert any(a["text"] == "A2 moved to hall-3 while hall-2 plays it: taking hall-2's events"
               for a in doc["alerts"])
    refused = svc.refused
    peer.inbox = a2[3:-2]  # the game goes on in hall-2
    svc.pump()
    assert svc.refused == refused
    assert len(store.events("A2")) == len(a2) - 2
    # Another hall cannot send the match's events: only the one playing it, and its own.
    elsewhere = [type(m)(m.topic.replace("/hall-2/", "/hall-1/"),
                         m.payload.replace(b'"hall-2:', b'"hall-1:')) for m in a2[-2:]]
    peer.inbox = elsewhere
    svc.pump()
    assert svc.refused == refused + 2
    assert svc.refusals.by_reason.get("events: match ... is assigned to hall ..., not ...") == 2
    assert len(store.events("A2")) == len(a2) - 2
    # A restart knows who plays it from the store: hall-2's final is taken.
    again = OfficeService(cup, store, peer)
    peer.inbox = a2[-2:]
    again.pump()
    assert again.refused == 0
    assert len(store.events("A2")) == len(a2)
    assert again.ledger is not None
    view = again.ledger.matches["A2"]
    assert view.outcome.state.value == "final" and view.scheduled.hall == "hall-3"
    assert view.outcome.result is not None
    assert (view.outcome.result.home_goals, view.outcome.result.away_goals) == (2, 1)


def test_reload_shows_the_differences_refuses_orphans_and_applies_atomically(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    served = tmp_path / "cup.toml"
    shutil.copy(CUP, served)
    svc, peer, _, store = service(tmp_path, load_tournament(served))
    remember_started_file(store, served)  # as `office serve` does
    peer.inbox = messages_of(cup, "A1", 2, 1)
    svc.pump()
    stored = len(store.events())
    # Edited in place, as an organiser would: B6 later, FBC Ostrava renamed (A1 is played).
    text = served.read_text(encoding="utf-8")
    edited = text.replace("start = 2026-11-14T11:20:00\nhome = \"KS Szczekociny\"",
                          "start = 2026-11-14T12:10:00\nhome = \"KS Szczekociny\"")
    assert edited != text
    served.write_text(edited, encoding="utf-8")
    db = str(tmp_path / "office.sqlite")
    assert main(["reload", str(served), "--db", db]) == 0
    out = capsys.readouterr().out
    assert "1 change:" in out and "B6 moved: hall-2 2026-11-14 11:20 -> hall-2 " \
                                  "2026-11-14 12:10" in out
    svc.pump()
    b6 = svc.event.match("B6")
    assert b6 is not None and b6.start == datetime(2026, 11, 14, 12, 10)
    # Now a change that would orphan A1's stored result: refused, then forced.
    served.write_text(edited.replace("FBC Ostrava", "FBC Ostrava Juniors"), encoding="utf-8")
    assert main(["reload", str(served), "--db", db]) == 2
    captured = capsys.readouterr()
    assert "! A1 re-paired: FBC Ostrava v Kloten-Dietlikon Jets -> FBC Ostrava Juniors v " \
           "Kloten-Dietlikon Jets: its stored result is of the old teams" in captured.out
    assert "refused: 1 change(s) marked ! would orphan stored results" in captured.err
    assert [a.kind for a in store.admin_actions()] == ["reload"]
    assert main(["reload", str(served), "--db", db, "--force"]) == 0
    svc.pump()
    assert "FBC Ostrava Juniors" in svc.event.categories[0].tournament.teams
    assert svc.ledger is not None
    assert any("forced" in w and "A1 re-paired" in w for w in svc.ledger.warnings)
    assert len(store.events()) == stored  # stored events untouched
    doc = svc.board.current() if svc.board else {}
    assert any(a["text"].startswith("schedule reloaded from") for a in doc["alerts"])


def _team_pages(svc: OfficeService) -> dict[str, str]:
    """Team -> its public page, as the site (and its static export) makes them now."""
    assert svc.board is not None
    site = Site(public_snapshot(svc.board.current()))
    return {team: f"team/{s}/" for (_, team), s in site.team_slugs.items()}


def test_a_reload_never_renumbers_a_published_public_address(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rules 001 'Match schedule' (the schedule may change at any time): an edited file
    reloaded must not move another team's public page, whose link was shared. "LIONS"
    reduces to the slug of "Lions" and is listed before it in group A's table (ties go by
    name): it gets the next number,
    "Lions" keeps its page, the team renamed away keeps its own slug for good, and a restart
    (or the read-only export) finds them all in the store."""
    served = write(tmp_path, BASE)
    svc, _, _, store = service(tmp_path, load_tournament(served))
    remember_started_file(store, served)
    svc.refresh_all()
    before = _team_pages(svc)
    assert before["Lions"] == "team/lions/" and before["Bears"] == "team/bears/"
    served.write_text(served.read_text(encoding="utf-8").replace('"Bears"', '"LIONS"'),
                      encoding="utf-8")
    assert main(["reload", str(served), "--db", str(tmp_path / "office.sqlite")]) == 0
    assert "team renamed: Bears -> LIONS" in capsys.readouterr().out
    svc.pump()
    after = _team_pages(svc)
    assert after["Lions"] == "team/lions/"  # after "LIONS" in the table, and still "lions"
    assert after["LIONS"] == "team/lions-2/"
    assert after["Wolves"] == before["Wolves"]
    kept = {(kind, name): s for kind, _, name, s in store.slugs()}
    assert kept[("team", "Bears")] == "bears"  # never given to another team
    assert kept[("team", "LIONS")] == "lions-2" and kept[("hall", "hall-1")] == "hall-1"
    again = OfficeService(load_tournament(served), store, None, SnapshotBoard())
    again.refresh_all()
    assert _team_pages(again) == after
    # Without the kept slugs the site would make them from the pages' order alone.
    assert svc.board is not None
    doc = public_snapshot(svc.board.current())
    del doc["slugs"]
    assert Site(doc).team_slugs[(None, "LIONS")] == "lions"


def test_reload_refuses_a_file_that_fails_the_checks(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _, _, _, store = service(tmp_path, load_tournament(CUP))
    bad = write(tmp_path, CUP.read_text(encoding="utf-8").replace(
        'home = "IBF Falun"\naway = "FBC Ostrava"', 'home = "Kloten-Dietlikon Jets"\n'
        'away = "FBC Ostrava"'), "bad.toml")
    assert main(["reload", str(bad), "--tournament", str(CUP),
                 "--db", str(tmp_path / "office.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "not a complete round robin" in err and "FBC Ostrava v IBF Falun never meet" in err
    assert store.admin_actions() == []


def test_replay_skips_a_row_that_no_longer_applies(cup: Tournament) -> None:
    at = datetime(2026, 11, 14, 7, 0)
    rows = [schedule.Step(1, "reschedule", {"match": "Z9", "hall": "hall-1",
                                            "start": "2026-11-14T07:00:00"}, at),
            schedule.Step(2, "correct", {"match": "A1"}, at)]
    event = schedule.replay(Event.single(cup), rows, lambda files, source: Event.single(cup))
    (only,) = event.categories
    assert only.tournament.matches == cup.matches
    assert any("the reschedule at 2026-11-14 07:00 no longer applies" in w
               for w in only.tournament.warnings)


@pytest.mark.parametrize("command", ["reschedule", "reload"])
def test_the_commands_have_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: office {command}")


def test_a_hall_left_with_nothing_to_play_gets_an_empty_next(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, _group_of_three(ROUND))  # A1, A2, A3 in halls 1, 2, 3
    svc, peer, _, _ = service(tmp_path, load_tournament(path))
    svc.pump()
    topic = "arena/v1/c/hall-2/next"
    assert retained(peer, topic)["match"] == "A2"
    assert main(["reschedule", "A2", "--hall", "hall-1", "--tournament", str(path),
                 "--db", str(tmp_path / "office.sqlite")]) == 0
    svc.pump()
    assert peer.retained[topic] == b""  # cleared: the hall must not load A2 any more
    assert retained(peer, "arena/v1/c/hall-1/next")["match"] == "A1"
    assert svc.event.halls() == ("hall-1", "hall-3")


def test_office_check_prints_the_schedules_warnings_and_problems(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    late = write(tmp_path, _group_of_three(
        [ROUND[0], ("A2", "08:50", "Bears", "Wolves"), ROUND[2]]), "late.toml")
    assert main(["check", "--tournament", str(late)]) == 0
    out = capsys.readouterr().out
    assert f"{late}: ok (3 matches, 1 groups)" in out
    assert f"{late}: warning: A2: Bears plays back to back" in out
    bad = write(tmp_path, _group_of_three(ROUND[:2]), "bad.toml")
    assert main(["check", "--tournament", str(bad)]) == 1
    assert "Lions v Wolves never meet" in capsys.readouterr().out


DEMO = Path(__file__).resolve().parents[2] / "examples/demo/event.toml"


def test_an_event_shares_its_halls_across_categories_and_reloads_with_its_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two categories in two halls (examples/demo/event.toml includes event/p08.toml and
    # event/p10.toml): a P10 match moved onto a P08 match's hall and time is refused.
    shutil.copytree(DEMO.parent, tmp_path / "demo")
    served = tmp_path / "demo" / "event.toml"
    svc, _, _, store = service(tmp_path, load_event(served))
    remember_started_file(store, served)
    svc.pump()
    db = str(tmp_path / "office.sqlite")
    assert main(["reschedule", "P10-A3", "--hall", "hall-2", "--db", db]) == 2
    assert "hall-2 already has match P08-A3 at this time" in capsys.readouterr().err
    # An included file edited in place and reloaded: the service swaps both categories.
    p08 = tmp_path / "demo" / "event" / "p08.toml"
    p08.write_text(p08.read_text(encoding="utf-8").replace(
        "start = 2027-05-22T11:00:00", "start = 2027-05-22T11:30:00"), encoding="utf-8")
    assert main(["reload", str(served), "--db", db]) == 0
    assert "category P08: " not in capsys.readouterr().out  # match ids need no category
    svc.pump()
    final = svc.event.match("P08-F")
    assert final is not None and final.start == datetime(2027, 5, 22, 11, 30)
    (row,) = [a for a in store.admin_actions() if a.kind == "reload"]
    assert str(p08) in row.data["files"]  # what the service parsed, kept with the row


def test_after_a_reschedule_the_door_schedule_and_the_game_sheet_print_where_it_is_now(
        tmp_path: Path, cup: Tournament, capsys: pytest.CaptureFixture[str]) -> None:
    # Rules 001 'Match schedule': the organiser changes the published schedule; what is
    # printed for the hall doors and the referees (`office print schedule`, `office sheet`,
    # and the office page's printouts of the running service) is the schedule in force,
    # as the page and the public site show it: A2 moved from hall-2 08:00 to hall-1 07:00.
    svc, _, _, store = service(tmp_path, cup)
    db = tmp_path / "office.sqlite"
    remember_started_file(store, CUP)
    svc.pump()
    assert main(["reschedule", "A2", "--hall", "hall-1", "--start", "2026-11-14 07:00",
                 "--reason", "ice problem in hall 2", "--tournament", str(CUP),
                 "--db", str(db)]) == 0
    svc.pump()
    capsys.readouterr()

    def printed(*argv: str) -> str:
        assert main([*argv, "--tournament", str(CUP), "--db", str(db), "--html", "-"]) == 0
        return capsys.readouterr().out

    served = Printouts(lambda: (svc.event, svc.ledgers or {}), store)
    for sheet in (printed("sheet", "A2"), served.sheet("A2")):
        assert "hall-1" in sheet and "2026-11-14 07:00" in sheet
        assert "hall-2" not in sheet and "2026-11-14 08:00" not in sheet
    for door in (printed("print", "schedule", "--hall", "hall-1"), served.schedule("hall-1")):
        assert re.search(r"2026-11-14 07:00</td>\s*<td[^>]*>A2<", door), door
    for door in (printed("print", "schedule", "--hall", "hall-2"), served.schedule("hall-2")):
        assert ">A2<" not in door
    # The page's snapshot (its CSV and xlsx exports read it) tells the same.
    doc = svc.board.current() if svc.board else {}
    (a2,) = [m for m in doc["matches"] if m["id"] == "A2"]
    assert (a2["hall"], a2["start"]) == ("hall-1", "2026-11-14T07:00:00")
