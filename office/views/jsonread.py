"""Tolerant readers of the office's own snapshot documents, for what is derived from them
(the CSV exports, the public projection, the public site's pages).

The snapshot is built by ``office.views.snapshot`` and never comes from outside, but a derived
view must not fail on one odd entry: anything of the wrong type reads as empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def dicts(value: Any) -> list[Mapping[str, Any]]:
    """The mappings of a list, skipping anything else; not a list: none."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, Mapping)]


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
