"""The results file (the rules' 'Ranking': results JSONL): parsing, clear errors, round trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.tournament.model import DecidedBy, Draw, GameResult, ResultState
from office.rules.results import (
    ResultsError,
    draw_line,
    parse_results,
    parse_results_file,
    result_line,
)

LINE = ('{"match": "A3", "home": "Lions", "away": "Bears", "score": {"home": 3, "away": 1}, '
        '"decided_by": "regulation", "penalty_minutes": {"home": 4, "away": 12}}')


def test_the_issues_example_line() -> None:
    results, draws = parse_results(LINE, "results.jsonl")
    assert results == [GameResult("A3", "Lions", "Bears", 3, 1, DecidedBy.REGULATION, 4, 12)]
    assert draws == []


def test_defaults_comments_blank_lines_draws_and_states() -> None:
    text = "\n".join([
        "# typed by the office",
        "",
        '{"match": "A1", "home": "Lions", "away": "Bears", "score": {"home": 0, "away": 5},'
        ' "decided_by": "forfeit"}',
        '   ',
        '{"match": "A2", "home": "Bears", "away": "Wolves", "score": {"home": 2, "away": 2},'
        ' "state": "final"}',
        '{"draw": "A", "order": ["Wolves", "Lions"], "seed": 12345}',
        '{"draw": "A", "order": ["Lions", "Wolves"]}',
    ])
    parsed = parse_results_file(text, "r.jsonl")
    a1, a2 = parsed.results
    assert a1.result == GameResult("A1", "Lions", "Bears", 0, 5, DecidedBy.FORFEIT)
    assert (a1.state, a1.line) == (ResultState.CONFIRMED, 3)
    assert a2.result.decided_by is DecidedBy.REGULATION
    assert (a2.result.home_pim, a2.result.away_pim) == (0, 0)
    assert (a2.state, a2.line) == (ResultState.FINAL, 5)
    assert [d.draw for d in parsed.draws] == [Draw("A", ("Wolves", "Lions"), 12345),
                                              Draw("A", ("Lions", "Wolves"), None)]
    assert [d.line for d in parsed.draws] == [6, 7]


def _line(**changes: object) -> str:
    data: dict[str, object] = json.loads(LINE)
    for key, value in changes.items():
        if value is _DROP:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


_DROP = object()


@pytest.mark.parametrize(("line", "expected"), [
    (_line(score={"home": "3", "away": 1}),
     'results.jsonl:2: score.home: must be a whole number >= 0, got "3"'),
    (_line(score={"home": 3, "away": -1}),
     "results.jsonl:2: score.away: must be a whole number >= 0, got -1"),
    (_line(score={"home": True, "away": 1}),
     "results.jsonl:2: score.home: must be a whole number >= 0, got true"),
    (_line(score={"home": 3}), "results.jsonl:2: score.away: missing"),
    (_line(score={"home": 3, "away": 1, "extra": 0}), "results.jsonl:2: score.extra: unknown key"),
    (_line(score="3-1"), "results.jsonl:2: score: must be an object"),
    (_line(score=_DROP), "results.jsonl:2: score: missing"),
    (_line(home=_DROP), "results.jsonl:2: home: missing"),
    (_line(away=""), 'results.jsonl:2: away: must be a non-empty string, got ""'),
    (_line(away="Lions"), "results.jsonl:2: away: a team cannot play itself"),
    (_line(match=3), "results.jsonl:2: match: must be a non-empty string, got 3"),
    (_line(halls="x"), "results.jsonl:2: halls: unknown key"),
    (_line(decided_by="penalties"), "results.jsonl:2: decided_by: must be one of regulation, "
                                    'overtime, shootout, forfeit, got "penalties"'),
    (_line(decided_by="shootout", score={"home": 2, "away": 2}),
     "results.jsonl:2: score: a match decided by shootout has a winner, got 2:2"),
    (_line(state="live"), 'results.jsonl:2: state: must be one of final, confirmed, '
                          'corrected, got "live"'),
    (_line(penalty_minutes={"home": 2, "away": 2.5}),
     "results.jsonl:2: penalty_minutes.away: must be a whole number >= 0, got 2.5"),
    ('{"match": "A3",', "results.jsonl:2: not valid JSON"),
    ("[1, 2]", "results.jsonl:2: must be a JSON object, got [1, 2]"),
    ('{"draw": "A", "order": ["B"]}', "results.jsonl:2: order: must be a list of two or more"),
    ('{"draw": "A", "order": ["B", "B"]}', "results.jsonl:2: order: names a team twice"),
    ('{"draw": "A", "order": ["B", "C"], "seed": "7"}',
     'results.jsonl:2: seed: must be a whole number or null, got "7"'),
    ('{"draw": "A", "order": ["B", "C"], "by": "me"}', "results.jsonl:2: by: unknown key"),
    ('{"draw": "", "order": ["B", "C"]}', "results.jsonl:2: draw: must be a non-empty string"),
])
def test_bad_lines_name_source_line_key_and_problem(line: str, expected: str) -> None:
    with pytest.raises(ResultsError) as err:
        parse_results(f"# header\n{line}\n", "results.jsonl")
    assert str(err.value).startswith(expected)


def test_a_match_twice_names_both_lines() -> None:
    text = "\n".join([LINE, "", _line(score={"home": 1, "away": 1})])
    with pytest.raises(ResultsError, match=r'^r\.jsonl:3: match: "A3" is already on line 1'):
        parse_results(text, "r.jsonl")


def test_lines_round_trip() -> None:
    result = GameResult("B2", "Owls", "Hawks", 0, 5, DecidedBy.FORFEIT, 2, 0)
    draw = Draw("B", ("Hawks", "Owls"), 42)
    text = "\n".join([result_line(result), draw_line(draw), draw_line(Draw("B", ("a", "b")))])
    assert parse_results(text, "x") == ([result], [draw, Draw("B", ("a", "b"))])
    parsed = parse_results_file(result_line(result, ResultState.FINAL), "x")
    assert parsed.results[0].state is ResultState.FINAL
    assert "\n" not in result_line(result)


def test_a_name_with_a_unicode_line_separator_stays_on_its_line() -> None:
    # JSON Lines end at "\n" only; U+2028 is a legal character inside a JSON string.
    result = GameResult("A1", "Lions\u2028Cubs", "Bears\x85", 1, 0)
    text = result_line(result) + "\r\n" + result_line(GameResult("A2", "X", "Y", 0, 0))
    results, _ = parse_results(text, "x")
    assert results[0] == result
    assert len(results) == 2


_names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1).filter(str.strip)


@settings(max_examples=200, deadline=None)
@given(match=_names, home=_names, away=_names, goals=st.tuples(st.integers(0, 99),
       st.integers(0, 99)), pim=st.tuples(st.integers(0, 300), st.integers(0, 300)),
       by=st.sampled_from(list(DecidedBy)), state=st.sampled_from(
           [None, ResultState.FINAL, ResultState.CONFIRMED, ResultState.CORRECTED]))
def test_result_line_is_the_inverse_of_parsing(
        *, match: str, home: str, away: str, goals: tuple[int, int], pim: tuple[int, int],
        by: DecidedBy, state: ResultState | None) -> None:
    # Not results: a team against itself, an overtime or shootout without a winner.
    assume(home != away)
    assume(by not in (DecidedBy.OVERTIME, DecidedBy.SHOOTOUT) or goals[0] != goals[1])
    result = GameResult(match, home, away, *goals, by, *pim)
    parsed = parse_results_file(result_line(result, state), "x")
    assert parsed.results[0].result == result
    assert parsed.results[0].state is (state or ResultState.CONFIRMED)
