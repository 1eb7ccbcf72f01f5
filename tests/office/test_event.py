"""An event of several categories sharing halls: the event file, the office
folding one ledger per category, and where they meet (a hall's ``next``, the standings
topics, the page). Matches are played through the real core (``games.play``).

The categories are the rule documents' own: rules 001 'Playing time' (U9 2 x 10 min, the
other categories 2 x 15 min in the groups and 2 x 20 min in the play-offs) and rules 003
'General' (P08 at three levels, P10 at two)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena import presets, wire
from arena.core.commands import End, Start
from arena.core.match import Match, feed
from arena.core.phase import Phase, Stage
from arena.core.values import MatchSetup, TeamInfo
from arena.timesource import FakeClock
from arena.tournament.event import Event
from arena.tournament.files import load_event, load_tournament
from arena.tournament.model import ScheduledMatch
from arena.tournament.reader import TournamentError
from firmware_py.between import between_games
from office.cli.main import main
from office.service import OfficeService
from office.storage.store import Store
from office.views.board import SnapshotBoard
from office.views.ledger import Ledger
from office.web import officepage as web

from .games import Play, play
from .test_service import T0, FakeMessage, FakePeer, retained

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "examples/events"
FLOORBALL = EVENTS / "001-floorball-event.toml"
FOOTBALL = EVENTS / "003-football-event.toml"


def service(tmp_path: Path, event: Event) -> tuple[OfficeService, FakePeer, FakeClock]:
    peer, wall = FakePeer(), FakeClock(wall=T0)
    svc = OfficeService(event, Store(tmp_path / "office.sqlite"), peer, SnapshotBoard(),
                        wall=wall.wall_datetime, monotonic=wall.monotonic)
    return svc, peer, wall


def teams_of(svc: OfficeService, m: ScheduledMatch) -> tuple[str, str]:
    """The teams the hall plays the match under: the schedule's, or the bracket's pairing."""
    if m.home.team and m.away.team:
        return m.home.team, m.away.team
    category = svc.event.category_of(m.id)
    assert category is not None and svc.ledgers is not None
    pairing = svc.ledgers[category.name].pairings[m.id]
    assert pairing.home and pairing.away, f"{m.id} is not filled yet"
    return pairing.home, pairing.away


def send(svc: OfficeService, m: ScheduledMatch, home_goals: int, away_goals: int,
         *, hall: str | None = None) -> None:
    home, away = teams_of(svc, m)
    stage = Stage.PLAYOFF if m.stage.decided else Stage.GROUP
    payloads = play(m.preset, hall or m.hall, Play(m.id, home, away, home_goals, away_goals,
                                                   stage=stage))
    for p in payloads:
        svc.handle(FakeMessage(wire.hall_topic(svc.event.id, hall or m.hall, wire.EVENTS),
                               json.dumps(p).encode()))
    svc.refresh_all()


def play_all(svc: OfficeService, wall: FakeClock) -> None:
    """Every match of the event in schedule order, the group games first and the bracket
    after their protest windows. The team listed first in a group beats every later one, by
    more the further apart they are listed, so no table needs lots; a bracket match is won
    by the home side."""
    for _, m in svc.event.schedule():
        if m.group is None:
            wall.advance(3600)  # the protest windows pass
            svc.refresh_all()
            send(svc, m, 2, 1)
            continue
        category = svc.event.category_of(m.id)
        assert category is not None and m.home.team and m.away.team
        group = category.tournament.group(m.group)
        assert group is not None
        home, away = group.teams.index(m.home.team), group.teams.index(m.away.team)
        margin = abs(home - away)
        send(svc, m, margin if home < away else 0, margin if away < home else 0)
    wall.advance(3600)
    svc.refresh_all()


def next_of(peer: FakePeer, event: Event, hall: str) -> Any:
    return retained(peer, wire.hall_topic(event.id, hall, wire.NEXT))


# -- the example event files -----------------------------------------------------------


def test_the_floorball_event_has_two_categories_with_their_own_presets_in_two_halls() -> None:
    """rules 001 'Playing time': U9 2 x 10 min; U11 2 x 15 in the groups, 2 x 20 in the
    play-offs. Both categories play in both halls."""
    event = load_event(FLOORBALL)
    assert [c.name for c in event.categories] == ["U9", "U11"]
    u9, u11 = (c.tournament for c in event.categories)
    assert {m.preset for m in u9.matches} == {"floorball-u9-2x10"}
    assert {m.preset for m in u11.matches if m.group} == {"floorball-2x15"}
    assert {m.preset for m in u11.matches if not m.group} == {"floorball-2x20"}
    assert presets.load("floorball-u9-2x10").period_length == 600 * 10**9
    assert presets.load("floorball-2x15").period_length == 900 * 10**9
    assert event.halls() == ("hall-1", "hall-2")
    for c in event.categories:
        assert set(c.tournament.halls()) == {"hall-1", "hall-2"}, c.name
        assert c.tournament.id == event.id == "prague-floorball-open"  # one topic tree
    # Team names are unique within a category, not across: a club's U9 and U11 teams.
    assert "FBC Ostrava" in u9.teams and "FBC Ostrava" in u11.teams


def test_the_football_event_has_p08_at_three_levels_and_p10_at_two() -> None:
    """rules 003 'General': P08 three levels, P10 two; two groups each, everyone plays 4
    matches (three in the group, one follow-up by placing)."""
    event = load_event(FOOTBALL)
    by_preset = {c.name: c.tournament.preset for c in event.categories}
    assert sorted(n for n, p in by_preset.items() if p == "football-p08") == [
        "P08-challenge", "P08-competitive", "P08-recreational"]
    assert sorted(n for n, p in by_preset.items() if p == "football-p10") == [
        "P10-experienced", "P10-less-experienced"]
    for c in event.categories:
        t = c.tournament
        assert [len(g.teams) for g in t.groups] == [4, 4]
        for team in t.teams:
            played = [m for m in t.matches if team in (m.home.team, m.away.team)]
            assert len(played) == 3, (c.name, team)
        assert len([m for m in t.matches if m.group is None]) == 4  # 1st v 1st ... 4th v 4th
        assert len(set(t.halls())) == 4
    assert len(event.halls()) == 4  # the pitches are shared by every level


def test_a_plain_tournament_file_is_a_one_category_event_without_a_category_level() -> None:
    plain = load_event(ROOT / "examples/tournaments/001-floorball.toml")
    assert plain.plain and len(plain.categories) == 1
    assert plain.categories[0].tournament == load_tournament(
        ROOT / "examples/tournaments/001-floorball.toml")
    assert plain.level(plain.categories[0]) is None


@pytest.mark.parametrize("path", [FLOORBALL, FOOTBALL], ids=["001", "003"])
def test_each_example_event_plays_through_the_office(tmp_path: Path, path: Path) -> None:
    event = load_event(path)
    svc, peer, wall = service(tmp_path, event)
    play_all(svc, wall)
    assert svc.ledgers is not None
    for c in event.categories:
        ledger = svc.ledgers[c.name]
        assert all(t.complete and not t.provisional for t in ledger.tables.values()), c.name
        for m in c.tournament.matches:
            assert ledger.matches[m.id].outcome.result is not None, m.id
        for group in c.tournament.groups:
            doc = retained(peer, wire.standings_topic(event.id, group.name, c.name))
            assert doc["category"] == c.name and doc["group"] == group.name
            assert doc["complete"] is True
    for hall in event.halls():
        assert next_of(peer, event, hall) is None  # nothing left to play


# -- where the categories meet ---------------------------------------------------------


def test_a_shared_halls_next_is_its_next_match_across_categories(tmp_path: Path) -> None:
    """hall-1 plays U9-A1 at 08:00, then U11-B1 at 08:40: after the U9 game its next is the
    U11 game, named with its category so the hall shows U11's tables."""
    event = load_event(FLOORBALL)
    svc, peer, _ = service(tmp_path, event)
    svc.refresh_all()
    first = next_of(peer, event, "hall-1")
    assert (first["match"], first["category"], first["preset"]) == (
        "U9-A1", "U9", "floorball-u9-2x10")
    assert next_of(peer, event, "hall-2")["match"] == "U11-A1"
    u9_a1 = event.match("U9-A1")
    assert u9_a1 is not None
    send(svc, u9_a1, 3, 1)
    after = next_of(peer, event, "hall-1")
    assert (after["match"], after["category"], after["preset"]) == (
        "U11-B1", "U11", "floorball-2x15")
    assert wire.check_next("t", json.dumps(after).encode()).category == "U11"
    # Only hall-1 moved on; hall-2 still waits for its U11 game.
    assert next_of(peer, event, "hall-2")["match"] == "U11-A1"


def test_next_takes_the_earliest_start_across_categories_whatever_the_file_order(
        tmp_path: Path) -> None:
    """The same two categories included the other way round: still the schedule's order."""
    (tmp_path / "e.toml").write_text(
        '[event]\nname = "E"\nid = "e"\ninclude = ["u11.toml", "u9.toml"]\n', encoding="utf-8")
    for name in ("u9", "u11"):
        (tmp_path / f"{name}.toml").write_text(
            (EVENTS / f"001-{name}.toml").read_text(encoding="utf-8"), encoding="utf-8")
    event = load_event(tmp_path / "e.toml")
    assert [c.name for c in event.categories] == ["U11", "U9"]
    svc, peer, _ = service(tmp_path, event)
    svc.refresh_all()
    assert next_of(peer, event, "hall-1")["match"] == "U9-A1"
    # Matches starting together (in two halls) keep the file's order: U11 first now.
    assert [m.id for _, m in event.schedule()][:4] == ["U11-A1", "U9-A1", "U11-B1", "U9-A2"]


def test_standings_topics_carry_the_category_and_a_plain_file_keeps_its_own(
        tmp_path: Path) -> None:
    event = load_event(FLOORBALL)
    svc, peer, _ = service(tmp_path, event)
    svc.refresh_all()
    root = wire.tournament_root(event.id)
    tables = sorted(t for t in peer.retained if "/standings/" in t)
    assert tables == [f"{root}/standings/U11/A", f"{root}/standings/U11/B",
                      f"{root}/standings/U9/A"]
    # Group A of U9 and group A of U11 are two tables.
    u9 = wire.check_standings(f"{root}/standings/U9/A", peer.retained[f"{root}/standings/U9/A"],
                              event.id)
    assert u9.category == "U9" and {r.team for r in u9.rows} == set(
        event.categories[0].tournament.groups[0].teams)
    plain = load_event(ROOT / "examples/tournaments/001-floorball.toml")
    (tmp_path / "plain").mkdir()
    svc2, peer2, _ = service(tmp_path / "plain", plain)
    svc2.refresh_all()
    proot = wire.tournament_root(plain.id)
    assert sorted(t for t in peer2.retained if "/standings/" in t) == [
        f"{proot}/standings/A", f"{proot}/standings/B"]
    assert "category" not in json.loads(peer2.retained[f"{proot}/standings/A"])
    assert "category" not in next_of(peer2, plain, "hall-1")


def test_hall_events_are_routed_to_their_category_by_match_id(tmp_path: Path) -> None:
    event = load_event(FLOORBALL)
    svc, _, _ = service(tmp_path, event)
    u11_a1 = event.match("U11-A1")
    assert u11_a1 is not None and u11_a1.hall == "hall-2"
    send(svc, u11_a1, 4, 2)
    assert svc.ledgers is not None
    u11 = svc.ledgers["U11"]
    assert u11.matches["U11-A1"].outcome.result is not None
    assert u11.tables["A"].rows[0].team == u11_a1.home.team
    assert all(r.played == 0 for r in svc.ledgers["U9"].tables["A"].rows)  # not U9's group A
    # Sent by the other hall: refused, as within one tournament.
    refused = svc.refused
    send(svc, u11_a1, 1, 0, hall="hall-1")
    assert svc.refused > refused


def test_the_page_snapshot_lists_the_categories(tmp_path: Path) -> None:
    event = load_event(FLOORBALL)
    svc, _, _ = service(tmp_path, event)
    u9_a1 = event.match("U9-A1")
    assert u9_a1 is not None
    send(svc, u9_a1, 2, 0)
    assert svc.board is not None
    doc = svc.board.current()
    assert [c["name"] for c in doc["categories"]] == ["U9", "U11"]
    assert [(g["category"], g["name"]) for g in doc["groups"]] == [
        ("U9", "A"), ("U11", "A"), ("U11", "B")]
    assert {m["category"] for m in doc["matches"]} == {"U9", "U11"}
    starts = [m["start"] for m in doc["matches"]]
    assert starts == sorted(starts)  # one schedule across the categories
    assert [(b["category"], b["match"]) for b in doc["bracket"]] == [
        ("U9", "U9-F"), ("U11", "U11-F")]
    halls = {h["hall"]: h for h in doc["halls"]}
    assert (halls["hall-1"]["next"], halls["hall-1"]["next_category"]) == ("U11-B1", "U11")
    # The exports gain a category column: group A of U9 and of U11 stay apart.
    tables = web.tables_csv(doc).decode("utf-8-sig").splitlines()
    assert tables[0].startswith("category,")
    assert {line.split(",")[:2][0] for line in tables[1:]} == {"U9", "U11"}
    results = web.results_csv(doc).decode("utf-8-sig").splitlines()
    assert results[0].startswith("category,") and results[1].startswith("U9,U9-A1,")


def test_the_single_ledger_of_several_categories_is_refused_by_name(tmp_path: Path) -> None:
    svc, _, _ = service(tmp_path, load_event(FLOORBALL))
    svc.refresh_all()
    with pytest.raises(ValueError, match="2 categories: use ledgers"):
        _ = svc.ledger


# -- the event file's checks -------------------------------------------------------------


def write_event(tmp_path: Path, head: str, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / "event.toml"
    path.write_text(head, encoding="utf-8")
    return path


def category(cid: str, match_id: str = "A1", hall: str = "hall-1",
             start: str = "2026-11-14T08:00:00") -> str:
    return (f'name = "{cid}"\nid = "{cid}"\npreset = "floorball-2x15"\n'
            '[[groups]]\nname = "A"\nteams = ["X", "Y"]\n'
            f'[[matches]]\nid = "{match_id}"\ngroup = "A"\nhall = "{hall}"\n'
            f'start = {start}\nhome = "X"\naway = "Y"\n')


HEAD = '[event]\nname = "Cup"\nid = "cup"\ninclude = ["a.toml", "b.toml"]\n'


def test_a_match_id_used_by_two_categories_is_refused_naming_both(tmp_path: Path) -> None:
    path = write_event(tmp_path, HEAD, **{"a.toml": category("U11"),
                                         "b.toml": category("U13", hall="hall-2")})
    with pytest.raises(TournamentError) as err:
        load_event(path)
    text = str(err.value)
    assert "b.toml" in text and "match id 'A1' of category U13" in text
    assert "already a match of category U11" in text and "a.toml" in text
    assert "unique across the event" in text


@pytest.mark.parametrize(("head", "files", "message"), [
    (HEAD, {"a.toml": category("U11", "X1"), "b.toml": category("U13", "X2")},
     "match X2: hall-1 already has match X1 of category U11 at 2026-11-14 08:00"),
    (HEAD, {"a.toml": category("U11", "X1"), "b.toml": category("U11", "X2", "hall-2")},
     "id: category 'U11' is already the id of"),
    (HEAD, {"a.toml": category("U11", "X1")}, "b.toml: cannot read"),
    ('[event]\nname = "Cup"\nid = "cup"\ninclude = []\n', {},
     "the event has no category"),
    ('[event]\nname = "Cup"\nid = "cup"\nincludes = ["a.toml"]\n', {},
     "event.includes"),
    ('[event]\nname = "Cup"\nid = "c u p"\ninclude = ["a.toml"]\n', {},
     "event.id"),
    ('[[categories]]\nname = "U9"\n', {}, "an event file needs an [event] table"),
    ('[event]\nname = "Cup"\nid = "cup"\ninclude = ["a.toml"]\nextra = 1\n',
     {"a.toml": category("U11")}, "extra"),
    ('[event]\nname = "Cup"\nid = "cup"\ninclude = ["a.toml"]\n',
     {"a.toml": category("U11").replace('hall = "hall-1"', 'hall = "hall 1"')},
     "a.toml: matches[0].hall"),
], ids=["hall-clash", "category-twice", "missing-include", "no-category", "unknown-key",
        "bad-id", "no-event-table", "unknown-top-key", "bad-category-file"])
def test_a_bad_event_file_names_the_file_the_key_and_the_problem(
        tmp_path: Path, head: str, files: dict[str, str], message: str) -> None:
    with pytest.raises(TournamentError) as err:
        load_event(write_event(tmp_path, head, **files))
    assert message in str(err.value)


def test_categories_may_be_inline(tmp_path: Path) -> None:
    inline = "\n".join(
        "[[categories]]\n" + "\n".join(
            line.replace("[[groups]]", "[[categories.groups]]")
                .replace("[[matches]]", "[[categories.matches]]")
            for line in category(cid, mid, hall).splitlines())
        for cid, mid, hall in (("U9", "U9-1", "hall-1"), ("U11", "U11-1", "hall-2")))
    path = write_event(tmp_path, '[event]\nname = "Cup"\nid = "cup"\n' + inline + "\n")
    event = load_event(path)
    assert [c.name for c in event.categories] == ["U9", "U11"]
    assert event.halls() == ("hall-1", "hall-2")


# -- the commands -------------------------------------------------------------------------


def test_office_standings_of_an_event_prints_every_category(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = load_event(FLOORBALL)
    svc, _, _ = service(tmp_path, event)
    u11_a1 = event.match("U11-A1")
    assert u11_a1 is not None
    send(svc, u11_a1, 4, 2)
    db = tmp_path / "office.sqlite"
    assert main(["standings", "--tournament", str(FLOORBALL), "--db", str(db), "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert [(g["category"], g["name"]) for g in groups] == [("U9", "A"), ("U11", "A"),
                                                           ("U11", "B")]
    assert main(["standings", "--tournament", str(FLOORBALL), "--db", str(db),
                 "--category", "U11", "--group", "A"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("U11: Group A") and u11_a1.home.team in out
    assert main(["standings", "--tournament", str(FLOORBALL), "--db", str(db),
                 "--group", "A"]) == 2
    assert "--category: the event has 2 categories (U9, U11): name one" in \
        capsys.readouterr().err


def test_lots_drawn_in_one_category_stay_in_it(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """U9's group A and U11's group A: a draw for one is not the other's."""
    event = load_event(FLOORBALL)
    svc, _, wall = service(tmp_path, event)
    u11 = event.categories[1].tournament
    for m in u11.group_matches("A"):
        send(svc, m, 1, 1)  # all level: lots needed (rules 001 tie-breaks exhausted)
    wall.advance(3600)
    db = tmp_path / "office.sqlite"
    assert main(["draw-lots", "--tournament", str(FLOORBALL), "--db", str(db),
                 "--group", "A", "--random"]) == 2
    assert "name one" in capsys.readouterr().err
    assert main(["draw-lots", "--tournament", str(FLOORBALL), "--db", str(db),
                 "--category", "U11", "--group", "A", "--random", "--seed", "7"]) == 0
    capsys.readouterr()
    svc.refresh_if_needed()
    assert svc.ledgers is not None
    assert not any(r.lots_needed for r in svc.ledgers["U11"].tables["A"].rows)
    assert svc.ledgers["U11"].draws[0].category == "U11"
    assert svc.ledgers["U9"].draws == ()


# -- the hall's side ----------------------------------------------------------------------


def _match(preset: str, match_id: str) -> Match:
    return Match(presets.load(preset), MatchSetup(match_id, Stage.GROUP,
                                                  TeamInfo("X", ("#000000", "#ffffff")),
                                                  TeamInfo("Y", ("#ffffff", "#000000"))))


def _table(group: str) -> dict[str, Any]:
    return {"group": group, "rows": []}


STANDINGS = {"U9/A": _table("A"), "U11/A": _table("A"), "U11/B": _table("B")}


def _next(match_id: str, category: str | None) -> dict[str, Any]:
    doc: dict[str, Any] = {"match": match_id, "teams": {
        "home": {"name": "X", "colours": ["#000000", "#ffffff"]},
        "away": {"name": "Y", "colours": ["#ffffff", "#000000"]}}}
    if category is not None:
        doc["category"] = category
    return doc


def test_between_games_a_hall_shows_the_tables_of_its_matchs_category() -> None:
    """Before the U9 game: U9's tables. After it, with the U11 game next: U11's."""
    match = _match("floorball-u9-2x10", "U9-A1")
    before = between_games(match, 0, pending=None, loaded=_next("U9-A1", "U9"),
                           standings=STANDINGS, final_hold=0)
    assert before is not None and before["tables"] == [_table("A")]
    feed(match, Start(at=0))
    while match.state.phase is not Phase.FINAL:
        feed(match, End(at=1))
    after = between_games(match, 10**12, pending=_next("U11-B1", "U11"),
                          loaded=_next("U9-A1", "U9"), standings=STANDINGS, final_hold=0)
    assert after is not None and after["tables"] == [_table("A"), _table("B")]
    assert after["next"]["match"] == "U11-B1"
    # Nothing more to play: the tables of the category just played.
    done = between_games(match, 10**12, pending=None, loaded=_next("U9-A1", "U9"),
                         standings=STANDINGS, final_hold=0)
    assert done is not None and done["tables"] == [_table("A")]
    # No category named (a one-category event, the config's first match): every table.
    plain = between_games(_match("floorball-2x15", "A1"), 0, pending=None, loaded=None,
                          standings={"A": _table("A"), "B": _table("B")}, final_hold=0)
    assert plain is not None and plain["tables"] == [_table("A"), _table("B")]


def test_ledgers_are_folded_per_category_unchanged(tmp_path: Path) -> None:
    """Each category's ledger is the one its tournament alone would give."""
    event = load_event(FLOORBALL)
    svc, _, _ = service(tmp_path, event)
    u9_a1 = event.match("U9-A1")
    assert u9_a1 is not None
    send(svc, u9_a1, 2, 2)
    assert svc.ledgers is not None
    ledger: Ledger = svc.ledgers["U9"]
    assert ledger.tournament is event.categories[0].tournament
    assert set(ledger.matches) == {m.id for m in event.categories[0].tournament.matches}
    assert ledger.matches["U9-A1"].outcome.result is not None
    assert "U9-A1" not in svc.ledgers["U11"].matches
