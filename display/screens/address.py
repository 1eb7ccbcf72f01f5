"""The public site's address on the between-games screen: a QR code with the address
printed under it, in a column at the right of the group tables.

The modules are 1 cm on the wall where the column has room (a phone in the front rows
reads a code whose module is about 1 cm from a few metres), smaller when a long address
needs more of them. The code is black on a white square with its quiet zone: readers need
dark on light, and the board is dark.
"""

from __future__ import annotations

import math
from functools import lru_cache

from .. import colour as pal
from .. import qr
from ..fit import line_height
from ..items import Item, Qr
from .common import Canvas, footer_top, row_cap_top, text

COLUMN_SHARE = 36  # at most this percent of the screen's width
MIN_MODULE = 2  # pixels: below this no phone reads it; the code is left out


@lru_cache(maxsize=8)
def _code(url: str) -> qr.QrCode:
    # The layout runs every frame; the code changes only with the config.
    return qr.encode(url, "M")


def shown_address(url: str) -> str:
    """What a spectator types: the address without its scheme and its closing slash."""
    for scheme in ("https://", "http://"):
        if url.lower().startswith(scheme):
            url = url[len(scheme):]
            break
    return url[:-1] if url.endswith("/") and url.count("/") == 1 else url


def address_column(canvas: Canvas, url: str, top: int) -> tuple[list[Item], int]:
    """The QR code from ``top`` at the right margin and the address under it, and the
    column's width (0: no room, nothing shown)."""
    code = _code(url)
    modules = code.size + 2 * qr.QUIET_ZONE
    cap = canvas.min_px
    label = shown_address(url)
    label_h = line_height(cap, label)
    room_h = footer_top(canvas) - top - canvas.u(1) - label_h
    room_w = canvas.x(COLUMN_SHARE)
    one_cm = math.ceil(canvas.height / canvas.options.hall.visible_height_cm)
    module = min(one_cm, room_h // modules, room_w // modules)
    if module < MIN_MODULE:
        return [], 0
    side = modules * module
    width = min(room_w, max(side, canvas.measure(label, "sans", cap)))
    right = canvas.width - canvas.margin
    left = right - width
    items: list[Item] = [Qr((left + (width - side) // 2, top, side, side), code.rows, module,
                            role="address.qr")]
    shown = text(canvas, (left, 0, width, 0),
                 row_cap_top(top + side + canvas.u(1), label_h, cap, label), cap, label,
                 colour=pal.WHITE, role="address.text")
    if shown is not None and shown.text == label:  # a cut address would mislead
        items.append(shown)
    return items, width
