"""The words in sr (see firmware_py/words/__init__.py)."""

WORDS: dict[str, str] = {
    "period": "PERIOD",
}
