"""The incremental fold (office.views.fold) against a fold from scratch (ledger.build_from).

The service folds the ledger again after every event but redoes only what the event
touched; nothing the office shows may differ from folding everything again. So random
sequences of hall events (in any order, with gaps and repeats), corrections, lots drawn
the office's reviews (``office review --keep/--swap/--replay``), forfeits (rules 001
'Waiting period' and "Player's start": eliminations, voided matches, expulsions), protests
upheld against them (a correction replacing a forfeit: the elimination or expulsion
undone), green cards (rules 003) and the wall time moving are applied, in any order, to a
cup with groups, a bracket and suspensions (rules 000 'Penalties' 3 and 4: game
misconducts and match penalties ban), and after every step the fold's ledger, its order,
each hall's ``next`` and the page's snapshot are compared with ``build_from``'s; and what
the fold says it changed (``changed``, ``changed_tables``) is all that differs from its
previous ledger, everything else the very same object (the service publishes by it).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.core.phase import Stage as CoreStage
from arena.tournament.files import load_tournament
from arena.tournament.model import DecidedBy, Draw, Tournament
from office.rules import rulings
from office.views.fold import LedgerFold
from office.views.ledger import (
    Correction,
    Ledger,
    MatchDigest,
    Received,
    Review,
    ReviewAction,
    build_from,
)
from office.views.snapshot import snapshot

from .games import Play, hall_event, play

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 5, 12, 0, 0)
KINDS = ("minor", "minor", "game_misconduct", "match")


@pytest.fixture(scope="module")
def cup() -> Tournament:
    return load_tournament(ROOT / "examples/tournaments/000-ice-hockey.toml")


@pytest.fixture(scope="module")
def games(cup: Tournament) -> dict[str, list[list[dict[str, Any]]]]:
    """Two ways each match may go, as its hall sends them: group matches under the
    schedule's names, bracket matches under the slots' placeholder text (as a hall that
    loaded the match before the bracket filled it)."""
    rng = random.Random(17)
    out: dict[str, list[list[dict[str, Any]]]] = {}
    for m in cup.matches:
        home = m.home.team or m.home.text
        away = m.away.team or m.away.text
        stage = CoreStage.PLAYOFF if m.stage.decided else CoreStage.GROUP
        variants = []
        for _ in range(2):
            pens = [(rng.choice(("home", "away")), rng.randint(2, 5), rng.choice(KINDS))
                    for _ in range(rng.randint(0, 2))]
            variants.append(play(m.preset, m.hall, Play(m.id, home, away, rng.randint(0, 3),
                                                        rng.randint(0, 3), pens, stage)))
        out[m.id] = variants
    return out


def same(a: Ledger, b: Ledger, t: Tournament, now: datetime) -> None:
    assert a == b
    assert list(a.matches) == list(b.matches)
    assert list(a.tables) == list(b.tables)
    assert list(a.pairings) == list(b.pairings)
    for hall in t.halls():
        assert a.next_document(hall) == b.next_document(hall)
    assert snapshot(a, {}, (), now) == snapshot(b, {}, (), now)


def told(fold: LedgerFold, before: Ledger | None, after: Ledger) -> None:
    """What ``fold`` says its last build changed is all that differs from ``before``; the
    rest is the very object ``before`` had."""
    if before is None:
        return
    for mid, view in after.matches.items():
        if mid in fold.changed:
            assert view != before.matches[mid], mid
        else:
            assert view is before.matches[mid], mid
    for group, table in after.tables.items():
        if group in fold.changed_tables:
            assert table != before.tables[group], group
        else:
            assert table is before.tables[group], group


PARTS = ("tournament", "matches", "tables", "pairings", "suspensions", "warnings",
         "next_change", "draws", "forfeits", "eliminations", "voided", "green_cards",
         "by_hall")


def revised(fold: LedgerFold, before: Ledger | None, after: Ledger) -> None:
    """The revisions of ``after`` against ``before`` (office.views.revision): a kept
    revision is a kept value (what reads the ledgers reuses what it made of it), a changed
    value a new revision, and the new revisions are what the fold says it changed."""
    r = after.revisions
    for name in ("matches", "tables", "pairings", "by_hall"):
        part = getattr(after, name)
        assert isinstance(part, MappingProxyType), name  # handed out read-only
        with pytest.raises(TypeError):
            part["x"] = None
    if before is None:
        return
    q = before.revisions
    for mid, view in after.matches.items():
        assert (r.match(mid) != q.match(mid)) == (mid in fold.changed), mid
        if r.match(mid) == q.match(mid):
            assert view == before.matches[mid], mid
    for group, table in after.tables.items():
        assert (r.table(group) != q.table(group)) == (group in fold.changed_tables), group
        if r.table(group) == q.table(group):
            assert table == before.tables[group], group
    for mid, pairing in after.pairings.items():
        assert (r.pairing(mid) != q.pairing(mid)) == (mid in fold.changed_pairings), mid
        if r.pairing(mid) == q.pairing(mid):
            assert pairing == before.pairings[mid], mid
    for name in PARTS:
        if r.part(name) == q.part(name):
            assert getattr(after, name) == getattr(before, name), name
        elif name not in ("matches", "tables", "pairings"):
            assert getattr(after, name) != getattr(before, name), name


def handed_out(ledger: Ledger) -> tuple[object, ...]:
    """What a ledger handed out, as it was then: its entries, each the object it was, and
    its revisions."""
    r = ledger.revisions
    return (*((name, tuple((k, id(v), v) for k, v in getattr(ledger, name).items()))
              for name in ("matches", "tables", "pairings")),
            r.stamp, *(dict(m) for m in (r.parts, r.matches, r.tables, r.pairings)))


steps = st.lists(st.tuples(st.sampled_from(("events", "all", "one", "correct", "draw",
                                            "time", "time", "review", "forfeit", "forfeit",
                                            "protest", "green")),
                           st.integers(0, 10_000), st.integers(0, 10_000)),
                 min_size=4, max_size=60)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps, plain=st.booleans())
def test_the_fold_after_every_step_is_the_fold_from_scratch(
        cup: Tournament, games: dict[str, list[list[dict[str, Any]]]],
        steps: list[tuple[str, int, int]], plain: bool) -> None:
    fold = LedgerFold(cup)
    digests = {m.id: MatchDigest() for m in cup.matches}
    corrections: list[Correction] = []
    draws: list[Draw] = []
    reviews: list[Review] = []
    cards: list[rulings.GreenCard] = []
    now: datetime | None = None if plain else T0
    ids = [m.id for m in cup.matches]
    teams = [t for g in cup.groups for t in g.teams]
    expected = build_from(cup, digests)
    previous: Ledger | None = None
    handed: tuple[object, ...] = ()
    for kind, a, b in steps:
        mid = ids[a % len(ids)]
        payloads = games[mid][b % 2]
        touched = {mid}
        if kind in ("events", "all", "one"):
            # A prefix (the hall's order), all of them shuffled, or one (a gap or a repeat).
            if kind == "events":
                chosen = payloads[:b % (len(payloads) + 1)]
            elif kind == "all":
                chosen = random.Random(b).sample(payloads, len(payloads))
            else:
                chosen = [payloads[b % len(payloads)]]
            received = now or T0
            for p in chosen:
                digests[mid].add(Received(hall_event(p), received))
        elif kind == "correct":
            decided = (None, DecidedBy.SHOOTOUT, DecidedBy.FORFEIT)[b % 3]
            corrections.append(Correction(mid, b % 4, (b // 4) % 4, "jury", T0, decided))
        elif kind == "review":
            # Keep for the teams who played it, or swap to the pairing the schedule names
            # now (what office review records of the ledger it reads).
            waiting = expected.review()  # a result that waits for the office, if any
            if waiting:
                mid = waiting[a % len(waiting)].scheduled.id
            view, pairing = expected.matches[mid], expected.pairings[mid]
            if b % 5 == 4 and view.final_seq is not None:
                # Played again (office review --replay): the hall's final is voided.
                reviews.append(Review(mid, ReviewAction.REPLAY, "replay", T0,
                                      seq=view.final_seq))
            elif b % 2 and view.hall_teams is not None:
                reviews.append(Review(mid, ReviewAction.KEEP, "played", T0, *view.hall_teams))
            else:
                reviews.append(Review(mid, ReviewAction.SWAP, "credited", T0, pairing.home,
                                      pairing.away))
        elif kind == "forfeit":
            # A late team (two eliminate it) or a player's unauthorised start (expelled);
            # few teams, so that eliminations happen; mostly in a match the team plays.
            team = teams[b % 2]
            # Its group matches and the bracket's it is paired in now (a late forfeit in a
            # play-off match counts towards its elimination too).
            own = [m for m, p in expected.pairings.items() if team in (p.home, p.away)]
            if b % 3:
                mid = own[a % len(own)]
            elif (pairing := expected.pairings[mid]).home is not None:
                team = pairing.home
            late = b % 4 != 0
            forfeit = rulings.Forfeit(mid, team, rulings.ForfeitCause.LATE if late
                                      else rulings.ForfeitCause.UNAUTHORISED, "jury", T0,
                                      None if late else 2 + b % 4)
            corrections.append(Correction(mid, 0, 5, "forfeit", T0, DecidedBy.FORFEIT,
                                          forfeit))
        elif kind == "protest":
            # A protest upheld against a standing forfeit: an office correct replaces it,
            # and it counts towards no elimination or expulsion any more (office.rules.rulings).
            if expected.forfeits:
                mid = expected.forfeits[a % len(expected.forfeits)].match
            corrections.append(Correction(mid, b % 3, (b // 3) % 3, "protest upheld", T0))
        elif kind == "green":
            cards.append(rulings.GreenCard(mid, teams[b % len(teams)], 2 + b % 5, T0))
        elif kind == "draw":
            group = cup.groups[a % len(cup.groups)]
            order = random.Random(b).sample(group.teams, len(group.teams))
            draws.append(Draw(group.name, tuple(order)))
        elif now is not None:
            now += timedelta(minutes=b % 20)  # protest windows close as time passes
        ledger = fold.build(digests, corrections, draws, now, touched=touched,
                            reviews=reviews, green_cards=cards)
        expected = build_from(cup, digests, corrections, draws, now, reviews=reviews,
                              green_cards=cards)
        same(ledger, expected, cup, now or T0)
        told(fold, previous, ledger)
        revised(fold, previous, ledger)
        if previous is not None and handed_out(previous) != handed:
            pytest.fail("the fold wrote to what it had handed out with the previous ledger")
        previous, handed = ledger, handed_out(ledger)


def test_time_going_back_and_replaced_digests_are_folded_again(
        cup: Tournament, games: dict[str, list[list[dict[str, Any]]]]) -> None:
    fold = LedgerFold(cup)
    digests = {mid: MatchDigest.of(Received(hall_event(p), T0) for p in variants[0])
               for mid, variants in games.items()}
    later = T0 + timedelta(hours=1)
    same(fold.build(digests, now=later), build_from(cup, digests, now=later), cup, later)
    # Back inside every protest window: the finals are not confirmed any more.
    same(fold.build(digests, now=T0), build_from(cup, digests, now=T0), cup, T0)
    # The service replaces a digest (quarantine): touched None looks at every match.
    first = cup.matches[0].id
    digests = {**digests, first: MatchDigest()}
    same(fold.build(digests, now=T0), build_from(cup, digests, now=T0), cup, T0)
    fold.reset()
    same(fold.build(digests, now=None), build_from(cup, digests, now=None), cup, T0)


def test_rulings_folded_after_the_results_are_the_fold_from_scratch(
        cup: Tournament, games: dict[str, list[list[dict[str, Any]]]]) -> None:
    """Every match played, then the office's rulings one at a time: a team late twice is
    eliminated (rules 001 'Waiting period': its group matches voided), a player's
    unauthorised start expels him (rules 001 "Player's start"), a green card (rules 003),
    the reviews of the bracket results played under placeholders, then more events."""
    fold = LedgerFold(cup)
    digests = {mid: MatchDigest.of(Received(hall_event(p), T0) for p in variants[0])
               for mid, variants in games.items()}
    later = T0 + timedelta(hours=1)
    group = [m for m in cup.matches if m.group is not None]
    team = group[0].home.team
    assert team is not None
    own = [m for m in group if team in (m.home.team, m.away.team)]
    late = [Correction(m.id, 0, 5, "forfeit", T0, DecidedBy.FORFEIT,
                       rulings.Forfeit(m.id, team, rulings.ForfeitCause.LATE, "late", T0))
            for m in own[:2]]
    other = next(m for m in group if team not in (m.home.team, m.away.team))
    assert other.home.team is not None
    start = Correction(other.id, 0, 5, "forfeit", T0, DecidedBy.FORFEIT,
                       rulings.Forfeit(other.id, other.home.team,
                                       rulings.ForfeitCause.UNAUTHORISED, "start", T0, 7))
    card = rulings.GreenCard(other.id, other.home.team, 4, T0)
    corrections: list[Correction] = []
    reviews: list[Review] = []
    cards: list[rulings.GreenCard] = []

    def step() -> Ledger:
        built = fold.build(digests, corrections, (), later, reviews=reviews, green_cards=cards)
        expected = build_from(cup, digests, corrections, (), later, reviews=reviews,
                              green_cards=cards)
        same(built, expected, cup, later)
        return expected

    step()
    corrections.append(late[0])
    step()
    corrections.append(late[1])
    assert step().eliminations  # the second late forfeit eliminates the team
    corrections.append(start)
    assert any(s.player == 7 and s.banned is None for s in step().suspensions)
    cards.append(card)
    assert step().green_cards
    # A team late once in its group and once in the bracket (rules 001 'Waiting period':
    # two forfeits due to a late start, wherever): eliminated, its group ranked again
    # without it though no match of the group was ruled on last.
    mid, pairing = next((mid, p) for mid, p in step().pairings.items()
                        if mid not in {m.id for m in group}
                        and p.home in cup.teams and p.home != team)
    second = pairing.home
    assert second is not None
    for m_id in (next(m.id for m in group if second in (m.home.team, m.away.team)), mid):
        corrections.append(Correction(m_id, 0, 5, "forfeit", T0, DecidedBy.FORFEIT,
                                      rulings.Forfeit(m_id, second, rulings.ForfeitCause.LATE,
                                                      "late", T0)))
        step()
    assert any(e.team == second for e in step().eliminations)
    for _ in range(len(cup.matches)):
        waiting = step().review()
        if not waiting:
            break
        view = waiting[0]
        assert view.hall_teams is not None
        reviews.append(Review(view.scheduled.id, ReviewAction.KEEP, "played", T0,
                              *view.hall_teams))
    assert reviews  # the bracket's results played under placeholders waited for the office
    for mid, variants in games.items():  # the other way each match went, folded after
        for p in variants[1]:
            digests[mid].add(Received(hall_event(p), later))
        same(fold.build(digests, corrections, (), later, touched={mid}, reviews=reviews,
                        green_cards=cards),
             build_from(cup, digests, corrections, (), later, reviews=reviews,
                        green_cards=cards), cup, later)


def test_an_elimination_moves_the_bans_waiting_on_its_voided_matches(
        cup: Tournament) -> None:
    """Rules 001 'Waiting period': a team late twice is eliminated and its group matches
    voided; a voided match not played serves no ban (office.rules.discipline), so an opponent's
    ban waiting on it moves to the opponent's next match, and back when a protest upheld
    (a correction replacing the second forfeit) undoes the elimination. The fold, told
    only of the rulings, is ``build_from`` at every step."""
    group = [m for m in cup.matches if m.group == "A"]
    eliminated = "Tartu Valk"
    facing = [m for m in group if eliminated in (m.home.team, m.away.team)][-1]
    opponent = facing.away.team if facing.home.team == eliminated else facing.home.team
    assert opponent is not None
    # The opponent's match just before it, where one of its players gets a match penalty
    # (rules 000 'Penalties' 4: banned for the next match).
    earlier = [m for m in group if m.start < facing.start
               and opponent in (m.home.team, m.away.team)][-1]
    assert eliminated not in (earlier.home.team, earlier.away.team)
    assert earlier.home.team is not None and earlier.away.team is not None
    side = "home" if earlier.home.team == opponent else "away"
    digests = {m.id: MatchDigest() for m in cup.matches}
    for p in play(earlier.preset, earlier.hall, Play(earlier.id, earlier.home.team,
                                                     earlier.away.team, 1, 0,
                                                     [(side, 9, "match")])):
        digests[earlier.id].add(Received(hall_event(p), T0))
    late = [Correction(m.id, 0, 5, "forfeit", T0, DecidedBy.FORFEIT,
                       rulings.Forfeit(m.id, eliminated, rulings.ForfeitCause.LATE, "late",
                                       T0))
            for m in group if eliminated in (m.home.team, m.away.team) and m != facing][:2]
    fold = LedgerFold(cup)
    later = T0 + timedelta(hours=1)
    corrections: list[Correction] = []

    def step() -> Ledger:
        built = fold.build(digests, corrections, (), later, touched=())
        expected = build_from(cup, digests, corrections, (), later)
        same(built, expected, cup, later)
        return expected

    def waiting_on(ledger: Ledger) -> tuple[str, ...]:
        (ban,) = [s for s in ledger.suspensions if s.team == opponent and s.player == 9]
        return ban.pending

    assert waiting_on(step()) == (facing.id,)
    corrections.append(late[0])
    assert waiting_on(step()) == (facing.id,)
    corrections.append(late[1])
    moved = step()
    assert moved.eliminations and facing.id in moved.voided
    assert facing.id not in waiting_on(moved)  # not played: it serves nothing
    corrections.append(Correction(late[1].match, 2, 2, "protest upheld", T0))
    assert waiting_on(step()) == (facing.id,)
