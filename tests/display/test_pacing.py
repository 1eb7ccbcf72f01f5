"""Frames at the instants the shown state changes, each showing the value for its instant."""

from __future__ import annotations

from arena.core.commands import Start, Stop
from arena.core.state import state_document
from display.pacing import IDLE_NS, MAX_LEAD_NS, MIN_LEAD_NS, FramePacer
from display.values import clock_text
from tests.core.helpers import Game, S

MS = 1_000_000


def test_a_frame_is_planned_at_the_deadline_and_drawn_before_it() -> None:
    pacer = FramePacer(lambda now: now + 40 * MS, lead_ns=8 * MS)
    plan = pacer.plan(1_000 * MS)
    assert plan.present_at == 1_040 * MS
    assert plan.render_at == 1_032 * MS


def test_without_a_deadline_a_frame_comes_every_idle_period() -> None:
    pacer = FramePacer(lambda now: None)
    assert pacer.plan(5 * MS).present_at == 5 * MS + IDLE_NS
    far = FramePacer(lambda now: now + 10 * IDLE_NS)
    assert far.plan(0).present_at == IDLE_NS


def test_a_deadline_already_passed_is_drawn_at_once() -> None:
    pacer = FramePacer(lambda now: now - 5 * MS)
    plan = pacer.plan(100 * MS)
    assert plan.present_at == plan.render_at == 100 * MS


def test_the_lead_follows_the_drawing_time_within_bounds() -> None:
    pacer = FramePacer(lambda now: None, lead_ns=8 * MS)
    pacer.rendered(20 * MS)  # a slow frame: at once enough lead for it
    assert pacer.lead_ns >= 20 * MS * 3 // 2
    for _ in range(100):
        pacer.rendered(1 * MS)  # fast frames: the lead comes down slowly
    assert MIN_LEAD_NS <= pacer.lead_ns < 5 * MS
    pacer.rendered(10_000 * MS)
    assert pacer.lead_ns == MAX_LEAD_NS


def test_every_frame_shows_the_value_of_its_instant_and_no_frame_is_wasted() -> None:
    """Driven by the core's display_deadline through the last minute and a half: a frame at
    each whole second, then at each tenth; each shows a new value, and the value just before
    its instant is the previous frame's (so no frame shows a tenth that is already over, nor
    one before its time). At zero the period ends and the break screen follows."""
    game = Game("ice-hockey-2x20")
    game.do(Start(0))
    game.do(Stop(S(1110.25)))
    game.do(Start(S(1112)))  # 89.75 s left, running: a quarter second off the beat
    pacer = FramePacer(game.match.display_deadline)
    now, shown = S(1112), clock_text(game.at(1112)["clock_ms"])
    frames = []
    while True:
        plan = pacer.plan(now)
        before = clock_text(state_document(game.match, plan.present_at - 1)["clock_ms"])
        game.match.advance(plan.present_at)
        doc = state_document(game.match, plan.present_at)
        if doc["phase"] != "period":
            break
        value = clock_text(doc["clock_ms"])
        assert value != shown and before == shown, (plan.present_at, shown, value)
        frames.append(value)
        shown, now = value, plan.present_at
    assert frames[:3] == ["01:29", "01:28", "01:27"]
    assert frames[29:32] == ["01:00", "59.9", "59.8"]
    assert frames[-1] == "00.1" and len(frames) == 30 + 599
    assert plan.present_at == S(1201.75)  # the break begins at the period's exact end


def test_a_late_wake_up_draws_the_frame_for_now_at_once() -> None:
    """The frame on the screen shows the tenth of 1.000 s; the loop wakes at 1.120 s, past
    the 1.100 s change: the next frame is for now, not for 1.200 s (the 1.1 tenth would
    never be shown and the over one would stay up)."""
    pacer = FramePacer(lambda now: (now // (100 * MS) + 1) * 100 * MS, lead_ns=8 * MS)
    late = pacer.plan(1_120 * MS, shown=1_000 * MS)
    assert late.present_at == late.render_at == 1_120 * MS
    assert pacer.plan(1_120 * MS).present_at == 1_200 * MS  # no frame on the screen yet
    on_time = pacer.plan(1_050 * MS, shown=1_000 * MS)
    assert (on_time.present_at, on_time.render_at) == (1_100 * MS, 1_092 * MS)
