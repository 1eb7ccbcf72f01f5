"""The ``office`` command: group tables from a results file, and the office's drawing of lots.

Commands register themselves in ``_REGISTRARS`` (see ``build_parser``): each one adds its
subparser and sets ``func``, a callable ``(args) -> exit code``. Exit codes: 0 ok, 2 bad
input (a message on stderr naming the file, the line and the key; never a traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from arena.core.preset import Criterion
from arena.tournament.event import Category, Event
from arena.tournament.files import load_event
from arena.tournament.model import Draw, GameResult, Group, GroupTable, ResultState, Row, Tournament
from arena.tournament.reader import TournamentError
from office.cli import alerts as alerts_cli
from office.cli import prints as print_cli
from office.cli import rulings as rules_cli
from office.cli import schedule as schedule_cli
from office.cli import serve as serve_cli
from office.cli import site as site_cli
from office.cli import store as store_cli
from office.rules.results import ResultsError, ResultsFile, draw_line, parse_results_file
from office.rules.standings import rank_group
from office.service import ledger_from_store
from office.storage.store import Store, StoreError


class InputError(Exception):
    """Bad input found by a command: the message names the file, the line and the key."""


# ---------------------------------------------------------------------------------------
# Counting the results file against the tournament


@dataclass(frozen=True, slots=True)
class _GroupResults:
    group: Group
    results: tuple[GameResult, ...]
    draws: tuple[Draw, ...]
    provisional: bool  # some counted result is only final (its protest window is open)
    complete: bool  # every scheduled match of the group has a result

    def table(self, tournament: Tournament) -> GroupTable:
        return rank_group(self.group, self.results, tournament.rules, self.draws,
                          provisional=self.provisional, complete=self.complete)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err


def _count_results(tournament: Tournament, parsed: ResultsFile, source: str,
                   warn: Callable[[str], None]) -> dict[str, _GroupResults]:
    """Each group's results and draws, checked against the schedule."""
    group_of: dict[str, str] = {}
    for g in tournament.groups:
        for team in g.teams:
            group_of[team] = g.name
    counted: dict[str, list[GameResult]] = {g.name: [] for g in tournament.groups}
    provisional: set[str] = set()
    for record in parsed.results:
        r = record.result
        at = f"{source}:{record.line}"
        scheduled = tournament.match(r.match)
        if scheduled is not None:
            if scheduled.group is None:
                continue  # a bracket match: not part of any group table
            home = scheduled.home.team or scheduled.home.text
            away = scheduled.away.team or scheduled.away.text
            if (r.home, r.away) != (home, away):
                swapped = (r.home, r.away) == (away, home)
                raise InputError(
                    f"{at}: home/away: match {r.match!r} is {home} v {away} in the schedule, "
                    f"the result says {r.home} v {r.away}"
                    + (" (home and away swapped)" if swapped else ""))
            group = scheduled.group
        else:
            group_home, group_away = group_of.get(r.home), group_of.get(r.away)
            if group_home is None or group_home != group_away:
                where = ", ".join(
                    f"{t} is {'in group ' + g if g else 'in no group'}"
                    for t, g in ((r.home, group_home), (r.away, group_away)))
                raise InputError(f"{at}: match: {r.match!r} is not in the schedule and its "
                                 f"teams are not in one group ({where})")
            group = group_home
            if tournament.matches:  # a file without a schedule ranks by teams: no noise
                warn(f"{at}: warning: match {r.match!r} is not in the schedule; counted for "
                     f"group {group} ({r.home} v {r.away})")
        counted[group].append(r)
        if record.state is ResultState.FINAL:
            provisional.add(group)
    draws: dict[str, list[Draw]] = {g.name: [] for g in tournament.groups}
    for d in parsed.draws:
        at = f"{source}:{d.line}"
        target = tournament.group(d.draw.group)
        if target is None:
            raise InputError(f"{at}: draw: no group {d.draw.group!r} in the tournament")
        strangers = [t for t in d.draw.order if t not in target.teams]
        if strangers:
            raise InputError(f"{at}: order: {', '.join(strangers)} not in group {target.name}")
        draws[target.name].append(d.draw)
    out: dict[str, _GroupResults] = {}
    for g in tournament.groups:
        played = {r.match for r in counted[g.name]}
        schedule = tournament.group_matches(g.name)
        if schedule:
            complete = all(m.id in played for m in schedule)
        else:  # no schedule: complete once every two teams have met (a round robin)
            met = {frozenset((r.home, r.away)) for r in counted[g.name]}
            complete = len(met) == len(g.teams) * (len(g.teams) - 1) // 2
        out[g.name] = _GroupResults(g, tuple(counted[g.name]), tuple(draws[g.name]),
                                    g.name in provisional, complete)
    return out


def _load(tournament_path: Path, results_path: Path, category: str | None = None
          ) -> tuple[Tournament, str, dict[str, _GroupResults]]:
    tournament = _category(load_event(tournament_path), category).tournament
    text = _read(results_path)
    parsed = parse_results_file(text, str(results_path))
    groups = _count_results(tournament, parsed, str(results_path), _warn)
    return tournament, text, groups


def _category(event: Event, name: str | None) -> Category:
    """The category a command works on: ``--category``, or the only one."""
    known = ", ".join(c.name for c in event.categories)
    if name is None:
        if len(event.categories) == 1:
            return event.categories[0]
        raise InputError(f"--category: the event has {len(event.categories)} categories "
                         f"({known}): name one")
    found = event.category(name)
    if found is None:
        raise InputError(f"--category: no category {name!r} in the event (categories: {known})")
    return found


def _draw_category(event: Event, category: Category) -> str | None:
    """The category a draw records: group names repeat only in an event of several."""
    return category.name if len(event.categories) > 1 else None


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


def _pick_group(tournament: Tournament, name: str | None) -> list[Group]:
    if name is None:
        return list(tournament.groups)
    group = tournament.group(name)
    if group is None:
        known = ", ".join(g.name for g in tournament.groups)
        raise InputError(f"--group: no group {name!r} in the tournament (groups: {known})")
    return [group]


# ---------------------------------------------------------------------------------------
# Printing tables

_WHY = {
    Criterion.POINTS: "points",
    Criterion.GOAL_DIFFERENCE: "goal difference",
    Criterion.GOALS_FOR: "goals for",
    Criterion.HEAD_TO_HEAD_POINTS: "head-to-head points",
    Criterion.HEAD_TO_HEAD_GOAL_DIFFERENCE: "head-to-head goal difference",
    Criterion.HEAD_TO_HEAD_GOALS_FOR: "head-to-head goals for",
    Criterion.HEAD_TO_HEAD_PENALTY_MINUTES: "fewer head-to-head penalty minutes",
    Criterion.PENALTY_MINUTES: "fewer penalty minutes",
    Criterion.LOTS: "lots (drawn)",
}


def why(row: Row) -> str:
    """The "why" column: what placed this row above the next one."""
    if row.lots_needed:
        return "lots needed"
    return _WHY[Criterion(row.decided_by)] if row.decided_by is not None else ""


def format_table(table: GroupTable) -> str:
    """A group table as aligned text, with the "why" column."""
    status = ["complete" if table.complete else "in progress"]
    if table.provisional:
        status.append("provisional")
    header = ("#", "Team", "P", "W", "D", "L", "Goals", "GD", "Pts", "PIM", "Why")
    lines = [header]
    for row in table.rows:
        lines.append((
            str(row.rank), row.team, str(row.played), str(row.won), str(row.drawn),
            str(row.lost), f"{row.goals_for}:{row.goals_against}",
            _signed(row.goals_for - row.goals_against), str(row.points),
            str(row.penalty_minutes), why(row)))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [f"Group {table.name} ({', '.join(status)})"]
    for line in lines:
        cells = [line[0].rjust(widths[0]), line[1].ljust(widths[1])]
        cells += [c.rjust(w) for c, w in zip(line[2:10], widths[2:10], strict=True)]
        cells.append(line[10])
        text.append("  ".join(cells).rstrip())
    return "\n".join(text)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _print_tables(tables: Sequence[GroupTable], as_json: bool,
                  category: str | None = None) -> None:
    _print_categories([(category, tables)], as_json)


def _print_categories(parts: Sequence[tuple[str | None, Sequence[GroupTable]]],
                      as_json: bool) -> None:
    """Tables by category (None: a tournament file's, printed as they always were)."""
    if as_json:
        groups = [{**t.to_json(), **({"category": c} if c is not None else {})}
                  for c, tables in parts for t in tables]
        print(json.dumps({"groups": groups}, ensure_ascii=False))
    else:
        print("\n\n".join((f"{c}: " if c is not None else "") + format_table(t)
                           for c, tables in parts for t in tables))


def _add_sources(p: argparse.ArgumentParser, *, results: str, db: str) -> None:
    """The tournament file, and where the results are: a results file or the service's
    store (exactly one)."""
    p.add_argument("--tournament", required=True, type=Path, metavar="FILE",
                   help="the tournament file, or an event file of several categories (TOML)")
    p.add_argument("--category", metavar="NAME",
                   help="in an event file of several categories: the category")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--results", type=Path, metavar="RESULTS.jsonl", help=results)
    where.add_argument("--db", type=Path, metavar="OFFICE.sqlite", help=db)


def _tables_in_store(tournament: Tournament, db: Path, category: str | None = None
                     ) -> dict[str, GroupTable]:
    """The group tables as the service has them now (``category``: whose lots count)."""
    if not db.exists():
        raise InputError(f"--db: {db}: no such store")
    store = Store(db)
    try:
        return dict(ledger_from_store(tournament, store, datetime.now(), category).tables)
    finally:
        store.close()


def _report_draw(draw: Draw, table: GroupTable, as_json: bool) -> None:
    if not as_json:
        print(f"Lots drawn for group {draw.group}: {', '.join(draw.order)}"
              + (f" (seed {draw.seed})" if draw.seed is not None else ""))
    _print_tables([table], as_json)


# ---------------------------------------------------------------------------------------
# office standings


def _add_standings(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "standings", help="rank the groups from a results file",
        description="Rank every group of the tournament from the finished-match lines of "
                    "RESULTS.jsonl, by the tie-break criteria of the tournament's rule "
                    "document, and say for every row what placed it above the next one. "
                    "A result whose match id is not in the schedule but whose teams share a "
                    "group is counted for that group, with a warning.")
    _add_sources(p, results="finished matches and drawn lots, one JSON object a line",
                 db="the service's store instead: the tables as the service has them now "
                    "(provisional while a protest window is open)")
    p.add_argument("--json", action="store_true",
                   help='print {"groups": [{"name", "provisional", "complete", "rows"}]}')
    p.add_argument("--group", metavar="NAME", help="only this group")
    p.set_defaults(func=_run_standings)


def _run_standings(args: argparse.Namespace) -> int:
    if args.db is not None:
        event = load_event(args.tournament)
        # From the store, every category unless --category picks one.
        chosen = (event.categories if args.category is None and args.group is None
                  else (_category(event, args.category),))
        parts: list[tuple[str | None, Sequence[GroupTable]]] = []
        for c in chosen:
            tournament = c.tournament
            groups = _pick_group(tournament, args.group)
            tables = _tables_in_store(tournament, args.db, _draw_category(event, c))
            parts.append((event.level(c), [tables[g.name] for g in groups]))
        _print_categories(parts, args.json)
        return 0
    tournament, _, counted = _load(args.tournament, args.results, args.category)
    groups = _pick_group(tournament, args.group)
    _print_tables([counted[g.name].table(tournament) for g in groups], args.json)
    return 0


# ---------------------------------------------------------------------------------------
# office draw-lots


def _add_draw_lots(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "draw-lots", help="record the lots drawn for teams still level",
        description="Record the office's drawing of lots for teams of a group that are level "
                    "after every criterion (the table says 'lots needed'). The draw is "
                    "appended to RESULTS.jsonl and the new table printed. --order names the "
                    "teams as drawn, best first: one set of level teams, or every set in "
                    "table order. --random lets the machine draw and records its seed so "
                    "the draw can be checked.")
    _add_sources(p, results="the results file the draw is appended to",
                 db="the running service's store: the draw is recorded there as an audited "
                    "office action and the service re-ranks within a second")
    p.add_argument("--group", required=True, metavar="NAME", help="the group")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--order", metavar="TEAM,TEAM,...",
                     help="the teams in the order drawn, best first")
    how.add_argument("--random", action="store_true",
                     help="draw with a seeded random generator and record the seed")
    p.add_argument("--seed", type=int, help="the seed for --random (default: a fresh one)")
    p.add_argument("--json", action="store_true", help="print the new table as JSON")
    p.set_defaults(func=_run_draw_lots)


def level_sets(table: GroupTable) -> list[tuple[str, ...]]:
    """The sets of teams still level and waiting for lots, in table order."""
    sets: list[tuple[str, ...]] = []
    for i, row in enumerate(table.rows):
        if not row.lots_needed:
            continue
        if i > 0 and table.rows[i - 1].lots_needed and table.rows[i - 1].rank == row.rank:
            sets[-1] = (*sets[-1], row.team)
        else:
            sets.append((row.team,))
    return sets


def _check_order(order: Sequence[str], group: Group, sets: Sequence[tuple[str, ...]]) -> None:
    waiting = "; ".join(", ".join(s) for s in sets)
    for team in order:
        if team not in group.teams:
            raise InputError(f"--order: {team!r} is not in group {group.name}")
        if not any(team in s for s in sets):
            raise InputError(f"--order: {team} is not level with another team "
                             f"(lots are needed for: {waiting})")
    if len(set(order)) != len(order):
        raise InputError(f"--order: names a team twice: {', '.join(order)}")
    if any(set(order) == set(s) for s in sets):
        return
    position = 0
    for s in sets:  # every set, one after the other, in table order
        if set(order[position:position + len(s)]) != set(s):
            break
        position += len(s)
    else:
        if position == len(order):
            return
    raise InputError(f"--order: must name exactly the teams of one level set, or of every "
                     f"set in table order (lots are needed for: {waiting})")


def pick_order(args: argparse.Namespace, group: Group,
               sets: Sequence[tuple[str, ...]]) -> Draw:
    """The draw ``--order`` names (checked) or ``--random`` makes (seed recorded)."""
    seed: int | None = None
    if args.random:
        seed = args.seed if args.seed is not None else secrets.randbits(32)
        rng = random.Random(seed)
        order = tuple(team for s in sets for team in rng.sample(sorted(s), len(s)))
    else:
        order = tuple(t.strip() for t in args.order.split(","))
        if any(not t for t in order):
            raise InputError(f"--order: an empty team name in {args.order!r}")
        _check_order(order, group, sets)
    return Draw(group.name, order, seed)


def _append_line(path: Path, text: str, line: str) -> None:
    # Appended and fsynced: a drawing of lots is an event the office cannot repeat.
    prefix = "\n" if text and not text.endswith("\n") else ""
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(f"{prefix}{line}\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as err:
        raise InputError(f"{path}: cannot append the draw: {err.strerror or err}") from err


def _run_draw_lots(args: argparse.Namespace) -> int:
    if args.seed is not None and not args.random:
        raise InputError("--seed: only with --random")
    if args.db is not None:
        return _draw_lots_in_store(args)
    tournament, text, counted = _load(args.tournament, args.results, args.category)
    (group,) = _pick_group(tournament, args.group)
    tables = {name: c.table(tournament) for name, c in counted.items()}
    draw = pick_order(args, group, _lots_wanted(group, tables))
    _append_line(args.results, text, draw_line(draw))
    # The new table from the file as it now is: what the next `office standings` will say.
    _, _, counted = _load(args.tournament, args.results, args.category)
    _report_draw(draw, counted[group.name].table(tournament), args.json)
    return 0


def _lots_wanted(group: Group, tables: Mapping[str, GroupTable]) -> list[tuple[str, ...]]:
    """The group's sets of teams waiting for lots; an error if there are none."""
    sets = level_sets(tables[group.name])
    if not sets:
        raise InputError(f"--group: no teams of group {group.name} are level after every "
                         "criterion; there are no lots to draw")
    return sets


# ---------------------------------------------------------------------------------------
# The command

# One entry per command family: each adds its subparsers and sets `func`. The service's
# `serve` and `correct` join here (e.g. office.cli.serve.add_commands).
_REGISTRARS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None],
                   ...] = (_add_standings, _add_draw_lots, serve_cli.add_commands,
                          store_cli.add_commands, alerts_cli.add_commands,
                          schedule_cli.add_commands, rules_cli.add_commands,
                          print_cli.add_commands, site_cli.add_commands)


def _draw_lots_in_store(args: argparse.Namespace) -> int:
    """``office draw-lots --db``: the draw as an audited action in the service's store; the
    running service sees the database change and re-ranks."""
    event = load_event(args.tournament)
    category = _category(event, args.category)
    tournament = category.tournament
    recorded = _draw_category(event, category)
    (group,) = _pick_group(tournament, args.group)
    draw = pick_order(args, group, _lots_wanted(
        group, _tables_in_store(tournament, args.db, recorded)))
    data: dict[str, object] = {"group": draw.group, "order": list(draw.order),
                               "seed": draw.seed}
    if recorded is not None:  # group names repeat across categories
        data["category"] = recorded
    store = Store(args.db)
    try:
        store.admin("draw", data, datetime.now())
    finally:
        store.close()
    _report_draw(draw, _tables_in_store(tournament, args.db, recorded)[group.name], args.json)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="office",
        description="The office's standings service: group tables ranked by each "
                    "tournament's rule document, the drawing of lots, and the service.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in _REGISTRARS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (InputError, ResultsError, TournamentError, StoreError) as err:
        print(f"office {args.command}: {err}", file=sys.stderr)
        return 2
