"""Write the docs' reference tables from the code, or check that they are current.

Each table sits in a page between the markers ``<!-- ref:NAME:begin -->`` and
``<!-- ref:NAME:end -->`` and is made from what the code declares, never from a copy:

- ``config`` (docs/technician.md): every ``[table] key`` of the hall's config file, from
  ``firmware_py.config.KEYS`` (and the tables read whole by their own modules);
- ``topics`` (docs/developer.md): every MQTT topic, who publishes it, retained, QoS, from
  ``arena.wire.TOPICS``;
- ``office`` (docs/office.md): every subcommand of ``office``, from its argument parser;
- ``scoreboard`` (docs/technician.md): every subcommand of ``scoreboard``, from its parser;
- ``limits`` (docs/developer.md): every limit of a name, number or length, from the one
  table ``arena.wire.LIMITS``; ``file-limits`` (docs/office.md): the part of it a tournament
  or event file is held to;
- ``criteria`` (docs/office.md): every ranking criterion a ``tiebreak`` list may name (the
  ``decided_by`` of a row), from ``arena.core.preset.Criterion`` and its English "why" word;
- ``tiebreaks`` (docs/office.md): each bundled preset's two-team and three-or-more lists
  with their citations, from ``arena.presets``.

Run it from anywhere: ``python docs/reference.py`` rewrites the blocks that are stale,
``--check`` only says which are (exit 1), for the tests.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # a script in docs/: the packages are beside this folder
    sys.path.insert(0, str(ROOT))

from arena import presets, wire, words  # noqa: E402
from arena.core.preset import Criterion  # noqa: E402
from firmware_py import config, linkconfig  # noqa: E402
from firmware_py.cli import build_parser as scoreboard_parser  # noqa: E402
from office.cli.main import build_parser  # noqa: E402

STALE_HINT = "run python docs/reference.py"


def _cell(text: str) -> str:
    """Text for a table cell: a ``|`` would end the cell."""
    return text.replace("|", "\\|")


def _toml(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str | list):
        return f"`{json.dumps(value, ensure_ascii=False)}`"
    return f"`{value}`"


def config_table() -> str:
    rows = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for key in config.KEYS:
        rows.append(f"| `[{key.table}] {key.name}` | {key.kind} | {_toml(key.default)} | "
                    f"{_cell(key.meaning)} |")
    read_whole = {
        "mqtt": "keys " + ", ".join(f"`{k}`" for k in sorted(linkconfig.KEYS))
                + " (\"The broker\")",
        "console": "the GPIO buttons and the horn relay (\"Wiring the console\")",
        "keypad": "USB keypads and their keys (docs/timekeeper.md)",
    }
    notes = [f"- `[{table}]`, read by `{module}`: {read_whole[table]}"
             for table, module in config.FREE_TABLES.items()]
    return "\n".join([*rows, "", "Tables read whole by their own modules:", "", *notes])


def topics_table() -> str:
    rows = ["| topic | published by | retained | QoS | what |",
            "| --- | --- | --- | --- | --- |"]
    root = f"{wire.ROOT}/{wire.VERSION}/<t>"
    for rule in wire.TOPICS:
        topics = ", ".join(f"`{root}/{p.strip()}`" for p in rule.pattern.split(","))
        rows.append(f"| {topics} | {rule.publisher} | {'yes' if rule.retained else 'no'} | "
                    f"{rule.qos} | {_cell(rule.meaning)} |")
    return "\n".join(rows)


def _number(value: int) -> str:
    """A limit as a person reads it: ``2^53`` rather than its 16 digits."""
    power = value.bit_length() - 1
    if value >= 2**32 and value == 2**power:
        return f"2^{power}"
    return f"{value:,}".replace(",", " ")


def limits_table() -> str:
    rows = ["| limit | value | what it bounds |", "| --- | --- | --- |"]
    for name, value, meaning, _ in wire.LIMITS.rows():
        rows.append(f"| `{name}` | {_number(value)} | {_cell(meaning)} |")
    return "\n".join(rows)


def file_limits_table() -> str:
    rows = ["| what the file holds | at most | limit |", "| --- | --- | --- |"]
    for name, value, _, file in wire.LIMITS.rows():
        if file:
            rows.append(f"| {_cell(file)} | {_number(value)} | `{name}` |")
    return "\n".join(rows)


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str,
                                                                   argparse.ArgumentParser]]:
    for action in parser._actions:  # argparse keeps its subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield choice.dest, choice.help or "", action.choices[choice.dest]


def office_table() -> str:
    rows = ["| command | what it does |", "| --- | --- |"]
    for name, help_text, sub in _subcommands(build_parser()):
        rows.append(f"| `office {name}` | {_cell(help_text)} |")
        for action, action_help, _ in _subcommands(sub):
            rows.append(f"| `office {name} {action}` | {_cell(action_help)} |")
    return "\n".join(rows)


def scoreboard_table() -> str:
    rows = ["| command | what it does |", "| --- | --- |"]
    for name, help_text, _ in _subcommands(scoreboard_parser()):
        rows.append(f"| `scoreboard {name}` | {_cell(help_text)} |")
    return "\n".join(rows)


def criteria_table() -> str:
    rows = ["| criterion | counted over | shown as |", "| --- | --- | --- |"]
    for criterion in Criterion:
        if criterion is Criterion.LOTS:
            over = "the office's recorded draw (never rolled by itself)"
        elif criterion.mutual:
            over = "the matches among the teams still level"
        else:
            over = "all the team's group matches"
        rows.append(f"| `{criterion.value}` | {over} | "
                    f"{_cell(words.word(f'print.why.{criterion.value}'))} |")
    return "\n".join(rows)


def _criteria_list(criteria: Sequence[Criterion]) -> str:
    return ", ".join(f"`{c.value}`" for c in criteria)


def tiebreaks_table() -> str:
    rows = ["| preset | two teams level (`tiebreak`) | three or more (`tiebreak_many`) | why |",
            "| --- | --- | --- | --- |"]
    for name in presets.names():
        preset = presets.load(name)
        rules = preset.standings
        two = preset.cite("standings.tiebreak") or ""
        many = preset.cite("standings.tiebreak_many")
        if rules.tiebreak_many == rules.tiebreak:
            lists, why = "the same list", two
        else:
            lists = _criteria_list(rules.tiebreak_many)
            why = f"two: {two}. Three or more: {many or '(not cited)'}"
        rows.append(f"| `{name}` | {_criteria_list(rules.tiebreak)} | {lists} | "
                    f"{_cell(why)} |")
    return "\n".join(rows)


BLOCKS: dict[str, tuple[str, Callable[[], str]]] = {
    "config": ("docs/technician.md", config_table),
    "topics": ("docs/developer.md", topics_table),
    "office": ("docs/office.md", office_table),
    "scoreboard": ("docs/technician.md", scoreboard_table),
    "limits": ("docs/developer.md", limits_table),
    "file-limits": ("docs/office.md", file_limits_table),
    "criteria": ("docs/office.md", criteria_table),
    "tiebreaks": ("docs/office.md", tiebreaks_table),
}


def filled(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` holding ``body``; the markers must be there."""
    pattern = re.compile(rf"(<!-- ref:{name}:begin -->\n).*?(<!-- ref:{name}:end -->)",
                         flags=re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"reference: no <!-- ref:{name}:begin/end --> markers")
    return pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text,
                       count=1)


def stale_pages(*, write: bool) -> list[str]:
    """The pages whose blocks differ from the code (rewritten when ``write``)."""
    pages: dict[str, str] = {}
    for name, (page, make) in BLOCKS.items():
        text = pages.get(page) or (ROOT / page).read_text(encoding="utf-8")
        pages[page] = filled(text, name, make())
    stale = []
    for page, text in pages.items():
        path = ROOT / page
        if path.read_text(encoding="utf-8") != text:
            stale.append(page)
            if write:
                path.write_text(text, encoding="utf-8")
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Fill the docs' reference blocks (config keys, MQTT topics, office "
                    "and scoreboard commands, limits, ranking criteria and each preset's "
                    "tie-break lists) from the code. Default: rewrite the stale pages.")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 naming every stale page")
    args = parser.parse_args(argv)
    stale = stale_pages(write=not args.check)
    if args.check and stale:
        print(f"stale: {', '.join(stale)}: {STALE_HINT}", file=sys.stderr)
        return 1
    for page in stale:
        print(f"rewrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
