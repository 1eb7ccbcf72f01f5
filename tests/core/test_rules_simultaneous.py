"""Penalties given together (IFF Rules of the Game 2022, 603.3 and 603.5): the order they
are measured in is the rules', never the order the timekeeper keyed them in.

"Together" on the board: the same game time, so keyed in one stoppage (the game clock stays
stopped between them) or with the same instant while it runs.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.core.commands import Goal, Penalty, Start, Stop, Undo
from arena.core.events import EventKind
from arena.core.phase import Team

from .helpers import Game, S

HOME, AWAY = Team.HOME, Team.AWAY
LENGTH_S = {"minor": 120, "double_minor": 240, "major": 300}


def box(doc: dict[str, Any], team: str = "home") -> list[tuple[int, str, int, bool]]:
    return [(p["player"], p["kind"], p["remaining_ms"], p["running"])
            for p in doc["penalties"][team]]


def stopped_floorball(preset: str = "floorball-2x15") -> Game:
    """Play 100 s, stop the clock: the stoppage the penalties are keyed in."""
    g = Game(preset)
    g.do(Start(0))
    g.do(Stop(S(100)))
    return g


def starts(g: Game) -> list[tuple[int, int, str]]:
    """(instant, player, kind) of every penalty start, in order."""
    return [(e.at, e.data["player"], e.data["kind"]) for e in g.events
            if e.kind is EventKind.PENALTY_STARTED]


def test_iff_603_3_a_major_keyed_before_a_minor_in_one_stoppage_waits_for_it() -> None:
    # IFF 603.3: if more than one penalty is imposed on a team at the same time, shorter
    # bench penalties are always measured before longer. One place is free (#4 serves):
    # the minor takes it, though the major was keyed first.
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(50), HOME, 4, "minor"))
    g.do(Stop(S(100)))
    g.do(Penalty(S(110), HOME, 9, "major"))
    g.do(Penalty(S(120), HOME, 7, "minor"))
    doc = g.at(130)
    assert box(doc) == [(4, "minor", 70_000, True), (7, "minor", 120_000, True),
                        (9, "major", 300_000, False)]
    assert doc["strength"]["home"] == 3
    g.do(Start(S(200)))
    # #4's minor ends 70 s later: the major starts at that instant (it had the free place
    # only until the minor was keyed, in the stoppage, and served nothing of it).
    assert box(g.at(271)) == [(7, "minor", 49_000, True), (9, "major", 299_000, True)]
    assert starts(g)[-1] == (S(270), 9, "major")


def test_iff_603_3_applies_to_penalties_keyed_while_the_clock_runs_only_at_one_instant() -> None:
    # IFF 603.3: 'at the same time'. Keyed a second apart while the clock runs, the major
    # came first and is measured first (in the order imposed).
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(50), HOME, 4, "minor"))
    g.do(Penalty(S(60), HOME, 9, "major"))
    g.do(Penalty(S(61), HOME, 7, "minor"))
    assert [p[0] for p in box(g.at(62)) if p[3]] == [4, 9]


def test_iff_603_5_a_players_own_penalties_given_together_are_served_shorter_first() -> None:
    # IFF 603.3 (shorter first) with 603.5 (a player's penalties are served consecutively):
    # #15's major keyed before his minor still waits for the minor.
    g = stopped_floorball()
    g.do(Penalty(S(110), HOME, 15, "major"))
    g.do(Penalty(S(111), HOME, 15, "minor"))
    assert box(g.at(112)) == [(15, "minor", 120_000, True), (15, "major", 300_000, False)]
    g.do(Start(S(200)))
    assert box(g.at(320)) == [(15, "major", 300_000, True)]
    assert g.at(320)["strength"]["home"] == 4


def test_iff_603_3_equal_penalties_keep_the_order_keyed() -> None:
    # IFF 603.3: the referees decide which of the new penalties is measured first; of
    # equal length, the board keeps the order the timekeeper keyed (what the referees said).
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(50), HOME, 4, "minor"))
    g.do(Stop(S(100)))
    g.do(Penalty(S(110), HOME, 8, "minor"))
    g.do(Penalty(S(111), HOME, 3, "minor"))
    assert [(p[0], p[3]) for p in box(g.at(112))] == [(4, True), (8, True), (3, False)]


def test_ice_hockey_keeps_the_order_keyed_for_different_players() -> None:
    # IIHF Official Rule Book (delayed penalties): no shorter-first rule; penalties of
    # different players are served in the order imposed. Only a player's own major goes
    # before his minor (appendix IV table 14 B1).
    g = Game("ice-hockey-2x20")
    g.do(Start(0))
    g.do(Penalty(S(50), HOME, 4, "minor"))
    g.do(Stop(S(100)))
    g.do(Penalty(S(110), HOME, 9, "major"))
    g.do(Penalty(S(120), HOME, 7, "minor"))
    assert [(p[0], p[3]) for p in box(g.at(130))] == [(4, True), (9, True), (7, False)]


def test_undo_of_the_shorter_penalty_gives_the_longer_one_its_place_back() -> None:
    # IFF 603.3; an undo takes the minor back as if never keyed: the major is measured.
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(50), HOME, 4, "minor"))
    g.do(Stop(S(100)))
    g.do(Penalty(S(110), HOME, 9, "major"))
    g.do(Penalty(S(120), HOME, 7, "minor"))
    g.do(Undo(S(125)))
    assert box(g.at(130)) == [(4, "minor", 70_000, True), (9, "major", 300_000, True)]
    assert g.refusals == []


def test_a_goal_releases_the_shorter_one_measured_first() -> None:
    # IFF 603.3 with the release of a minor bench penalty on a goal against the shorthanded
    # team (the preset's releasable minors): the minor measured first is the one released.
    g = stopped_floorball()
    g.do(Penalty(S(110), HOME, 9, "major"))
    g.do(Penalty(S(111), HOME, 7, "minor"))
    g.do(Start(S(200)))
    g.do(Goal(S(230), AWAY))
    assert box(g.at(231)) == [(9, "major", 269_000, True)]


def game_time(at: int) -> int:
    """The game time of an instant in ``play`` below (stopped from 100 s to 200 s)."""
    return min(at, S(100)) + max(0, at - S(200))


KINDS = st.sampled_from(sorted(LENGTH_S))


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(KINDS, min_size=2, max_size=5), busy=st.integers(0, 2),
       order=st.randoms(use_true_random=False))
def test_iff_603_3_any_keying_order_gives_the_same_serving_order(
        kinds: list[str], busy: int, order: Any) -> None:
    # IFF 603.3: penalties imposed on a team at the same time are measured shorter first,
    # whatever order the timekeeper keys them in. With 0 to 2 places already taken, every
    # keying order of the same penalties gives the same starts (kind and instant), and they
    # start shortest first.
    penalties = [(10 + i, kind) for i, kind in enumerate(kinds)]  # distinct players

    def play(keyed: list[tuple[int, str]]) -> list[tuple[int, str]]:
        g = Game("floorball-2x20")
        g.do(Start(0))
        for n in range(busy):  # already serving, given before the stoppage
            g.do(Penalty(S(10 + 5 * n), HOME, 90 + n, "minor"))
        g.do(Stop(S(100)))
        for i, (player, kind) in enumerate(keyed):
            g.do(Penalty(S(101 + i), HOME, player, kind))
        g.do(Start(S(200)))
        g.at(1100)
        assert g.refusals == []
        # A penalty that had a free place for a moment in the stoppage was queued again
        # (it served nothing): its last start is the one that counts.
        # Compared in game time: the clock stood at 100 s from 100 s to 200 s.
        last = {player: (game_time(at), kind) for at, player, kind in starts(g)
                if player < 90}
        return sorted(last.values(), key=lambda start: (start[0], LENGTH_S[start[1]]))

    shuffled = list(penalties)
    order.shuffle(shuffled)
    reference = play(penalties)
    assert play(shuffled) == reference
    assert len(reference) == len(kinds)
    lengths = [LENGTH_S[kind] for _, kind in reference]
    assert lengths == sorted(lengths)  # shorter ones never start after longer ones


def test_iff_603_5_a_team_mates_penalty_imposed_in_between_goes_first() -> None:
    # IFF 603.5: consecutively means a player's next penalty starts as soon as his first
    # ends, unless the team has penalties not yet measured that were imposed in between; and
    # 603.3: no more than one bench penalty per player measured at once.
    g = Game("floorball-2x15")
    g.do(Start(0))
    g.do(Penalty(S(10), HOME, 5, "minor"))   # 10-130 s
    g.do(Penalty(S(20), HOME, 4, "minor"))   # 20-140 s
    g.do(Penalty(S(30), HOME, 7, "minor"))   # waits: two places taken
    g.do(Penalty(S(40), HOME, 5, "minor"))   # #5's second, imposed after #7's
    assert [(p[0], p[3]) for p in box(g.at(41))] == [(5, True), (4, True), (7, False),
                                                    (5, False)]
    g.at(300)
    # #5's first ends at 130 s: #7's, imposed in between, takes the place; #5's second
    # waits for the next one (#4's, at 140 s).
    assert starts(g)[2:] == [(S(130), 7, "minor"), (S(140), 5, "minor")]
