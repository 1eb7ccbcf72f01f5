"""The hall's language reaches the layout (docs/developer.md, "Languages"): ``[display] language``
in the config, through the daemon's layout options, for the first match and the office's next."""

from __future__ import annotations

from pathlib import Path

from tests.daemon.inprocess import InProcessHall


def test_the_configured_language_reaches_the_layout(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, '[display]\nlanguage = "fi"\n')
    daemon = hall.start()
    try:
        assert daemon.options_layout.language == "fi"
    finally:
        hall.stop()


def test_without_a_language_the_display_speaks_english(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path)
    daemon = hall.start()
    try:
        assert daemon.options_layout.language == "en"
    finally:
        hall.stop()
