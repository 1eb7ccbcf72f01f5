"""The one loader for JSON from outside: its limits, and refusals that name the source."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.safejson import MAX_BYTES, MAX_DEPTH, JsonError, Limits, load_object, loads


def refusal(data: bytes | str, source: str = "src", **kw: object) -> JsonError:
    with pytest.raises(JsonError) as caught:
        load_object(data, source, **kw)  # type: ignore[arg-type]
    return caught.value


def test_a_good_object_loads_from_bytes_or_text() -> None:
    assert load_object(b'{"a": [1, {"b": null}]}', "t") == {"a": [1, {"b": None}]}
    assert load_object('{"name": "Střešovice"}', "t") == {"name": "Střešovice"}
    assert loads(b"[1, 2]", "t") == [1, 2]  # loads takes any value
    assert load_object('{"t": 75.3}', parse_float=Decimal)["t"] == Decimal("75.3")


def test_the_size_limit_is_checked_before_parsing_and_is_exact() -> None:
    body = b'{"pad": "' + b"x" * (MAX_BYTES - 11) + b'"}'
    assert len(body) == MAX_BYTES
    assert load_object(body)["pad"]
    err = refusal(body + b" ", "arena topic")
    assert (err.kind, str(err)) == (
        "too_big", f"arena topic: {MAX_BYTES + 1} bytes, over the {MAX_BYTES}-byte limit")
    # not even looked at: a huge garbage payload is refused as too big, not as garbage
    assert refusal(b"\xff" * (1 << 20)).kind == "too_big"
    assert load_object(body + b" ", limits=Limits(max_bytes=1 << 20))


def test_deep_nesting_is_refused_both_beyond_the_limit_and_beyond_python() -> None:
    ok = '{"a":' * (MAX_DEPTH - 1) + "[]" + "}" * (MAX_DEPTH - 1)
    assert load_object(ok)
    deep = '{"a":' * MAX_DEPTH + "[]" + "}" * MAX_DEPTH
    err = refusal(deep, "f.json line 3")
    assert (err.kind, str(err)) == (
        "too_deep", f"f.json line 3: nested more than {MAX_DEPTH} levels deep")
    # far deeper than the parser's own recursion limit: refused, not a RecursionError
    err = refusal("[" * 30_000 + "]" * 30_000)
    assert (err.kind, err.problem) == ("too_deep", "not JSON (nested too deeply)")
    assert refusal('{"a": [[1]]}', limits=Limits(max_depth=2)).kind == "too_deep"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    err = refusal(f'{{"at_ns": {constant}}}', "serial /dev/ttyUSB0 line 4")
    assert err.kind == "not_json"
    assert str(err) == f"serial /dev/ttyUSB0 line 4: not JSON ({constant} is not allowed)"


def test_text_must_be_utf8_and_valid_unicode() -> None:
    err = refusal(b'{"a": "\xff"}')
    assert (err.kind, err.problem) == ("not_utf8", "not UTF-8 text (byte 8)")
    err = refusal(b'{"name": "\\ud800"}')  # an escape that decodes to a lone surrogate
    assert err.kind == "surrogate" and "not valid Unicode" in err.problem
    assert refusal(b'{"\\udfff": 1}').kind == "surrogate"  # in a key too


@pytest.mark.parametrize(("data", "got"), [
    ("[1, 2]", "a list"), ('"start"', "a string"), ("3", "an integer"), ("2.5", "a number"),
    ("true", "a boolean"), ("null", "null")])
def test_an_object_is_required_where_one_is_expected(data: str, got: str) -> None:
    err = refusal(data, "results.jsonl:2")
    assert (err.kind, str(err)) == ("not_object", f"results.jsonl:2: must be a JSON object, "
                                                  f"got {got}")
    assert err.value == json.loads(data)  # for a caller that shows the value itself
    err = refusal(data, expected='a JSON object like {"do": "start"}')
    assert err.problem.startswith('must be a JSON object like {"do": "start"}, got')


def test_syntax_errors_say_where() -> None:
    err = refusal("{nope", "script.jsonl line 2")
    assert (err.kind, err.line, err.column) == ("syntax", 1, 2)
    assert str(err) == ("script.jsonl line 2: not JSON (Expecting property name enclosed in "
                        "double quotes at column 2)")
    err = refusal('{\n  "a": 1,\n  "b": }\n', "state.json")
    assert str(err) == "state.json: not JSON (Expecting value at line 3 column 8)"
    assert (err.line, err.column, err.detail) == (3, 8, "Expecting value")


def test_a_huge_integer_is_refused_not_raised() -> None:
    assert refusal('{"n": ' + "9" * 5000 + "}").kind == "not_json"


def test_no_source_gives_the_bare_problem() -> None:
    assert str(refusal("[]", "")) == "must be a JSON object, got a list"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300))
def test_nothing_but_json_error_escapes(data: bytes | str) -> None:
    try:
        load_object(data, "fuzz")
    except JsonError as err:
        assert str(err).startswith("fuzz: ")
