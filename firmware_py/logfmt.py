"""Structured log lines for journald: ``level=info logger=daemon msg="command applied" k=v``.

One line per record on stdout (journald adds its own timestamp; ``--log-level`` filters).
Fields come from ``extra={"kv": {...}}``; a value with a space, a quote or an '=' is quoted.
Grep-friendly and easy to parse, without a dependency.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import Any


def quote(value: object) -> str:
    text = "null" if value is None else str(value).lower() if isinstance(value, bool) \
        else str(value)
    if text == "" or any(c in text for c in ' "=\n\t'):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return text


def pairs(fields: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={quote(v)}" for k, v in fields.items())


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        head = {"level": record.levelname.lower(), "logger": record.name.rsplit(".", 1)[-1],
                "msg": record.getMessage()}
        fields = getattr(record, "kv", None) or {}
        line = pairs({**head, **fields})
        if record.exc_info:
            line += " exc=" + quote(self.formatException(record.exc_info))
        return line


def setup(level: str) -> None:
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def kv(logger: logging.Logger, level: int, msg: str, **fields: Any) -> None:
    if logger.isEnabledFor(level):
        logger.log(level, msg, extra={"kv": fields})
