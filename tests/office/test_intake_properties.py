"""Property: whatever arrives on a topic the office reads, the service stays up, and what it
refuses leaves the store as it was; what it accepts folds (nothing accepted is ever
quarantined later).

The payloads are the protocol's own, built by its builders: every event of a match played
through the real core (the final ``match_ended`` with its whole match record), the hall's
state document (``core.state.state_document``) and its status; then one place in each is
mutated: a wrong type, a huge number, deep nesting, a missing key, a lone surrogate, a huge
string, or the bytes themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import presets, wire
from arena.core.match import Match
from arena.core.state import state_document
from arena.core.values import MatchSetup
from arena.tournament.model import Tournament
from office.storage import faults

from .test_service import FakeMessage, cup, messages_of, service

__all__ = ["cup"]

Path_ = tuple[str | int, ...]

MUTANTS = st.one_of(
    st.none(), st.booleans(), st.just(2**62), st.just(-(2**62)), st.just(2**64),
    st.integers(min_value=-10, max_value=2000), st.floats(allow_nan=False, allow_infinity=False),
    st.just("\ud800"), st.just("x" * 300), st.just("y" * 70_000), st.just("\x1b[2J"),
    st.text(max_size=8), st.just([]), st.just({}), st.just(["home", "away"]),
    st.just(json.loads("[" * 40 + "]" * 40)), st.lists(st.integers(), max_size=3),
)


def paths(doc: Any, here: Path_ = ()) -> list[Path_]:
    out: list[Path_] = [here]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*here, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*here, i))
    return out


def mutated(doc: Any, where: Path_, value: Any, delete: bool) -> Any:
    if not where:
        return value
    doc = json.loads(json.dumps(doc))
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    return doc


@st.composite
def mutation(draw: st.DrawFn, doc: Any) -> bytes:
    if draw(st.integers(0, 9)) == 0:  # the bytes themselves
        raw = json.dumps(doc).encode()
        cut = draw(st.integers(0, len(raw)))
        return raw[:cut] + draw(st.binary(max_size=6)) + raw[cut:]
    where = draw(st.sampled_from(paths(doc)))
    return json.dumps(mutated(doc, where, draw(MUTANTS), draw(st.booleans()))).encode()


def state_doc() -> dict[str, Any]:
    match = Match(presets.load("floorball-2x15"), MatchSetup(match_id="A1"))
    return dict(state_document(match, 0))


def test_mutated_payloads_never_take_the_service_down(tmp_path: Path, cup: Tournament) -> None:
    svc, _, _, store = service(tmp_path, cup)
    played, fresh = cup.group_matches("A")[:2]
    svc.pump()
    for msg in messages_of(cup, played.id, 2, 1):  # a match already stored
        svc.handle(msg)
    bases = [(m.topic, json.loads(m.payload)) for m in messages_of(cup, played.id, 2, 1)]
    bases += [(m.topic, json.loads(m.payload)) for m in messages_of(cup, fresh.id, 1, 1)]
    hall = played.hall
    state_topic = wire.hall_topic(cup.id, hall, wire.STATE)
    status_topic = wire.hall_topic(cup.id, hall, wire.STATUS)
    bases += [(state_topic, json.loads(wire.build_state(state_doc())))]

    @settings(max_examples=120, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def feed(data: st.DataObject) -> None:
        if data.draw(st.integers(0, 7)) == 0:
            message = FakeMessage(status_topic, data.draw(st.one_of(
                st.sampled_from([wire.build_status(True), wire.build_status(False)]),
                st.binary(max_size=40))))
        else:
            # the final (with its record) twice as often as any other event
            index = data.draw(st.one_of(st.integers(0, len(bases) - 1),
                                        st.sampled_from([len(bases) - 2])))
            topic, doc = bases[index]
            message = FakeMessage(topic, data.draw(mutation(doc)))
        before = [e.event_id for e in store.events()]
        conflicts = len(store.conflicts())
        refused = svc.refused
        svc.handle(message)  # never raises
        after = [e.event_id for e in store.events()]
        if svc.refused > refused:
            assert after == before and len(store.conflicts()) == conflicts
        else:
            for e in store.events():
                if e.event_id not in before:
                    assert faults.poison_reason(cup, e) is None
        svc.refresh()  # folds whatever was accepted
        assert store.quarantine_status() == {}

    feed()
