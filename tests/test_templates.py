"""The pages and printouts from templates (arena/templates.py): a hostile name is text on
every page and printout, the one home of Jinja2 stays the one, and every template ships.

The hostile name holds what breaks hand-built HTML: a script element, a quote that would end
an attribute and start an event handler, and an entity that must not be taken as one."""

from __future__ import annotations

import ast
import json
import tomllib
from pathlib import Path

import pytest

from arena.templates import Templates
from firmware_py.operatorweb import body_html, page
from office.printouts.printing import Printouts
from office.storage.store import Store
from office.views.public import public_snapshot
from office.web.publicsite import Site
from tests.office import printed
from tests.office.test_printouts import printouts
from tests.office.test_web import sample_snapshot
from tests.test_operator_words import view

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = '<script>alert(1)</script> "onmouseover=alert(2) &amp;'
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt; &#34;onmouseover=alert(2) &amp;amp;"
# A roster's names are at most 40 characters (arena.wire): the quote and the entity.
PLAYER = '"onmouseover=alert(2) &amp;'
PLAYER_ESCAPED = "&#34;onmouseover=alert(2) &amp;amp;"
CONVERTED = ("office/web/publicsite.py", "office/printouts/sheets.py",
             "firmware_py/operatorweb.py")


def assert_escaped(html: str, where: str, scripts: int = 0) -> None:
    assert ESCAPED in html, where
    assert "<script>alert" not in html and '"onmouseover' not in html, where
    assert " &amp; " not in html.replace(ESCAPED, ""), where  # no &amp; left unescaped
    assert html.count("<script>") == scripts, where  # only the page's own


def test_a_hostile_name_is_text_on_every_page_of_the_public_site() -> None:
    doc = sample_snapshot()
    doc["tournament"]["name"] = HOSTILE
    doc["groups"][0]["rows"][0]["team"] = HOSTILE
    doc["matches"][0]["home"] = HOSTILE
    doc["halls"][1]["live"]["teams"]["home"] = HOSTILE
    site = Site(public_snapshot(doc))
    for path in site.paths():
        html = site.page(path)
        assert html is not None, path
        assert_escaped(html, path, scripts=1)
    team = [p for p in site.paths() if p.startswith("team/")]
    pages = "".join(site.page(p) or "" for p in team)
    assert f'data-team="{ESCAPED}"' in pages  # in an attribute too, the quote escaped


@pytest.fixture(scope="module")
def hostile_cup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The printouts' cup with the home team, a player and the event named hostilely."""
    quoted = json.dumps(HOSTILE)  # a TOML basic string is a JSON string here
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(printed, "HOME", HOSTILE)
        mp.setattr(printed, "CUP", printed.CUP.replace('"Kärpät"', quoted)
                   .replace('"Jääskeläinen"', json.dumps(PLAYER))
                   .replace('"Pohár Čeština 2026"', quoted))
        return printed.cup(tmp_path_factory.mktemp("hostile"))


def test_a_hostile_name_is_text_on_every_printout(hostile_cup: tuple[Path, Path]) -> None:
    store = Store(hostile_cup[1], read_only=True)
    try:
        p: Printouts = printouts(hostile_cup, store)
        for name, html in (("sheet F", p.sheet("F")), ("sheet A1", p.sheet("A1")),
                           ("schedule", p.schedule()), ("tables", p.tables()),
                           ("placings", p.placings())):
            assert_escaped(html, name)
        assert PLAYER_ESCAPED in p.sheet("F") and PLAYER not in p.sheet("F")
    finally:
        store.close()


def test_a_hostile_name_is_text_on_the_operator_page() -> None:
    doc = view("en")
    doc = {**doc, "teams": {"home": HOSTILE, "away": "B"}, "match": HOSTILE,
           "feedback": {"accepted": False, "text": HOSTILE},
           "schedule": {"text": HOSTILE, "behind_ms": 1}}
    assert_escaped(body_html(doc), "body")
    assert_escaped(page(doc).decode(), "page", scripts=1)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _sources() -> list[Path]:
    return [p for top in ("arena", "firmware_py", "office", "display", "hardware", "demo",
                          "bench", "tests") for p in sorted((ROOT / top).rglob("*.py"))]


def test_jinja2_lives_in_arena_templates_and_segno_in_arena_qr() -> None:
    homes = {"jinja2": ("arena/templates.py",), "segno": ("arena/qr.py",)}
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for library, allowed in homes.items():
            if library in _imports(path):
                assert rel.startswith(allowed), f"{rel} imports {library}"


def test_the_converted_pages_leave_escaping_to_the_templates() -> None:
    for rel in CONVERTED:
        path = ROOT / rel
        assert "html" not in _imports(path), rel
        tree = ast.parse(path.read_text(encoding="utf-8"))
        called = {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
                  for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert "escape" not in called, rel


def test_every_template_ships_in_the_wheel() -> None:
    """Each templates/ file matches its package's [tool.setuptools.package-data] globs."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]
    templates = [p for p in ROOT.rglob("templates/**/*.j2") if ".venv" not in p.parts]
    assert len(templates) >= 10
    for path in templates:
        rel = path.relative_to(ROOT)
        package_dir = next(p for p in rel.parents if p.name == "templates").parent
        package = ".".join(package_dir.parts)
        shipped = {f for g in globs.get(package, ()) for f in (ROOT / package_dir).glob(g)}
        assert path in shipped, rel


def test_a_name_a_template_needs_and_is_not_given_fails_loudly() -> None:
    with pytest.raises(Exception, match="'css' is undefined"):
        Templates("office.printouts").render("layout.html.j2", title="x", lang="en")
