"""The lists the timekeeper picks from, on the operator view of an in-process daemon
(docs/timekeeper.md, "The operator view"): one numbering (what the view shows is what the
keypad takes), a list that waits for its key, a countdown for every other entry and a line
when one timed out, the menu a page at a time, and the winner of a finished shootout.

Presses go in through the real console on gpiozero's MockFactory; the view is read from the
page's /operator.json on 127.0.0.1; time is the fake clock of tests/daemon/inprocess.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.core.units import NS_PER_S
from firmware_py.daemon import Daemon
from firmware_py.feedback import SHOWN_NS
from tests.daemon.inprocess import InProcessHall
from tests.daemon.test_operator import FLOORBALL, SERVED, get, press, view

MS = 1_000_000


def keys(daemon: Daemon, *names: str) -> None:
    assert daemon.console is not None
    for name in names:
        daemon.console.key(name, daemon.timeline.now())
    daemon.run_until(daemon.timeline.now() + NS_PER_S // 5)


def numbered(entry: dict[str, Any]) -> dict[str, str]:
    return {k: does for k, does in entry["keys"] if k.isdigit()}


def test_the_view_numbers_its_records_as_cancel_picks_them(tmp_path: Path) -> None:
    """The last records are numbered by their place in the CANCEL list (1 the newest), not
    by seq; typing the number the view shows cancels that very record."""
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    t0 = hall.time.now + NS_PER_S
    press(daemon, "start_stop", t0)
    for n, (action, player) in enumerate([("goal_home", "7"), ("penalty_away", "4"),
                                          ("goal_away", "9"), ("goal_home", "11")]):
        press(daemon, action, t0 + (n + 1) * 20 * NS_PER_S)
        daemon.run_until(t0 + (n + 1) * 20 * NS_PER_S + NS_PER_S)
        keys(daemon, *player, "enter")
        if action.startswith("penalty"):
            keys(daemon, "1")  # the first kind
    press(daemon, "start_stop", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S)
    records = view(daemon)["records"]
    assert [r["key"] for r in records] == [1, 2, 3, 4]
    assert [r["text"] for r in records] == ["goal home #11", "goal away #9",
                                            "penalty away #4 minor", "goal home #7"]
    # The seqs count every event of the match: not what the timekeeper types.
    assert [r["seq"] for r in records] != [1, 2, 3, 4]

    press(daemon, "cancel", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    shown = view(daemon)
    listed = numbered(shown["entry"])
    for r in shown["records"]:  # the same number, the same record, on both lists
        assert listed[str(r["key"])].startswith(r["text"]), (r, listed)
    away_goal = next(r for r in shown["records"] if r["text"] == "goal away #9")
    keys(daemon, str(away_goal["key"]), "enter")
    assert [g.player for g in daemon.match.state.goals] == [7, 11]
    after = view(daemon)
    assert [r["text"] for r in after["records"]] == ["goal home #11", "penalty away #4 minor",
                                                     "goal home #7"]
    assert [r["key"] for r in after["records"]] == [1, 2, 3]
    hall.stop()


def test_an_entry_counts_down_and_its_timeout_is_told(tmp_path: Path) -> None:
    """With the clock stopped (no frames of its own) the view still counts down every
    second, and says what the timeout did for as long as a press's answer stays."""
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    press(daemon, "set_clock", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 5)
    typed = hall.time.now
    keys(daemon, "1", "2")
    assert daemon.console is not None
    lapse = daemon.console.lapse()
    assert lapse is not None
    due = lapse.at
    assert due == typed + 5 * NS_PER_S  # the console's entry_timeout_ms, from the last key
    entry = view(daemon)["entry"]
    assert entry["timeout"] == {"in_s": 5, "text": "5 s without a key: dropped"}
    seen = []
    while hall.time.now < due - NS_PER_S // 10:
        daemon.run_until(hall.time.now + NS_PER_S // 10)
        seen.append(view(daemon)["entry"]["timeout"]["in_s"])
    assert sorted(set(seen), reverse=True) == [5, 4, 3, 2, 1]  # every second of it
    daemon.run_until(due + 3 * NS_PER_S // 10)  # the view is rebuilt 10 times a second
    told = view(daemon)
    assert told["entry"] is None
    assert told["timed_out"] == {"what": "set_clock", "entered": False,
                                 "text": "entry timed out: SET CLOCK dropped"}
    status, page, _ = get(daemon.operator_web.url("/")) if daemon.operator_web else (0, b"", "")
    assert status == 200 and "entry timed out: SET CLOCK dropped" in page.decode()
    # Gone after a press's answer's few seconds, with no key and the clock stopped.
    daemon.run_until(due + SHOWN_NS + NS_PER_S // 5)
    assert view(daemon)["timed_out"] is None

    # A goal times out entered as typed: said so too, beside its answer (which stays its
    # few seconds from then, though the goal carries its button's instant).
    press(daemon, "start_stop", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S)
    press(daemon, "goal_home", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    assert view(daemon)["entry"]["timeout"]["text"].endswith("s without a key: entered "
                                                             "as typed")
    keys(daemon, "5")
    daemon.run_until(hall.time.now + 6 * NS_PER_S)
    done = view(daemon)
    assert done["timed_out"]["text"] == "entry timed out: GOAL HOME entered as typed"
    assert done["feedback"]["text"] == "GOAL HOME #5 \u2713"
    hall.stop()


def test_a_list_waits_for_its_key_and_the_menu_turns_its_pages(tmp_path: Path) -> None:
    hall = InProcessHall(tmp_path, FLOORBALL + SERVED)
    daemon = hall.start()
    daemon.run_until(hall.time.now + NS_PER_S)
    press(daemon, "menu", hall.time.now)
    daemon.run_until(hall.time.now + NS_PER_S // 2)
    entry = view(daemon)["entry"]
    assert entry["timeout"] == {"in_s": None,
                                "text": "the list waits for your key (Escape closes it)"}
    assert list(numbered(entry)) == [str(n) for n in range(1, 10)]
    assert ["dot", "more: page 1 of 2"] in entry["keys"]
    daemon.run_until(hall.time.now + 120 * NS_PER_S)  # read at leisure: still there
    assert view(daemon)["entry"]["what"] == "menu" and view(daemon)["timed_out"] is None
    keys(daemon, "dot")
    entry = view(daemon)["entry"]
    assert numbered(entry) == {"10": "shot away", "11": "set clock",
                               "12": "end period/break", "13": "forfeit: home loses",
                               "14": "forfeit: away loses", "15": "cancel/correct",
                               "16": "next", "17": "undo",
                               "18": "next match from the schedule"}
    keys(daemon, "1", "3")  # forfeit: home loses, from the second page
    assert view(daemon)["entry"]["what"] == "forfeit"
    keys(daemon, "escape")
    hall.stop()


def test_a_finished_shootout_shows_its_winner_and_the_shootout_score(tmp_path: Path) -> None:
    """Rules 003 'Ranking': a tie after the playing time goes to penalty shots, three a
    team, alternately; the winner is credited one goal (the preset's winner_goals). The
    score line stays 0 : 0; the result line says who won and the shootout's score."""
    hall = InProcessHall(tmp_path, '[match]\npreset = "football-p10"\nstage = "playoff"\n'
                         + SERVED)
    daemon = hall.start()
    t0 = hall.time.now + NS_PER_S
    press(daemon, "start_stop", t0)
    daemon.run_until(t0 + 1501 * NS_PER_S)  # rules 003 'General': 1 x 25 min
    assert view(daemon)["phase"] == "shootout"
    for side, scored in [("home", "1"), ("away", "0"), ("home", "1"), ("away", "1"),
                         ("home", "0"), ("away", "0")]:
        press(daemon, f"shot_{side}", hall.time.now)
        daemon.run_until(hall.time.now + NS_PER_S // 2)
        keys(daemon, "enter", scored)
        daemon.run_until(hall.time.now + 2 * NS_PER_S)
    shown = view(daemon)
    assert shown["phase"] == "final" and shown["score"] == {"home": 0, "away": 0}
    assert shown["result"] == {"home": 1, "away": 0, "decided_by": "shootout",
                               "winner": "home", "shootout": {"home": 2, "away": 1},
                               "text": "winner: Home, shootout 2:1"}
    assert daemon.operator_web is not None
    status, page, _ = get(daemon.operator_web.url("/"))
    assert status == 200 and "winner: Home, shootout 2:1" in page.decode()
    hall.stop()
