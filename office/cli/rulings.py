"""The office's rulings from the shell (office.rules.rulings) and what the tournament gives out:
``office forfeit``, ``office unauthorised``, ``office green-card``, ``office green-cards``,
``office placings``, ``office scorers``.

The rulings are audited office actions in the service's store (appended with their reason
and time, never changed); the running service picks them up within a second, as it does
``office correct``. The listings read the store as the service would fold it now.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from arena.tournament.event import Category, Event
from arena.tournament.reader import TournamentError
from office.inforce import event_in_force, ledger_in_force
from office.rules import rulings
from office.rules.forfeitscore import forfeit_goals
from office.storage.store import Store, StoreError
from office.views.ledger import Ledger
from office.views.placings import Placing, placings
from office.views.scorers import Scorer, top_scorers

DEFAULT_DB = "office.sqlite"


class _Refused(Exception):
    """The command cannot do what was asked: the message says why."""


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    f = sub.add_parser(
        "forfeit", help="a team was late: it loses by the preset's forfeit score (rules 001 "
                              "'Waiting period')",
        description="Record that TEAM lost MATCH by forfeit for being late (rules 001 "
                    "'Waiting period'): the forfeit score of the match's preset against "
                    "it (0:5; 0:3 in football), audited. A team with two such forfeits "
                    "is eliminated: the results of its group matches are voided and the "
                    "tables ranked again without it. A later `office correct` of the "
                    "match replaces the forfeit (it then no longer counts).")
    _match_and_team(f)
    f.add_argument("--late", action="store_true", required=True,
                   help="the cause: the team was late (the only one; say it explicitly)")
    f.add_argument("--reason", default="late",
                   help="what happened (kept with the forfeit; default %(default)r)")
    _sources(f)
    f.set_defaults(func=run_forfeit)

    u = sub.add_parser(
        "unauthorised", help="a player started without the right: a forfeit and expulsion "
                             "(rules 001 \"Player's start\")",
        description="Record an unauthorised start (rules 001 \"Player's start\"): TEAM "
                    "loses MATCH by the preset's forfeit score (0:5; 0:3 in football) and "
                    "PLAYER is expelled from the tournament: suspended "
                    "for every later match of the team (the halls' next lists him).")
    _match_and_team(u)
    u.add_argument("--player", required=True, type=_number, metavar="N",
                   help="the player's number")
    u.add_argument("--reason", required=True, help="what happened (kept with the ruling)")
    _sources(u)
    u.set_defaults(func=run_unauthorised)

    g = sub.add_parser(
        "green-card", help="the fair-play player of a team in a match (rules 003)",
        description="Record the green card of one team in a match (rules 003 'Match "
                    "officials': one fair-play player of each team). A second card for the "
                    "same team and match is refused unless --replace says why.")
    _match_and_team(g)
    g.add_argument("--player", required=True, type=_number, metavar="N",
                   help="the player's number (on the team's roster, if the file has one)")
    g.add_argument("--replace", action="store_true",
                   help="replace the card already recorded (needs --reason)")
    g.add_argument("--reason", default="", help="why the card is replaced")
    _sources(g)
    g.set_defaults(func=run_green_card)

    for name, help_text, func in (
            ("green-cards", "list the green cards (rules 003)", run_green_cards),
            ("placings", "final placings 1..N per category", run_placings),
            ("scorers", "top scorers per category, from the match records", run_scorers)):
        p = sub.add_parser(name, help=help_text, description=_LISTINGS[name])
        _sources(p)
        p.add_argument("--category", metavar="NAME",
                       help="in an event of several categories: only this one")
        p.add_argument("--json", action="store_true", help="print JSON")
        if name == "scorers":
            p.add_argument("--top", type=int, metavar="N", help="only the first N ranks")
        p.set_defaults(func=func)


_LISTINGS = {
    "green-cards": "The green card that stands for each team and match, with the player's "
                   "name from the roster.",
    "placings": "Places 1..N of each category from the final, the third-place and "
                "placement games (read off the bracket: semi-final losers nobody plays on "
                "share a place), then the teams eliminated or not placed. A place whose "
                "match has no result yet says who it will be.",
    "scorers": "Goals by player of each category from the records of the finals that "
               "stand (not voided, not forfeits), most first, with the names from the "
               "rosters.",
}


def _number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a player number (0-99)") from None
    if not 0 <= value <= 99:
        raise argparse.ArgumentTypeError(f"{value} is not a player number (0-99)")
    return value


def _match_and_team(p: argparse.ArgumentParser) -> None:
    p.add_argument("match", help="the match id, as in the tournament file")
    p.add_argument("--team", required=True, help="the team's name, as in the tournament file")


def _sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tournament", required=True, type=Path, metavar="FILE",
                   help="the tournament file, or an event file of several categories")
    p.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                   help=f"the office's SQLite store (default {DEFAULT_DB})")


def _fail(args: argparse.Namespace, text: str) -> int:
    print(f"office {args.command}: {text}", file=sys.stderr)
    return 2


def _store(db: Path) -> Store:
    if not db.exists():
        raise _Refused(f"--db: {db}: no such store")
    return Store(db)


def _ledger(event: Event, category: Category, store: Store) -> Ledger:
    return ledger_in_force(event, category.name, store, datetime.now())


_Body = Callable[[argparse.Namespace, Event, Store], int]


def _run(args: argparse.Namespace, body: _Body) -> int:
    try:
        store = _store(args.db)
        try:
            # The schedule the service runs now (its reschedules and reloads): a ruling on a
            # match the office moved or added reads it where it is.
            return body(args, event_in_force(store, args.tournament), store)
        finally:
            store.close()
    except (TournamentError, StoreError, _Refused) as err:
        return _fail(args, str(err))


# -- rulings ---------------------------------------------------------------------------


def _side(args: argparse.Namespace, event: Event, store: Store) -> tuple[Ledger, str]:
    """The ledger of the match's category and the side TEAM plays it on."""
    category = event.category_of(args.match)
    if category is None:
        raise _Refused(f"no match {args.match!r} in {args.tournament}")
    ledger = _ledger(event, category, store)
    pairing = ledger.pairings[args.match]
    if args.team not in category.tournament.teams:
        raise _Refused(f"--team: {args.team!r} is not a team of category {category.name}")
    for side, team in (("home", pairing.home), ("away", pairing.away)):
        if team == args.team:
            return ledger, side
    who = " - ".join(t or "not known yet" for t in (pairing.home, pairing.away))
    raise _Refused(f"--team: {args.team} does not play {args.match} ({who})")


def _record_forfeit(args: argparse.Namespace, event: Event, store: Store,
                    cause: rulings.ForfeitCause, player: int | None) -> int:
    reason = str(args.reason).strip()
    if not reason:
        raise _Refused("--reason must say what happened")
    ledger, side = _side(args, event, store)
    if any(f.match == args.match for f in ledger.forfeits):
        raise _Refused(f"{args.match}: a forfeit already stands for this match (an "
                       "`office correct` replaces it)")
    forfeit = rulings.Forfeit(args.match, args.team, cause, reason, datetime.now(), player)
    category = event.category_of(args.match)
    assert category is not None
    goals = forfeit_goals(category.tournament, args.match)
    store.admin(rulings.FORFEIT, rulings.forfeit_data(forfeit, side, goals), forfeit.at)
    home, away = forfeit.score(side, goals)
    print(f"{args.match}: {home}-{away}, forfeit against {args.team} ({cause.rule}: "
          f"{reason})")
    after = _ledger(event, category, store)
    for e in after.eliminations:
        if e.team == args.team:
            print(f"{args.team} is eliminated ({rulings.WAITING_PERIOD}): forfeits "
                  f"{', '.join(e.forfeits)}; voided: {', '.join(e.voided)}")
    if player is not None:
        print(f"{args.team} #{player} is expelled ({rulings.PLAYERS_START})")
    return 0


def _forfeit(args: argparse.Namespace, event: Event, store: Store) -> int:
    return _record_forfeit(args, event, store, rulings.ForfeitCause.LATE, None)


def _unauthorised(args: argparse.Namespace, event: Event, store: Store) -> int:
    return _record_forfeit(args, event, store, rulings.ForfeitCause.UNAUTHORISED, args.player)


def _green_card(args: argparse.Namespace, event: Event, store: Store) -> int:
    ledger, _ = _side(args, event, store)
    roster = ledger.tournament.teams[args.team].roster
    if roster and args.player not in roster:
        raise _Refused(f"--player: #{args.player} is not on {args.team}'s roster")
    reason = str(args.reason).strip()
    standing = [c for c in ledger.green_cards if (c.match, c.team) == (args.match, args.team)]
    if standing and not args.replace:
        raise _Refused(f"{args.match}: {args.team} already has its green card "
                       f"(#{standing[0].player}; {rulings.FAIR_PLAY}: one player per team): "
                       "--replace --reason WHY to change it")
    if args.replace and not standing:
        raise _Refused(f"--replace: {args.team} has no green card in {args.match} yet")
    if args.replace and not reason:
        raise _Refused("--replace: --reason must say why")
    store.admin(rulings.GREEN_CARD, {"match": args.match, "team": args.team,
                                     "player": args.player, "reason": reason},
                datetime.now())
    name = roster.get(args.player)
    print(f"{args.match}: green card for {args.team} #{args.player}"
          + (f" {name}" if name else "") + (f" (replaces #{standing[0].player}: {reason})"
                                           if standing else ""))
    return 0


def run_forfeit(args: argparse.Namespace) -> int:
    return _run(args, _forfeit)


def run_unauthorised(args: argparse.Namespace) -> int:
    return _run(args, _unauthorised)


def run_green_card(args: argparse.Namespace) -> int:
    return _run(args, _green_card)


# -- listings --------------------------------------------------------------------------


def _categories(args: argparse.Namespace, event: Event) -> Sequence[Category]:
    if args.category is None:
        return event.categories
    found = event.category(args.category)
    if found is None:
        known = ", ".join(c.name for c in event.categories)
        raise _Refused(f"--category: no category {args.category!r} (categories: {known})")
    return (found,)


def _title(event: Event, category: Category) -> str:
    return "" if event.plain else f"{category.name}: "


def _placings(args: argparse.Namespace, event: Event, store: Store) -> int:
    parts = [(c, placings(_ledger(event, c, store))) for c in _categories(args, event)]
    if args.json:
        print(json.dumps({"categories": [
            {"category": event.level(c), "placings": [p.to_json() for p in ps]}
            for c, ps in parts]}, ensure_ascii=False))
        return 0
    for c, ps in parts:
        print(f"{_title(event, c)}Placings")
        print("\n".join(format_placing(p) for p in ps) if ps else "  (no placings)")
    return 0


def format_placing(p: Placing) -> str:
    place = "-" if p.place is None else f"{p.place}{'=' if p.shared else '.'}"
    who = p.team if p.team is not None else f"({p.label})"
    notes = [n for n in ((p.label if p.place is None else f"{p.match}" if p.match else ""),
                         "provisional" if p.provisional else "") if n]
    return f"{place:>4} {who}" + (f"  [{', '.join(notes)}]" if notes else "")


def _scorers(args: argparse.Namespace, event: Event, store: Store) -> int:
    parts: list[tuple[Category, tuple[Scorer, ...]]] = []
    for c in _categories(args, event):
        found = top_scorers(_ledger(event, c, store))
        if args.top is not None:
            found = tuple(s for s in found if s.rank <= args.top)
        parts.append((c, found))
    if args.json:
        print(json.dumps({"categories": [
            {"category": event.level(c), "scorers": [s.to_json() for s in ss]}
            for c, ss in parts]}, ensure_ascii=False))
        return 0
    for c, ss in parts:
        print(f"{_title(event, c)}Top scorers")
        for s in ss:
            print(f"{s.rank:>4}. {s.goals:>3}  {s.team} #{s.player}"
                  + (f" {s.name}" if s.name else ""))
        if not ss:
            print("  (no goals recorded)")
    return 0


def _green_cards(args: argparse.Namespace, event: Event, store: Store) -> int:
    parts = [(c, _ledger(event, c, store).green_cards) for c in _categories(args, event)]
    if args.json:
        print(json.dumps({"categories": [
            {"category": event.level(c), "green_cards": [card_json(g) for g in gs]}
            for c, gs in parts]}, ensure_ascii=False))
        return 0
    for c, gs in parts:
        print(f"{_title(event, c)}Green cards ({rulings.FAIR_PLAY})")
        for g in gs:
            print(f"  {g.match}  {g.team} #{g.player}" + (f" {g.name}" if g.name else ""))
        if not gs:
            print("  (none recorded)")
    return 0


def card_json(card: rulings.GreenCard) -> dict[str, object]:
    return {"match": card.match, "team": card.team, "player": card.player,
            "name": card.name, "at": card.at.isoformat(timespec="seconds"),
            "reason": card.reason}


def run_placings(args: argparse.Namespace) -> int:
    return _run(args, _placings)


def run_scorers(args: argparse.Namespace) -> int:
    return _run(args, _scorers)


def run_green_cards(args: argparse.Namespace) -> int:
    return _run(args, _green_cards)
