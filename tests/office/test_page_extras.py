"""The page's review, held and rulings lists kept between ledgers (office.views.pageextras, with
office.views.scorers.ScorerTally, its standings' entries made when read) against the lists made
whole from each ledger (office.views.snapshot).

Random sequences of hall events (in any order, with gaps and repeats), corrections (to a
forfeit too), reviews, forfeits (rules 001 'Waiting period': two late ones eliminate a team
and void its group matches), green cards (rules 003 'Match officials'), lots and the wall
time moving are folded incrementally (office.views.fold); after every step the lists made from
only the matches the fold changed equal ``snapshot``'s lists of the same ledger, and no
list or entry handed out before was written to since.
"""

from __future__ import annotations

import copy
import random
from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.tournament.model import DecidedBy, Draw, Tournament
from office.rules import rulings
from office.views.fold import LedgerFold
from office.views.ledger import Correction, MatchDigest, Received, Review, ReviewAction
from office.views.pageextras import CategoryExtras
from office.views.scorers import ScorerTally, top_scorers
from office.views.snapshot import snapshot

from .games import hall_event
from .test_fold import cup, games  # noqa: F401  (fixtures)

T0 = datetime(2026, 12, 5, 12, 0, 0)
LISTS = ("review", "held", "placings", "scorers", "green_cards", "eliminated")

steps = st.lists(st.tuples(st.sampled_from(("events", "events", "all", "one", "correct",
                                            "forfeit", "review", "green", "draw", "time",
                                            "undo")),
                           st.integers(0, 10_000), st.integers(0, 10_000)),
                 min_size=4, max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps)
def test_the_lists_kept_are_the_lists_made_whole(
        cup: Tournament,  # noqa: F811
        games: dict[str, list[list[dict[str, Any]]]],  # noqa: F811
        steps: list[tuple[str, int, int]]) -> None:
    fold = LedgerFold(cup)
    extras = CategoryExtras(cup)
    digests = {m.id: MatchDigest() for m in cup.matches}
    corrections: list[Correction] = []
    draws: list[Draw] = []
    reviews: list[Review] = []
    cards: list[rulings.GreenCard] = []
    now = T0
    ids = [m.id for m in cup.matches]
    teams = [t for g in cup.groups for t in g.teams]
    ledger = fold.build(digests, now=now)
    handed: list[tuple[list[Any], list[Any]]] = []  # (a list handed out, a copy of it)
    first = True
    for kind, a, b in steps:
        mid = ids[a % len(ids)]
        payloads = games[mid][b % 2]
        if kind in ("events", "all", "one"):
            if kind == "events":
                chosen = payloads[:b % (len(payloads) + 1)]
            elif kind == "all":
                chosen = random.Random(b).sample(payloads, len(payloads))
            else:
                chosen = [payloads[b % len(payloads)]]
            for p in chosen:
                digests[mid].add(Received(hall_event(p), now))
        elif kind == "undo":  # the match's events read again from none (a replaced digest)
            digests[mid] = MatchDigest()
        elif kind == "correct":
            decided = (None, DecidedBy.SHOOTOUT, DecidedBy.FORFEIT)[b % 3]
            corrections.append(Correction(mid, b % 4, (b // 4) % 4, "jury", T0, decided))
        elif kind == "forfeit":
            team = teams[b % 2]  # few teams: two late forfeits of one eliminate it
            forfeit = rulings.Forfeit(mid, team, rulings.ForfeitCause.LATE, "late", T0)
            corrections.append(Correction(mid, 0, 5, "forfeit", T0, DecidedBy.FORFEIT,
                                          forfeit))
        elif kind == "review":
            waiting = ledger.review()
            if waiting:
                mid = waiting[a % len(waiting)].scheduled.id
            view, pairing = ledger.matches[mid], ledger.pairings[mid]
            if b % 2 and view.hall_teams is not None:
                reviews.append(Review(mid, ReviewAction.KEEP, "played", T0, *view.hall_teams))
            else:
                reviews.append(Review(mid, ReviewAction.SWAP, "credited", T0, pairing.home,
                                      pairing.away))
        elif kind == "green":
            cards.append(rulings.GreenCard(mid, teams[b % len(teams)], 2 + b % 5, T0))
        elif kind == "draw":
            group = cup.groups[a % len(cup.groups)]
            draws.append(Draw(group.name, tuple(random.Random(b).sample(group.teams,
                                                                        len(group.teams)))))
        else:
            now += timedelta(minutes=b % 20)
        ledger = fold.build(digests, corrections, draws, now, touched={mid}, reviews=reviews,
                            green_cards=cards)
        # Told the matches whose view this fold changed (the first time: nothing known).
        lists = extras.update(ledger, None if first else fold.changed)
        first = False
        whole = snapshot(ledger, {}, (), now)
        # The scorers' entries are made when read: not every standing is (one step in
        # three is not read, as a page version nobody asked for), and the next one read
        # makes its own from the last that was.
        assert extras.scorers is not None
        read = LISTS if b % 3 else tuple(key for key in LISTS if key != "scorers")
        if b % 3:
            lists = {**lists, "scorers": extras.scorers.entries()}
        assert {key: lists[key] for key in read} == {key: whole[key] for key in read}
        for given_out, then in handed:
            assert given_out == then  # never written to once handed out
        handed = [(lists[key], copy.deepcopy(lists[key])) for key in read]


def test_the_whole_tournament_played_then_taken_back(
        cup: Tournament,  # noqa: F811
        games: dict[str, list[list[dict[str, Any]]]]) -> None:  # noqa: F811
    """Every match played one by one in schedule order, then each taken back: halls' next
    matches wait for the bracket and are released, the placings fill, scorers move up and
    down the tiers and the ranks of the tiers below them move; the lists stay
    ``snapshot``'s and the tally ``top_scorers``."""
    fold = LedgerFold(cup)
    tally = ScorerTally()
    extras = CategoryExtras(cup)
    digests = {m.id: MatchDigest() for m in cup.matches}
    later = T0 + timedelta(days=1)
    ledger = fold.build(digests, now=later)
    assert tally.entries(ledger, None) == []
    extras.update(ledger, None)
    shifted = 0
    held = 0
    for mid in [m.id for m in cup.matches] * 2:
        before = {(e["team"], e["player"]): (e["rank"], e["goals"])
                  for e in tally.entries(ledger, ())}
        if digests[mid].final is None:
            for p in games[mid][0]:
                digests[mid].add(Received(hall_event(p), T0))
        else:
            digests[mid] = MatchDigest()
        ledger = fold.build(digests, now=later, touched={mid})
        entries = tally.entries(ledger, fold.changed)
        assert entries == [s.to_json() for s in top_scorers(ledger)]
        lists = extras.update(ledger, fold.changed)
        assert extras.scorers is not None
        lists = {**lists, "scorers": extras.scorers.entries()}
        whole = snapshot(ledger, {}, (), later)
        assert {key: lists[key] for key in LISTS} == {key: whole[key] for key in LISTS}
        held += len(lists["held"])
        shifted += sum(1 for e in entries
                       if (kept := before.get((e["team"], e["player"]))) is not None
                       and kept[1] == e["goals"] and kept[0] != e["rank"])
    assert shifted  # some ranks moved without their scorer's goals moving
    assert held  # some hall's next waited for the bracket
    assert tally.entries(ledger, None) == []


def test_an_elimination_takes_its_voided_matches_off_the_lists(
        cup: Tournament,  # noqa: F811
        games: dict[str, list[list[dict[str, Any]]]]) -> None:  # noqa: F811
    """Rules 001 'Waiting period': a team late twice is eliminated and its group matches'
    results voided, their goals no scorer's; a protest upheld against the second forfeit
    brings them back. The lists made from the matches the fold changed (and the voided
    ones moved) are ``snapshot``'s at every step."""
    fold = LedgerFold(cup)
    extras = CategoryExtras(cup)
    digests = {mid: MatchDigest.of(Received(hall_event(p), T0) for p in variants[0])
               for mid, variants in games.items()}
    later = T0 + timedelta(days=1)
    team = cup.groups[0].teams[0]
    own = [m for m in cup.matches if m.group is not None and team in (m.home.team,
                                                                      m.away.team)]
    corrections: list[Correction] = []

    def lists() -> dict[str, list[Any]]:
        ledger = fold.build(digests, corrections, (), later, touched=())
        made = extras.update(ledger, fold.changed)
        assert extras.scorers is not None
        made = {**made, "scorers": extras.scorers.entries()}
        whole = snapshot(ledger, {}, (), later)
        assert {key: made[key] for key in LISTS} == {key: whole[key] for key in LISTS}
        return made

    played = lists()["scorers"]
    for m in own[:2]:
        corrections.append(Correction(m.id, 0, 5, "forfeit", later, DecidedBy.FORFEIT,
                                      rulings.Forfeit(m.id, team, rulings.ForfeitCause.LATE,
                                                      "late", later)))
        voided = lists()
    assert voided["eliminated"] and voided["scorers"] != played
    corrections.append(Correction(own[1].id, 1, 1, "protest upheld", later))
    assert not lists()["eliminated"]
