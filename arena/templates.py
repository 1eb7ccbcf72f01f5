"""The one home of Jinja2: the templates of every HTML page and printout, autoescaped.

Each application keeps its templates beside its renderers, in a ``templates/`` folder of its
own package (``office/web/templates/``, ``office/printouts/templates/``,
``firmware_py/templates/``), shipped in the wheel as package data. ``Templates(package)``
renders them; no other module imports jinja2, so the escaping rules live here once:

- every ``{{ value }}`` is HTML-escaped (quotes too: a name in an attribute stays in it);
- a name the template uses but the renderer did not pass is an error, never an empty string
  (``StrictUndefined``: a misspelt field fails its test instead of vanishing from a page);
- ``None`` renders as nothing, as the hand-written pages did for a missing number.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2


def _finalize(value: Any) -> Any:
    return "" if value is None else value


@cache
def _environment(package: str) -> jinja2.Environment:
    # Built once per package: the environment caches its compiled templates.
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


class Templates:
    """The templates of one package (its ``templates/`` folder)."""

    __slots__ = ("package",)

    def __init__(self, package: str) -> None:
        self.package = package

    def render(self, name: str, /, **context: Any) -> str:
        """The template ``name`` rendered with ``context``, every value escaped."""
        return _environment(self.package).get_template(name).render(**context)
