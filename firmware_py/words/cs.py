"""The words in cs (see firmware_py/words/__init__.py)."""

WORDS: dict[str, str] = {
    "period": "TŘETINA",
}
