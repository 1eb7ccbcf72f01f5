"""The words people read: the hall display's, the public site's and the printouts', in the
languages of the rule documents' countries and English.

One table per language, each a module of this package with a ``WORDS`` dict (key -> text):
``en`` (English, the fallback and the list of every key), ``cs`` (Czech), ``sr`` (Serbian,
Latin script) and ``fi`` (Finnish). ``word(key, lang)`` gives the text; a key a language
lacks falls back to English (``missing()`` lists those gaps, and a test shows them); a key
English lacks is a programming error (``KeyError``). Texts may hold ``{name}`` fields,
filled by ``word(key, lang, name=...)``.

Pure: standard library only, so the core's neighbours, the display and the office all use
it.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

LANGUAGES: tuple[str, ...] = ("en", "cs", "sr", "fi")
NAMES: Mapping[str, str] = {"en": "English", "cs": "Čeština", "sr": "Srpski", "fi": "Suomi"}
DEFAULT = "en"


def table(lang: str) -> Mapping[str, str]:
    """The words of one language (``LANGUAGES``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: one of {', '.join(LANGUAGES)}")
    words: Mapping[str, str] = import_module(f"{__name__}.{lang}").WORDS
    return words


def word(key: str, lang: str = DEFAULT, **fields: object) -> str:
    """``key``'s text in ``lang`` (English where that language lacks it)."""
    english = table(DEFAULT)
    if key not in english:
        raise KeyError(f"no word {key!r} in the English table (arena/words/en.py)")
    text = table(lang).get(key) if lang != DEFAULT else None
    text = text if text is not None else english[key]
    return text.format(**fields) if fields else text


def missing(lang: str) -> list[str]:
    """The English keys ``lang`` has no text for (they show in English)."""
    have = table(lang)
    return [k for k in table(DEFAULT) if k not in have]


def unknown(lang: str) -> list[str]:
    """Keys ``lang`` has that English does not (a typo, or a word no longer used)."""
    english = table(DEFAULT)
    return [k for k in table(lang) if k not in english]


def kind(name: str, lang: str = DEFAULT) -> str:
    """A penalty kind's name as the printouts word it (``sheet.kind.*``), else as the preset
    names it, ``_`` a space (a preset may bring kinds of its own)."""
    key = f"sheet.kind.{name}"
    return word(key, lang) if key in table(DEFAULT) else name.replace("_", " ")


def phrase(said: object, lang: str = DEFAULT) -> str:
    """A keypad phrase as the core gives it in JSON (``[key, {field: value}]``,
    arena/core/prompts.py) worded in ``lang``: a field that is a phrase first, a
    ``kind`` by ``kind``. Anything else is shown as it is (a view never fails on it)."""
    if not (isinstance(said, list | tuple) and len(said) == 2 and isinstance(said[0], str)
            and isinstance(said[1], dict)):
        return "" if said is None else str(said)
    key, given = f"entry.{said[0]}", said[1]
    if key not in table(DEFAULT):
        return str(said[0])
    fields = {name: kind(value, lang) if name == "kind" and isinstance(value, str)
              else phrase(value, lang) if isinstance(value, list) else value
              for name, value in given.items()}
    try:
        return word(key, lang, **fields)
    except (KeyError, IndexError, ValueError):  # a field the table's text does not have
        return word(key, DEFAULT, **fields) if lang != DEFAULT else str(said[0])
