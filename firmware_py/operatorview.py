"""The timekeeper's own view: one document, built here, drawn by the operator page
(firmware_py/operatorweb.py) and by the second window in ``--windowed`` mode
(display/operatorwindow.py).

It is not the state document (docs/developer.md 4.3), which goes to the office and the serial link:
what only the table needs (the last press's outcome, the keypad's next keys, the records
with their seqs, the office link's backlog, who is suspended) stays here. Pure: built from
values the daemon already holds, at the instant of the frame just drawn.

Shape (docs/timekeeper.md, "The operator view")::

    {"match": "A3", "preset": "ice-hockey-2x20", "stage": "group",
     "teams": {"home": "Lions", "away": "Bears"}, "score": {"home": 2, "away": 1},
     "phase": "period", "period": 2, "clock": "12:34", "running": false, "horn": false,
     "feedback": null | {"press": "GOAL HOME #12", "accepted": true, "reason": null,
                         "text": "GOAL HOME #12 \u2713"},
     "entry": null | {...the console's pending entry, as it describes itself...,
                      "timeout": {"in_s": 4 | null, "text": "4 s without a key: dropped"}},
                      # in_s null: a list, which waits for its key
     "timed_out": null | {"what": "set_clock", "entered": false,
                          "text": "entry timed out: SET CLOCK dropped"},  # a few seconds
     "result": null | {"home": 2, "away": 1, "decided_by": "shootout", "winner": "home",
                       "shootout": {"home": 3, "away": 2} | null,
                       "text": "winner: Lions, shootout 3:2"},
     "kinds": [{"key": 1, "name": "minor", "minutes": 2}, ...],
     "records": [{"key": 1, "seq": 14, "what": "goal", "team": "home", "player": 12,
                  "name": null | "A. Player",  # the roster's name for that number
                  "kind": null, "period": 2, "clock": "12:34", "undo_next": true},
                 ...],  # newest first; "key": the number CANCEL picks it by
     "undo": null | {"seq": 14, "what": "goal"},   # what UNDO would take back
     "office": null | {"connected": true, "unacked": 0,
                       "problem": "...",  # only when the office sent what was not taken
                       "cannot_store_since": "12:00",  # office's time; only while it cannot
                       "refused": [{"match": "A1", "hall": "hall-1"}]},
                       # only while the office refuses our events of a match: the hall
                       # playing it (two halls claimed it); each worded operator.office_refuses
     "audio": null | {"state": "on" | "opening" | "retrying" | "failed" | "off",
                      "driver": "alsa", "silent": true, "problem": "...", "tries": 3,
                      "text": "audio horn: on (alsa)", "alert": false},
                      # display/audiostatus.py, worded; alert: no sound where asked for
     "suspensions": {"home": [7], "away": []},   # from the office's next
     "replay": false,                   # the office voided the result: a fresh game
     "schedule": null | {"behind_ms": 720000, "periods": 3, "period_ms": 660000,
                         "clock_ms": null, "text": "BEHIND SCHEDULE BY 12 MIN: ..."}}
                         # docs/timekeeper.md, "The match day": a suggestion, never applied
     "language": "cs",   # the hall's ([display] language): every text below is in it
     "phase_text": "perioda",  # the phase, worded; each record has its "text"
     "words": {"waiting": "...", ...}}   # the page's and window's own labels (operator.*)

Every number the view shows is the number the timekeeper types: a record's ``key`` is its
place in the CANCEL list (1 the newest, ``arena.core.entry.records_of``), never its seq,
which counts every event of the match and so soon runs into three digits.

The entry's ``prompt`` and ``keys`` are worded in the hall's language from the phrases the
keypad gives (``entry.say``), and its ``head`` says what is entered; the state document's
entry stays English (docs/developer.md 4.3).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena import words
from arena.core.entry import Lapse, records_of
from arena.core.match import Match
from arena.core.phase import Team
from arena.core.units import NS_PER_S
from arena.wire import Nx
from display.audiostatus import AudioStatus
from firmware_py.feedback import Notice
from firmware_py.outputs import clock_text

RECORDS = 8  # the last goals and penalties listed: a period's worth at the table


@dataclass(frozen=True, slots=True)
class OfficeLine:
    """The office link as the view shows it (``OfficeSide.view``)."""

    connected: bool
    unacked: int  # events the office has not said it stored
    problem: str | None = None  # the latest thing the office sent that was not taken
    cannot_store_since: str | None = None  # the office's wall time, while it cannot store
    # (match, the hall playing it) for our matches whose events the office refuses
    refused: tuple[tuple[str, str], ...] = ()


def operator_document(match: Match, state: Mapping[str, Any], *,
                      notice: Notice | None = None,
                      office: OfficeLine | None = None,
                      next_doc: Mapping[str, Any] | None = None,
                      schedule: Mapping[str, Any] | None = None,
                      records: int = RECORDS, replay: bool = False,
                      audio: AudioStatus | None = None,
                      lapse: Lapse | None = None, timed_out: Lapse | None = None,
                      at: int = 0, lang: str = words.DEFAULT) -> dict[str, Any]:
    """The operator view for ``state`` (the state document of the frame just drawn, with
    its ``entry``). ``office``: the office link's line, None without an office; ``next_doc``: the
    office's ``next`` of the match on the board, whose ``suspended`` players are listed;
    ``schedule``: the timekeeper's schedule line (how far
    the hall runs behind, the suggested shortened periods), None without a scheduled
    start; ``replay``: the game on the board replays a match whose result the office
    voided; ``audio``: the audio horn's status (None: not known, e.g. before the horn
    started); ``lapse``: when the pending entry times out (None: it waits, or none is
    pending), counted down from ``at``, the frame's instant; ``timed_out``: an entry whose
    timeout the view tells (the shell says for how long)."""
    s = match.state
    top = s.undo[-1] if s.undo else None
    keys = {r.seq: n for n, r in enumerate(records_of(s), start=1)}
    listed = _records(match)[:records]
    for record in listed:
        record["key"] = keys.get(int(record["seq"]))
        record["undo_next"] = top is not None and record["seq"] == top.seq
        record["text"] = record_text(record, lang)
    teams = state.get("teams", {})
    entry = worded_entry(state.get("entry"), lang)
    if isinstance(entry, dict):
        entry["timeout"] = countdown(lapse, at, lang)
    return {
        "match": state.get("match"),
        "preset": match.preset.name,
        "stage": state.get("stage"),
        "teams": {side: str(teams.get(side, {}).get("name", side.capitalize()))
                  for side in ("home", "away")},
        "score": dict(state.get("score", {})),
        "phase": state.get("phase"),
        "period": state.get("period"),
        "clock": clock_text(int(state.get("clock_ms", 0))),
        "running": bool(state.get("running")),
        "horn": bool(state.get("horn")),
        "feedback": None if notice is None else notice.to_json(),
        "entry": entry,
        "timed_out": None if timed_out is None else timed_out_line(timed_out, lang),
        "result": result_line(state, lang),
        "kinds": [{"key": i, "name": kind.name, "text": words.kind(kind.name, lang),
                   "minutes": kind.recorded_minutes}
                  for i, kind in enumerate(match.preset.penalties.kinds.values(), start=1)],
        "records": listed,
        "undo": None if top is None else {"seq": top.seq, "what": top.kind.value},
        "office": None if office is None else office_document(office),
        "audio": None if audio is None else audio_line(audio, lang),
        "suspensions": suspended_players(next_doc, str(state.get("match"))),
        "schedule": None if schedule is None else dict(schedule),
        "replay": replay,
        "language": lang,
        "phase_text": _word(f"operator.phase.{state.get('phase')}", lang,
                            str(state.get("phase"))),
        "words": labels(lang),
    }


_WORDED_HERE = ("operator.phase.", "operator.audio.", "operator.countdown.",
                "operator.timed_out.", "operator.result.")


def labels(lang: str) -> dict[str, str]:
    """The page's and the window's own words (``operator.*``), by their short names; the
    ones with fields (``office``, ``minutes``, ...) keep their ``{field}`` for the view.
    A copy of ``_labels``: the view is the caller's to keep."""
    return dict(_labels(lang))


@functools.lru_cache(maxsize=len(words.LANGUAGES) + 1)
def _labels(lang: str) -> tuple[tuple[str, str], ...]:
    # Picked out of the whole English table once per language, not at every view the
    # loop builds: the tables are modules, fixed for the process.
    english = words.table(words.DEFAULT)
    out = []
    for key in english:
        # The ones worded here, with their fields filled, stay out (their "text" says it).
        if key.startswith("operator.") and not key.startswith(_WORDED_HERE):
            text = words.table(lang).get(key) if lang != words.DEFAULT else None
            out.append((key.removeprefix("operator."), text if text is not None
                        else english[key]))
    return tuple(out)


def countdown(lapse: Lapse | None, at: int, lang: str) -> dict[str, Any]:
    """What the pending entry does without a key, and in how many seconds (rounded up, so
    it never shows 0 while still pending); a list waits (``in_s`` None)."""
    if lapse is None:
        return {"in_s": None, "text": words.word("operator.waits", lang)}
    left = max(1, -(-(lapse.at - at) // NS_PER_S))
    return {"in_s": left, "text": words.word(f"operator.countdown.{_outcome(lapse)}", lang,
                                             s=left)}


def timed_out_line(lapse: Lapse, lang: str) -> dict[str, Any]:
    """``entry timed out: SET CLOCK dropped``: what the last timeout did, in ``lang``."""
    head = " ".join(_word(key, lang, "") for key in (
        f"entry.what.{lapse.what.value}",
        *([f"entry.team.{lapse.team.value}"] if lapse.team is not None else [])))
    return {"what": lapse.what.value, "entered": lapse.entered,
            "text": words.word(f"operator.timed_out.{_outcome(lapse)}", lang,
                               what=head.strip())}


def _outcome(lapse: Lapse) -> str:
    return "entered" if lapse.entered else "horn" if lapse.what.value == "horn" else "dropped"


def result_line(state: Mapping[str, Any], lang: str) -> dict[str, Any] | None:
    """The result once the match has one (``winner: Lions, shootout 3:2``): the score line
    alone says 1:1 after a shootout, which is not how the game ended."""
    result = state.get("result")
    if not isinstance(result, Mapping):
        return None
    home, away = int(result.get("home", 0)), int(result.get("away", 0))
    how = str(result.get("decided_by"))
    winner = "home" if home > away else "away" if away > home else None
    shots = state.get("shootout")
    tally = None
    if how == "shootout" and isinstance(shots, Mapping):
        tally = {side: sum(1 for scored in shots.get(side) or () if scored)
                 for side in ("home", "away")}
    out: dict[str, Any] = {"home": home, "away": away, "decided_by": how, "winner": winner,
                           "shootout": tally}
    if winner is None:
        out["text"] = words.word("operator.result.draw", lang, home=home, away=away)
        return out
    team = str(state.get("teams", {}).get(winner, {}).get("name", winner.capitalize()))
    key = how if how in ("shootout", "overtime", "forfeit") else "regulation"
    shown = tally if tally is not None else {"home": home, "away": away}
    out["text"] = words.word(f"operator.result.{key}", lang, team=team, **shown)
    return out


def _word(key: str, lang: str, default: str) -> str:
    return words.word(key, lang) if key in words.table(words.DEFAULT) else default


def audio_line(audio: AudioStatus, lang: str) -> dict[str, Any]:
    """The audio horn's status with its line in ``lang``: "audio horn: on (alsa)", "...OFF,
    no sound card yet, retrying", "off (config)"."""
    name = "silent" if audio.state == "on" and audio.silent else audio.state
    text = words.word(f"operator.audio.{name}", lang, driver=audio.driver,
                      problem=audio.problem)
    # Stands out where the horn the hall may count on makes no sound: the timekeeper can
    # plug in a speaker, or know the relay alone sounds.
    alert = audio.state in ("retrying", "failed") or (audio.state == "on" and audio.silent)
    return {**audio.to_json(), "text": text, "alert": alert}


def record_text(record: Mapping[str, Any], lang: str) -> str:
    """``goal home #12``, ``penalty away #7 double minor``: a record in ``lang``."""
    what = _word(f"operator.{record['what']}", lang, str(record["what"]))
    team = _word(f"feedback.team.lower.{record['team']}", lang, str(record["team"]))
    out = f"{what} {team}"
    if record.get("player") is not None:
        out += f" #{record['player']}"
        if record.get("name"):
            out += f" {record['name']}"
    if record.get("kind"):
        out += f" {words.kind(str(record['kind']), lang)}"
    return out


def worded_entry(entry: Any, lang: str) -> Any:
    """The keypad's pending entry for the view: its prompt and keys worded in ``lang``
    from the keypad's phrases (``say``), and a ``head`` (what, whose) in that language."""
    if not isinstance(entry, Mapping):
        return entry
    out = {k: v for k, v in entry.items() if k != "say"}
    head = [_word(f"entry.what.{entry.get('what')}", lang, str(entry.get("what") or ""))]
    if entry.get("team"):
        head.append(_word(f"entry.team.{entry['team']}", lang, str(entry["team"]).upper()))
    out["head"] = " ".join(h for h in head if h)
    said = entry.get("say")
    if isinstance(said, Mapping):
        if said.get("prompt") is not None:
            out["prompt"] = words.phrase(said["prompt"], lang)
        keyed = said.get("keys")
        if isinstance(keyed, list):
            out["keys"] = [[pair[0], words.phrase(pair[1], lang)] for pair in keyed
                           if isinstance(pair, list | tuple) and len(pair) == 2]
    return out


def _records(match: Match) -> list[dict[str, Any]]:
    """The match's goals and penalties, newest (highest seq) first."""
    s = match.state
    teams = {Team.HOME: match.setup.home, Team.AWAY: match.setup.away}
    out: list[dict[str, Any]] = [
        {"seq": g.seq, "what": "goal", "team": g.team.value, "player": g.player,
         "name": teams[g.team].player_name(g.player),  # the roster's, as the hall shows it
         "kind": None, "period": g.period, "clock": clock_text(g.clock_ms)}
        for g in s.goals]
    out += [{"seq": p.seq, "what": "penalty", "team": p.team.value, "player": p.player,
             "name": teams[p.team].player_name(p.player),
             "kind": p.kind.name, "period": p.period, "clock": clock_text(p.clock_ms)}
            for p in s.box]
    out.sort(key=lambda r: -int(r["seq"]))
    return out


def suspended_players(next_doc: Mapping[str, Any] | None, match: str
                      ) -> dict[str, list[int]]:
    """Who may not play in ``match``, by team, from the office's ``next`` (arena/wire/
    ``Next.suspended``); nothing when the board's match did not come from the office."""
    out: dict[str, list[int]] = {"home": [], "away": []}
    if next_doc is None or next_doc.get(Nx.MATCH) != match:
        return out
    listed: Sequence[Any] = next_doc.get(Nx.SUSPENDED) or ()
    for item in listed:
        if isinstance(item, Mapping) and item.get(Nx.TEAM) in out \
                and isinstance(item.get(Nx.PLAYER), int):
            out[item[Nx.TEAM]].append(item[Nx.PLAYER])
    for players in out.values():
        players.sort()
    return out


def office_document(office: OfficeLine) -> dict[str, Any]:
    """The view's ``office``: each optional part only when it has something to say."""
    doc: dict[str, Any] = {"connected": office.connected, "unacked": office.unacked}
    if office.problem is not None:
        doc["problem"] = office.problem
    if office.cannot_store_since is not None:
        doc["cannot_store_since"] = _time_of_day(office.cannot_store_since)
    if office.refused:
        doc["refused"] = [{"match": m, "hall": h} for m, h in office.refused]
    return doc


def _time_of_day(since: str) -> str:
    """``HH:MM`` of the office's ``2026-12-05T12:00:00`` (wire.cannot_store_since): what
    the table needs of it."""
    return since.rsplit("T", maxsplit=1)[-1][:5]
