"""What the "why" column of a group table names for each row: the key its words are under
(``print.why.<key>``, ``site.why.<key>``), the same for every table the office shows or
prints (the printouts, the public site, ``office standings``).

Pure. A row's ``decided_by`` is what placed it above the next row (``office.rules.standings``);
read alone it would say "points" for a team the office's lots put below its level-mate
(the boundary under it is points), and nothing at all for the last of a drawn set. A team
whose place among teams level after every criterion came from the lots is placed by lots,
whatever separates it from the team below: its row names lots (the last criterion of
every list: rules 000 'Rules' "8. Dice", rules 001 'Qualifying criteria' "5. random draw",
rules 003 'Ranking' "Drawing of lots").
"""

from __future__ import annotations

from collections.abc import Sequence

LOTS = "lots"
LOTS_NEEDED = "lots_needed"


def why_keys(rows: Sequence[tuple[str | None, bool]]) -> list[str | None]:
    """Each row's "why" key from its ``(decided_by, lots_needed)``, in table order:
    ``lots_needed`` for teams level waiting for the office's draw, ``lots`` for a team the
    draw placed (the boundary above or below it is lots), else its ``decided_by`` (None:
    nothing placed it above the next, as the last row)."""
    keys: list[str | None] = []
    above: str | None = None  # what placed the row above this one over it
    for decided, lots_needed in rows:
        if lots_needed:
            keys.append(LOTS_NEEDED)
        elif LOTS in (decided, above):
            keys.append(LOTS)
        else:
            keys.append(decided)
        above = decided
    return keys
