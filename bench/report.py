"""The benchmarks' common ``--write-docs``: a run's printed summary into its block of
docs/performance.md, the one page that holds benchmark figures.

Each benchmark's block sits between ``<!-- bench:NAME:begin -->`` and
``<!-- bench:NAME:end -->`` (NAME: the script's name without ``.py``). A benchmark adds the
option to its parser (``add_write_docs``) and runs its ``main`` through
``run_writing_docs``: without the option nothing changes; with it, what the run prints goes
to the terminal as before and, once the run has succeeded, into the block, headed by the
date and the machine, since a figure means nothing without them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

PAGE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
OPTION = "--write-docs"


def add_write_docs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(OPTION, action="store_true",
                        help="also write what this run prints into its block of "
                             "docs/performance.md (after a successful run)")


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal: TextIO) -> None:
        self.terminal = terminal
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.terminal.write(text)
        self.copy.write(text)
        return len(text)

    def flush(self) -> None:
        self.terminal.flush()


def machine() -> str:
    """The machine a figure was measured on, as far as the process can tell."""
    load = ""
    with contextlib.suppress(OSError):  # not every system has a load average
        load = ", load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    return (f"{platform.machine()}, {os.cpu_count()} cores{load}, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}")


def block_body(summary: str, *, when: datetime, where: str) -> str:
    """What goes between the markers: the run's date and machine, then its output as is."""
    text = summary.strip("\n")
    return f"Measured {when:%Y-%m-%d %H:%M} UTC on {where}.\n\n```\n{text}\n```"


def replace_block(page: str, name: str, body: str) -> str:
    """``page`` with block ``name`` holding ``body``; the markers must already be there, so a
    misspelt name never grows the page by a block nobody reads."""
    pattern = re.compile(rf"(<!-- bench:{re.escape(name)}:begin -->\n).*?"
                         rf"(<!-- bench:{re.escape(name)}:end -->)", flags=re.DOTALL)
    if not pattern.search(page):
        raise KeyError(f"no <!-- bench:{name}:begin/end --> block in the page")
    return pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), page,
                       count=1)


def write_block(name: str, summary: str, *, page: Path = PAGE,
                when: datetime | None = None, where: str | None = None) -> None:
    body = block_body(summary, when=when or datetime.now(UTC), where=where or machine())
    page.write_text(replace_block(page.read_text(encoding="utf-8"), name, body),
                    encoding="utf-8")


def run_writing_docs(main: Callable[[], int | None], name: str,
                     argv: list[str] | None = None) -> int:
    """``main()``'s exit code; with ``--write-docs`` among the arguments its printed output
    is also written into block ``name`` once it has succeeded."""
    args = sys.argv[1:] if argv is None else argv
    if OPTION not in args:
        return main() or 0
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        code = main() or 0
    if code == 0:
        write_block(name, tee.copy.getvalue(), page=PAGE)
        print(f"wrote its block in {PAGE.relative_to(PAGE.parent.parent)}")
    return code
