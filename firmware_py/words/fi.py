"""The words in fi (see firmware_py/words/__init__.py)."""

WORDS: dict[str, str] = {
    "period": "ERÄ",
}
