"""The MQTT contract is spelled in one module (docs/developer.md 4.4: "every topic and payload is
built and checked there"), the package ``arena/wire/``: no topic string and no payload of
these messages is written anywhere else in the shipped code or the benches."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from arena import wire

ROOT = Path(__file__).resolve().parent.parent
WIRE = ROOT / "arena" / "wire"  # the wire module: the whole package
PACKAGES = ("arena", "firmware_py", "office", "display", "hardware", "demo", "bench")
TEXT_SUFFIXES = (".py", ".html", ".toml", ".js", ".css")

# A dict built with all the keys of one of these sets is that message's payload being
# built by hand. Each set is particular to its message: the state document (docs/developer.md 4.3,
# the core's) also has "preset" and "teams", but never "suspended".
PAYLOAD_KEYS = [
    ("events", {"event_id"}),
    ("next", {"teams", "suspended"}),
    ("standings", {"provisional", "complete"}),
    ("standings row", {"goals_for"}),
    ("standings row", {"lots_needed"}),
]
STATUS_PAYLOADS = {b"online", b"offline"}


def shipped_files() -> list[Path]:
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*"))
             if p.suffix in TEXT_SUFFIXES and p.is_file() and "__pycache__" not in p.parts]
    assert len(files) > 50, "the source tree was not found"
    return [p for p in files if WIRE not in p.parents]


def wire_files() -> list[Path]:
    files = sorted(WIRE.rglob("*.py"))
    assert (WIRE / "__init__.py") in files, "the wire package was not found"
    return files


def dict_keys(node: ast.AST) -> set[str] | None:
    """The constant keys of a dict display or a ``dict(k=...)`` call."""
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant)
                and isinstance(k.value, str)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "dict":
        return {k.arg for k in node.keywords if k.arg is not None}
    return None


def hand_built(path: Path) -> list[str]:
    """Where ``path`` builds one of the messages itself: "line N: <message>"."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        keys = dict_keys(node)
        if keys is not None:
            found += [(node.lineno, f"the {what} payload")
                      for what, needed in PAYLOAD_KEYS if needed <= keys]
        if isinstance(node, ast.Constant) and node.value in STATUS_PAYLOADS:
            found.append((node.lineno, f"the status payload {node.value!r}"))
    return [f"line {n}: {what}" for n, what in sorted(found)]


def topic_root() -> re.Pattern[str]:
    """The topic tree's root, ``arena/``, as a topic spells it: not a path into the shared
    domain's package, which has the same name (``arena/core/match.py``)."""
    own = sorted({p.stem for p in (ROOT / "arena").iterdir() if not p.name.startswith("_")})
    return re.compile(r"\barena/(?!(?:" + "|".join(map(re.escape, own)) + r")\b)")


def test_no_topic_is_spelled_outside_the_wire_module() -> None:
    root = topic_root()
    spelled = [f"{p.relative_to(ROOT)}:{n}" for p in shipped_files()
               for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
               if root.search(line)]
    assert spelled == []


@pytest.mark.parametrize("path", [p for p in shipped_files() if p.suffix == ".py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_payload_is_built_outside_the_wire_module(path: Path) -> None:
    assert hand_built(path) == []


def test_the_checks_would_see_a_hand_built_payload(tmp_path: Path) -> None:
    # The test above must not pass for want of looking: it finds each kind.
    sample = tmp_path / "sample.py"
    sample.write_text(
        'a = {"event_id": "h:m:1", "seq": 1}\n'
        'b = dict(teams={}, suspended=[], match="A1")\n'
        'c = {"group": "A", "rows": [], "provisional": False, "complete": True}\n'
        'd = [{"team": "Lions", "goals_for": 3}]\n'
        'e = b"online"\n', encoding="utf-8")
    assert hand_built(sample) == [
        "line 1: the events payload", "line 2: the next payload",
        "line 3: the standings payload", "line 4: the standings row payload",
        "line 5: the status payload b'online'"]
    # and the wire module is where they are declared, each key once (its builders and its
    # checkers use the declared names, so a key changed there changes everywhere)
    declared = {value for keys in (wire.Ev, wire.Nx, wire.St)
                for name, value in vars(keys).items() if name.isupper()} | set(wire.FIGURES)
    assert set().union(*(needed for _, needed in PAYLOAD_KEYS)) <= declared
    assert {w.split(": ", 1)[1] for p in wire_files() for w in hand_built(p)} == {
        "the status payload b'online'", "the status payload b'offline'"}
