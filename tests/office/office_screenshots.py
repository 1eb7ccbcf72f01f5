"""The office page's screenshots in docs/office.md (docs/images/office-*.png), made again from
the sample day by a real Chromium: run it after a deliberate change of the page's look,
and review the pictures (and the git diff) by eye before committing them.

    python tests/office/office_screenshots.py

tests/office/test_page_chromium.py makes the same pictures into a temporary folder on every
run, so this script is known to work; each picture is the first screen of the page at a
phone's and a desktop's size, written as tightly as tests/display/regenerate_references.py
writes the display's (the same pixels, smaller file).
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "images"
# (file name, width, height): a phone's first screen and a desktop's.
SHOTS = (("office-phone.png", 390, 844), ("office-desktop.png", 1440, 900))


def take(chromium: str, doc: dict[str, Any], out: Path,
         compact: Callable[[Path], None] | None = None) -> list[Path]:
    """Serve ``doc`` on 127.0.0.1, open the page as the office sees it (live) and write each
    of ``SHOTS`` into ``out``."""
    from office.views.board import SnapshotBoard  # noqa: PLC0415
    from office.web.officepage import OfficeWeb  # noqa: PLC0415
    from tests.office.cdp import Chromium  # noqa: PLC0415
    from tests.office.test_public_chromium import open_at  # noqa: PLC0415

    board = SnapshotBoard()
    board.publish(doc)
    written = []
    with OfficeWeb(board, host="127.0.0.1", port=0) as web, Chromium(chromium) as browser:
        for name, width, height in SHOTS:
            tab = open_at(browser, web.url("/"), width, height, last="body > script")
            try:
                tab.wait_for("document.getElementById('status').dataset.status === 'ok'")
                data = tab.send("Page.captureScreenshot", {"format": "png"})["data"]
            finally:
                tab.close()
            path = out / name
            path.write_bytes(base64.b64decode(data))
            if compact is not None:
                compact(path)
            written.append(path)
    return written


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.display.regenerate_references import compact  # noqa: PLC0415
    from tests.office.cdp import find_chromium  # noqa: PLC0415
    from tests.office.test_page_chromium import busy_snapshot  # noqa: PLC0415

    chromium = find_chromium()
    if chromium is None:
        print("office_screenshots: chromium is not installed (apt-get install chromium)",
              file=sys.stderr)
        return 2
    DOCS.mkdir(parents=True, exist_ok=True)
    for path in take(chromium, busy_snapshot(), DOCS, compact):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
