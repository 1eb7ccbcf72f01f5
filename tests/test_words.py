"""Every language has every word (docs/developer.md, "Languages"): a missing one shows in English,
and this test names each gap so it is filled, not forgotten."""

from __future__ import annotations

import pytest

from arena import words


@pytest.mark.parametrize("lang", [lang for lang in words.LANGUAGES if lang != words.DEFAULT])
def test_every_language_has_every_word(lang: str) -> None:
    assert words.missing(lang) == [], f"{lang} lacks: {', '.join(words.missing(lang))}"
    assert words.unknown(lang) == [], f"{lang} has words English does not"


def test_a_missing_word_falls_back_to_english_and_an_unknown_key_is_an_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.words import fi  # noqa: PLC0415

    monkeypatch.setattr(fi, "WORDS", {})
    assert words.word("period", "fi") == words.word("period", "en")
    with pytest.raises(KeyError, match="no word 'no-such-word'"):
        words.word("no-such-word", "fi")
    with pytest.raises(ValueError, match="language 'de'"):
        words.word("period", "de")


@pytest.mark.parametrize("lang", [lang for lang in words.LANGUAGES if lang != words.DEFAULT])
def test_every_text_has_the_fields_of_its_english(lang: str) -> None:
    """A ``{field}`` a translation lacks or adds would show as a hole or fail at the table."""
    import string  # noqa: PLC0415

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    english = words.table(words.DEFAULT)
    wrong = [key for key, text in words.table(lang).items()
             if key in english and fields(text) != fields(english[key])]
    assert wrong == []
