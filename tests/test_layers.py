"""The layers the tree shows: the shared domain at the bottom, the applications above it, the
tools that join them on top; and each third-party library in its one home.

    arena (the shared domain)
      <- hardware, display            (devices: import only the domain)
      <- firmware_py                  (the hall: the domain and its devices)
      <- office                       (the standings service: the domain only)
      <- demo, bench                  (tools: anything below them)

Read from the source (every import, inside functions too), so an import that runs back up or
sideways fails here before anyone runs the code.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Which top-level packages each may import (itself always).
ALLOWED: Mapping[str, frozenset[str]] = {
    "arena": frozenset(),
    "hardware": frozenset({"arena"}),
    "display": frozenset({"arena"}),
    "firmware_py": frozenset({"arena", "hardware", "display"}),
    "office": frozenset({"arena"}),
    "demo": frozenset({"arena", "hardware", "display", "firmware_py", "office"}),
    "bench": frozenset({"arena", "hardware", "display", "firmware_py", "office", "demo"}),
}

# The benches talk to the broker as a hall or an office would, with paho, like the tests.
TOOLS = frozenset({"bench"})

# Each third-party library's one home: a package, or one module of it.
HOMES: Mapping[str, str] = {
    "paho": "arena/broker.py",
    "jinja2": "arena/templates.py",
    "pygame": "display",
    "segno": "arena/qr.py",
    "gpiozero": "hardware",
    "serial": "hardware",
    "evdev": "hardware",
}


def shipped_sources() -> list[Path]:
    files = [p.relative_to(ROOT) for top in ALLOWED for p in sorted((ROOT / top).rglob("*.py"))
             if "__pycache__" not in p.parts]
    assert len(files) > 100, "the source tree was not found"
    return files


def imported(source: str, path: str) -> Iterable[tuple[int, str]]:
    """(line, dotted module) of every absolute import in ``source``."""
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def edges(files: Iterable[Path]) -> list[tuple[str, int, str, str]]:
    """(file, line, from package, to module) for every import."""
    found = []
    for path in files:
        for line, module in imported((ROOT / path).read_text(encoding="utf-8"), str(path)):
            found.append((str(path), line, path.parts[0], module))
    return found


def layer_breaks(found: Iterable[tuple[str, int, str, str]]) -> list[str]:
    breaks = []
    for path, line, package, module in found:
        top = module.split(".")[0]
        if top in ALLOWED and top != package and top not in ALLOWED[package]:
            breaks.append(f"{path}:{line}: {package} imports {module}")
    return breaks


def home_breaks(found: Iterable[tuple[str, int, str, str]]) -> list[str]:
    breaks = []
    for path, line, package, module in found:
        if package in TOOLS:
            continue
        home = HOMES.get(module.split(".")[0])
        if home is not None and not (path == home or path.startswith(home + "/")):
            breaks.append(f"{path}:{line}: imports {module}, whose home is {home}")
    return breaks


def cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a list that starts and ends with the same node), or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node):], node]
        if node in done:
            return None
        for nxt in sorted(graph.get(node, ())):
            found = visit(nxt, [*path, node])
            if found:
                return found
        done.add(node)
        return None

    for node in sorted(graph):
        found = visit(node, [])
        if found:
            return found
    return None


def package_of(dotted: str) -> str:
    """The package a module belongs to, down to the first subpackage: ``office.views`` for
    ``office.views.ledger``, ``office`` for ``office.service`` (a module of the package)."""
    parts = dotted.split(".")
    if len(parts) > 1 and (ROOT / parts[0] / parts[1]).is_dir():
        return ".".join(parts[:2])
    return parts[0]


def package_graph(found: Iterable[tuple[str, int, str, str]]) -> dict[str, set[str]]:
    """The import graph between the subpackages (``office.views``, ``arena.core``): the
    rooms of each package. A package's own top-level modules (``office.service``) are the
    package's front, which composes its rooms, and are not counted here."""
    graph: dict[str, set[str]] = {}
    for path, _line, _package, module in found:
        if module.split(".")[0] not in ALLOWED:
            continue
        source = package_of(".".join(Path(path).with_suffix("").parts))
        target = package_of(module)
        if target != source and "." in source and "." in target:
            graph.setdefault(source, set()).add(target)
    return graph


def top_level_graph(found: Iterable[tuple[str, int, str, str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for _path, _line, package, module in found:
        top = module.split(".")[0]
        if top in ALLOWED and top != package:
            graph.setdefault(package, set()).add(top)
    return graph


def test_no_import_runs_back_up_or_sideways() -> None:
    assert layer_breaks(edges(shipped_sources())) == []


def test_each_third_party_library_is_imported_in_its_one_home() -> None:
    assert home_breaks(edges(shipped_sources())) == []


def test_the_package_import_graph_is_acyclic() -> None:
    found = edges(shipped_sources())
    assert cycle(top_level_graph(found)) is None
    # And between subpackages (office.rules, office.views, arena.core, ...).
    assert cycle(package_graph(found)) is None


# The checks themselves: each finds what it is for.

@pytest.mark.parametrize(("path", "source", "why"), [
    ("firmware_py/x.py", "from office.peer import OfficePeer\n",
     "firmware_py imports office.peer"),
    ("office/x.py", "import firmware_py.journal\n", "office imports firmware_py.journal"),
    ("office/x.py", "from display import render\n", "office imports display"),
    ("display/x.py", "from hardware.pins import pins\n", "display imports hardware.pins"),
    ("hardware/x.py", "def f():\n    from firmware_py import parts\n",
     "hardware imports firmware_py"),
    ("arena/core/x.py", "from office.rules import rulings\n", "arena imports office.rules"),
])
def test_a_layer_break_is_found(path: str, source: str, why: str) -> None:
    found = [(path, line, Path(path).parts[0], module)
             for line, module in imported(source, path)]
    assert [b.split(": ", 1)[1] for b in layer_breaks(found)] == [why]


def test_a_library_outside_its_home_is_found() -> None:
    found = [("office/web/x.py", 3, "office", "paho.mqtt.client"),
             ("arena/broker.py", 4, "arena", "paho.mqtt.client"),
             ("firmware_py/x.py", 5, "firmware_py", "pygame")]
    assert home_breaks(found) == [
        "office/web/x.py:3: imports paho.mqtt.client, whose home is arena/broker.py",
        "firmware_py/x.py:5: imports pygame, whose home is display"]


def test_a_cycle_is_found() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


# The installs: the shared package with the hall's or the office's extra (pyproject.toml).
DISTRIBUTIONS: Mapping[str, str] = {
    "paho": "paho-mqtt", "jinja2": "jinja2", "segno": "segno", "pygame": "pygame-ce",
    "gpiozero": "gpiozero", "serial": "pyserial", "evdev": "evdev",
}
INSTALLS: Mapping[str, tuple[str, ...]] = {
    # what each install runs: the packages whose imports it must satisfy
    "office": ("arena", "office"),
    "hall": ("arena", "firmware_py", "display", "hardware"),
}


def requirement_names(requirements: Iterable[str]) -> set[str]:
    names = set()
    for requirement in requirements:
        name = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower()
        if name != "arena-scoreboard":
            names.add(name)
    return names


@pytest.mark.parametrize("extra", sorted(INSTALLS))
def test_each_install_brings_what_its_packages_import_and_no_more(extra: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installed = requirement_names(project["dependencies"]) | requirement_names(
        project["optional-dependencies"][extra])
    needed = {DISTRIBUTIONS[module.split(".")[0]]
              for _path, _line, package, module in edges(shipped_sources())
              if package in INSTALLS[extra] and module.split(".")[0] in DISTRIBUTIONS}
    assert needed <= installed, f"the {extra} install lacks {sorted(needed - installed)}"
    assert installed <= needed, f"the {extra} install brings unused {sorted(installed - needed)}"


def test_the_office_install_needs_no_gpio_and_no_sdl() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    office = requirement_names(project["dependencies"]) | requirement_names(
        project["optional-dependencies"]["office"])
    assert not office & {"pygame-ce", "gpiozero", "pyserial", "evdev"}
