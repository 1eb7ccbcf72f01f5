"""Which tests start a process, read from the source (AST), for tests/test_quality.py.

A test starts a process when its body, a fixture it asks for, or a helper it calls (in its
own module, or imported from one of the tests' shared modules) calls ``subprocess``, ``Popen``
or ``os.fork``/``os.system``/``os.spawn*``/``os.exec*``: mosquitto, ``office serve``,
``scoreboard run``, Chromium, LibreOffice and git all start that way. Such a test must be
marked slow, so that ``pytest -m "not slow"`` runs only tests that take no process.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent

_SUBPROCESS = {"run", "Popen", "call", "check_call", "check_output", "getoutput",
               "getstatusoutput"}
_OS = {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp"}


def _starts_directly(node: ast.AST) -> bool:
    """``node`` calls the OS to start a process itself."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id == "Popen":
            return True
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner, name = func.value.id, func.attr
            if owner == "subprocess" and name in _SUBPROCESS:
                return True
            if owner == "os" and (name in _OS or name.startswith(("spawn", "exec"))):
                return True
    return False


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_fixture(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Attribute) and target.attr == "fixture":
            return True
        if isinstance(target, ast.Name) and target.id == "fixture":
            return True
    return False


def _marks_slow(decorators: Iterable[ast.expr]) -> bool:
    """One of ``decorators`` is ``pytest.mark.slow``."""
    return any(isinstance(d, ast.Attribute) and d.attr == "slow"
               and isinstance(d.value, ast.Attribute) and d.value.attr == "mark"
               for d in decorators)


def _module_marks(tree: ast.Module) -> list[ast.expr] | None:
    """The marks of the module's (last) ``pytestmark``; None if it has none of its own."""
    marks = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
            value = stmt.value
            marks = list(value.elts) if isinstance(value, ast.List | ast.Tuple) else [value]
    return marks


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


@dataclass
class _Module:
    tree: ast.Module
    defs: dict[str, ast.FunctionDef | ast.ClassDef]  # top-level functions and classes
    fixtures: set[str]
    imported: dict[str, tuple[str, str]]  # local name -> (module, name)


def _read(path: Path, root: Path) -> _Module:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    defs: dict[str, ast.FunctionDef | ast.ClassDef] = {}
    imported: dict[str, tuple[str, str]] = {}
    package = _module_name(path, root).rsplit(".", 1)[0]
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef):
            defs[stmt.name] = stmt
        elif isinstance(stmt, ast.ImportFrom):
            base = stmt.module or ""
            if stmt.level:  # relative: from the module's own package, up level - 1
                parts = package.split(".")
                parts = parts[: len(parts) - stmt.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            for alias in stmt.names:
                imported[alias.asname or alias.name] = (base, alias.name)
    fixtures = {name for name, node in defs.items()
                if isinstance(node, ast.FunctionDef) and _is_fixture(node)}
    return _Module(tree, defs, fixtures, imported)


class ProcessStarters:
    """What in the tests' own modules starts a process, by (module, name)."""

    def __init__(self, tests: Path = TESTS) -> None:
        root = tests.parent
        self._modules = {_module_name(p, root): _read(p, root)
                         for p in sorted(tests.rglob("*.py"))}
        self._memo: dict[tuple[str, str], bool] = {}
        # Fixtures of the conftests, visible to every test below them, by name.
        self.conftest_fixtures: dict[str, list[tuple[str, str]]] = {}
        for module, info in self._modules.items():
            if module.endswith(".conftest"):
                for name in info.fixtures:
                    self.conftest_fixtures.setdefault(name, []).append((module, name))

    def starts(self, module: str, name: str) -> bool:
        key = (module, name)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False  # a cycle (mutual helpers) adds nothing
        info = self._modules.get(module)
        found = False
        if info is not None:
            node = info.defs.get(name)
            if node is not None:
                found = self._body_starts(module, node)
            elif name in info.imported:
                found = self.starts(*info.imported[name])
        self._memo[key] = found
        return found

    def _body_starts(self, module: str, node: ast.AST) -> bool:
        if _starts_directly(node):
            return True
        info = self._modules[module]
        names = _names_used(node)
        if isinstance(node, ast.FunctionDef):
            names |= self._fixtures_asked(node)
        return any(self.starts(module, n) for n in names
                   if n in info.defs or n in info.imported) or any(
            self.starts(*where) for n in names if n not in info.defs
            for where in self._conftest_fixture(module, n))

    @staticmethod
    def _fixtures_asked(node: ast.FunctionDef) -> set[str]:
        return {a.arg for a in node.args.args}

    def _conftest_fixture(self, module: str, name: str) -> list[tuple[str, str]]:
        """The conftest fixtures called ``name`` that a test in ``module`` can see."""
        return [(conftest, fixture) for conftest, fixture in self.conftest_fixtures.get(name, [])
                if module.startswith(conftest.removesuffix("conftest"))]

    def module_marked_slow(self, module: str) -> bool:
        """The module's ``pytestmark`` (its own, or one it imports from another test
        module, as the browser tests share theirs) includes ``pytest.mark.slow``."""
        info = self._modules.get(module)
        if info is None:
            return False
        marks = _module_marks(info.tree)
        if marks is not None:
            return _marks_slow(marks)
        if "pytestmark" in info.imported:
            return self.module_marked_slow(info.imported["pytestmark"][0])
        return False

    def unmarked(self) -> Iterator[str]:
        """Every test that starts a process and is not marked slow: module::test."""
        for module, info in self._modules.items():
            if not module.rsplit(".", 1)[-1].startswith("test_"):
                continue
            if self.module_marked_slow(module):
                continue
            for test, marked in _tests(info.tree):
                if not marked and self._body_starts(module, test):
                    yield f"{module}::{test.name}"


def _tests(tree: ast.Module) -> Iterator[tuple[ast.FunctionDef, bool]]:
    """The test functions of a module, each with whether it is marked slow (itself or its
    class)."""
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test"):
            yield stmt, _marks_slow(stmt.decorator_list)
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            for inner in stmt.body:
                if isinstance(inner, ast.FunctionDef) and inner.name.startswith("test"):
                    yield inner, _marks_slow([*stmt.decorator_list, *inner.decorator_list])
