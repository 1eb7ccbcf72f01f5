"""``office alerts`` and ``office review``: what the office does about alerts and about
results that do not fit the schedule. Every action is appended to the store's ``admin``
table with a reason (audited); the running service picks it up within a second."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from arena.tournament.event import Event
from arena.tournament.reader import TournamentError
from office.cli.serve import DEFAULT_DB
from office.inforce import event_in_force, ledger_in_force
from office.storage.store import Alert, Store, StoreError
from office.views.alerts import ACK, REVIEW, AlertStatus, handled, open_alerts_of, review_data, todo
from office.views.ledger import Ledger, Review, ReviewAction


class _Refused(Exception):
    """The action cannot be taken: the message says why and what to do instead."""


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    alerts = sub.add_parser(
        "alerts", help="list, acknowledge or resolve the office's alerts",
        description="The alerts the service raised. An alert about a played bracket match "
                    "whose teams changed afterwards (a correction, lots drawn late) stays "
                    "open until it is resolved: --replay voids the result and sends the "
                    "match to its hall again, --keep lets the result stand for the teams "
                    "who played, --swap credits it to the teams the bracket names now. "
                    "Any alert can be acknowledged: it leaves the top of the page and stays "
                    "in the history.")
    what = alerts.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = what.add_parser("list", help="every alert, newest first, with its state",
                              description="Every alert, newest first: its id, state (open, "
                                          "acknowledged, resolved) and what to do.")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    _add_store(listing)
    listing.set_defaults(func=run_list)
    ack = what.add_parser("ack", help="acknowledge an alert (audited)",
                          description="Mark an alert as seen: it leaves the top of the page. "
                                      "An alert about a played match stays to be resolved.")
    ack.add_argument("id", type=int, help="the alert's id (office alerts list)")
    ack.add_argument("--reason", default="", help="a note kept with the acknowledgement")
    _add_store(ack)
    ack.set_defaults(func=run_ack)
    resolve = what.add_parser("resolve", help="resolve an alert about a played match",
                              description="Settle the played match the alert names (as "
                                          "office review MATCH does), audited with a reason.")
    resolve.add_argument("id", type=int, help="the alert's id (office alerts list)")
    _add_review_args(resolve)
    resolve.set_defaults(func=run_resolve)

    review = sub.add_parser(
        "review", help="settle a result that needs review (keep, swap, replay; audited)",
        description="A hall's result that does not fit the schedule (played under other "
                    "teams than the pairing, or while its teams were not known) needs "
                    "review and never becomes confirmed by itself. Settle it here, or "
                    "correct it (office correct). For a group match --swap accepts it for "
                    "the schedule's teams.")
    review.add_argument("match", help="the match id, as in the tournament file")
    _add_review_args(review)
    review.set_defaults(func=run_review)


def _add_store(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tournament", required=True, type=Path, help="the tournament file")
    p.add_argument("--db", type=Path, default=Path(DEFAULT_DB),
                   help=f"the office's SQLite store (default {DEFAULT_DB})")


def _add_review_args(p: argparse.ArgumentParser) -> None:
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--replay", dest="how", action="store_const", const=ReviewAction.REPLAY,
                     help="void the result: the match is sent to its hall again")
    how.add_argument("--keep", dest="how", action="store_const", const=ReviewAction.KEEP,
                     help="the result stands for the teams who played it")
    how.add_argument("--swap", dest="how", action="store_const", const=ReviewAction.SWAP,
                     help="credit the result to the teams the schedule names now")
    p.add_argument("--reason", required=True, help="why (kept with the action)")
    _add_store(p)


def _open(args: argparse.Namespace) -> tuple[Event, Store]:
    if not args.db.exists():
        raise StoreError(f"{args.db}: no such store")
    store = Store(args.db)
    try:
        # The schedule the service runs now: a review of a match the office moved or
        # added reads it where it is.
        return event_in_force(store, args.tournament), store
    except BaseException:
        store.close()
        raise


def _fail(args: argparse.Namespace, message: object) -> int:
    name = "alerts " + args.action if args.command == "alerts" else args.command
    print(f"office {name}: {message}", file=sys.stderr)
    return 2


def _with_store(run: Callable[[argparse.Namespace, Event, Store], int]
                ) -> Callable[[argparse.Namespace], int]:
    """``run`` with the event and the store opened (a bad file or store: a clear message and
    exit 2), and the store closed after."""
    @functools.wraps(run)
    def opened(args: argparse.Namespace) -> int:
        try:
            event, store = _open(args)
        except (TournamentError, StoreError) as err:
            return _fail(args, err)
        try:
            return run(args, event, store)
        finally:
            store.close()
    return opened


def _alert(store: Store, args: argparse.Namespace) -> Alert | None:
    return next((a for a in store.alerts() if a.id == args.id), None)


@_with_store
def run_list(args: argparse.Namespace, _event: Event, store: Store) -> int:
    done = handled(store.admin_actions())
    rows = []
    for a in reversed(store.alerts()):
        step = done.get(a.id)
        rows.append({"id": a.id, "at": a.at.isoformat(timespec="seconds"), "text": a.text,
                     "match": a.match,
                     "status": (step.status if step else AlertStatus.OPEN).value,
                     "note": step.note if step else todo(a.id, a.match)})
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
    else:
        for r in rows:
            print(f"{r['id']:>4}  {r['at']}  {r['status']:<12}  {r['text']}  [{r['note']}]")
    return 0


@_with_store
def run_ack(args: argparse.Namespace, _event: Event, store: Store) -> int:
    found = _alert(store, args)
    if found is None:
        return _fail(args, f"no alert {args.id} (office alerts list)")
    store.admin(ACK, {"alert": args.id, "reason": args.reason.strip()}, datetime.now())
    print(f"alert {args.id}: acknowledged"
          + (f"; {found.match} still needs resolving ({todo(args.id, found.match)})"
             if found.match else ""))
    return 0


@_with_store
def run_resolve(args: argparse.Namespace, event: Event, store: Store) -> int:
    found = _alert(store, args)
    if found is None:
        return _fail(args, f"no alert {args.id} (office alerts list)")
    if found.match is None:
        return _fail(args, f"alert {args.id} names no played match to resolve; "
                           f"acknowledge it: office alerts ack {args.id}")
    return _review(args, event, store, found.match)


@_with_store
def run_review(args: argparse.Namespace, event: Event, store: Store) -> int:
    if event.match(args.match) is None:
        return _fail(args, f"no match {args.match!r} in {args.tournament}")
    return _review(args, event, store, args.match)


def _review(args: argparse.Namespace, event: Event, store: Store, match: str) -> int:
    reason = args.reason.strip()
    if not reason:
        return _fail(args, "--reason must say why")
    category = event.category_of(match)
    if category is None:
        return _fail(args, f"no match {match!r} in {args.tournament}")
    now = datetime.now()
    ledger = ledger_in_force(event, category.name, store, now)
    try:
        review = settle(ledger, match, args.how, reason, now)
    except _Refused as err:
        return _fail(args, err)
    actions = store.admin_actions()
    closes = open_alerts_of(match, store.alerts(), handled(actions))
    store.admin(REVIEW, review_data(review, closes), now)
    teams = f" for {review.home} - {review.away}" if review.home else ""
    print(f"{match}: {review.action.value}{teams} ({reason})"
          + (f"; alerts {', '.join(map(str, closes))} resolved" if closes else ""))
    return 0


def settle(ledger: Ledger, match: str, how: ReviewAction, reason: str,
           at: datetime) -> Review:
    """The review ``how`` for ``match`` as the ledger stands, or why it cannot be taken."""
    view = ledger.matches[match]
    m = view.scheduled
    played = view.hall_teams
    if played is None or view.correction is not None or view.outcome.result is None:
        raise _Refused(f"{match} has no result from its hall to settle "
                       f"(state {view.outcome.state.value})")
    if how is ReviewAction.REPLAY:
        return Review(match, how, reason, at, seq=view.final_seq)
    if how is ReviewAction.KEEP:
        if m.group is not None:
            raise _Refused(f"{match} is a group match: its teams are the schedule's; use "
                           "--swap to accept it for them, or office correct")
        strangers = [t for t in played if t not in ledger.tournament.teams]
        if strangers:
            raise _Refused(f"{m.hall} played {match} under {', '.join(strangers)}, not a team "
                           "of the tournament: use --swap or --replay")
        return Review(match, how, reason, at, played[0], played[1])
    pairing = ledger.pairings.get(match)
    if pairing is None or pairing.home is None or pairing.away is None:
        held = ", ".join(ledger.held(m))
        raise _Refused(f"{match}: the schedule does not know its teams yet ({held}): "
                       "nothing to credit the result to; use --replay or wait")
    return Review(match, how, reason, at, pairing.home, pairing.away)
