"""The bundled presets as files: base presets and ``extends``, a user's own preset file,
the self-contained text the journal keeps, and ``scoreboard presets --show``."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from arena import presets
from arena.core.commands import Forfeit, Start
from arena.core.errors import PresetError
from arena.core.phase import Team
from arena.core.units import seconds
from arena.core.values import MatchSetup
from firmware_py.cli import main
from firmware_py.journal import Journal
from firmware_py.recorder import open_or_create

PRESET_DIR = Path(presets.__file__).parent
FLOORBALL = ["floorball-2x15", "floorball-2x20", "floorball-u9-2x10"]

# floorball-2x15.toml as journals written before `extends` hold it: one plain text, its
# citations in comments. Such a journal must still replay.
OLD_FLOORBALL_TEXT = '''name = "floorball-2x15"
summary = "Floorball group matches 2 x 15 min raw time, 2 min break, draws stand"
rules = """Rules 001, 'Playing time': in the basic groups 2 x 15 mins. 'Shootouts': play-off games
are played to a decision by a shootout. The break length is not stated; 2 minutes is our
choice (a set_clock during the break changes it)."""

[clock]
periods = 2
period_s = 900
breaks_s = [120]
tenths_below_s = 60

[field]
players = 5          # 5 + 1 goalkeeper (rules 001 'Playing time'; IFF 301)
minimum = 3          # IFF 301: at least three field players on the court

[decision]
stages = ["playoff"]
shootout = true

# IFF Rules of the Game 2022: bench penalties of 2, 2+2 and 5 minutes (603), a 10 min personal
# penalty served by the player alone, always given with a minor bench penalty, which is
# entered as its own "minor" (609), match penalty: the team serves 5 minutes and the player is
# gone (rules 001 'Exclusion of a player': the red card).
[penalties]
max_shorthanded = 2   # IFF 603.3: two bench penalties per team measured at once

[penalties.kinds.minor]
parts_s = [120]
releasable = true     # a goal against the shorthanded team ends it (IFF 603)

[penalties.kinds.double_minor]
parts_s = [120, 120]
releasable = true

[penalties.kinds.major]
parts_s = [300]

[penalties.kinds.personal]
parts_s = [600]
shorthanded = false

[penalties.kinds.match]
parts_s = [300]
ejects = true
recorded_min = 25

[shootout]
# Rules 001 'Playing the shootout': three shots, then sudden death; the first series'
# shooters may shoot again. Who starts is not stated: chosen on the day (the first shot).
rounds = 3
first = "chosen"

[timeouts]
# Rules 001 'Time-out': only in play-off matches; IFF 407: one per team, 30 s, clock stopped.
per_team = 1
length_s = 30
stages = ["playoff"]

[standings]
# Rules 001 'Qualifying criteria': 1 points, 2 points from the mutual match, 3 score (goal
# difference) from the mutual match, 4 total score (overall goal difference), 5 random draw;
# for three or more level the same on their mutual matches, restarting for those still level.
# Points are not stated in 001: IFF's 2 a win, 1 a draw. 'Protests': 15 minutes after the end.
points = {win = 2, draw = 1, loss = 0}
tiebreak = ["head_to_head_points", "head_to_head_goal_difference", "goal_difference", "lots"]
protest_window_min = 15

# Rules 001 'Exclusion of a player': red card 1 until the end of the match, red card 2 an
# automatic ban from the next match, red card 3 the rest of the tournament. A red card is
# the match penalty (IFF 613).
[[standings.suspensions]]
name = "red card"
kinds = ["match"]
bans = [0, 1, "rest"]
'''


# ---------------------------------------------------------------- base presets


def test_a_base_preset_is_not_a_playable_preset_name() -> None:
    assert presets.base_names() == ["floorball-base"]
    assert "floorball-base" not in presets.names()
    assert not set(presets.base_names()) & set(presets.names())
    with pytest.raises(PresetError, match=r"unknown preset 'floorball-base' .*'floorball-base' "
                       r"is a base preset"):
        presets.load("floorball-base")


@pytest.mark.parametrize("name", FLOORBALL)
def test_the_floorball_presets_state_their_shared_rules_once(name: str) -> None:
    # Rules 001: what every floorball category shares is in floorball-base; each preset adds
    # its 'Playing time' only.
    own = tomllib.loads((PRESET_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    assert own["extends"] == "floorball-base"
    assert set(own) <= {"extends", "name", "summary", "rules", "clock", "field"}
    assert set(own["clock"]) <= {"period_s", "stop_time", "cite"}
    preset = presets.load(name)
    # Rules 001 'Time-out' (play-offs only), 'Playing the shootout' (three shots), 'Protests'
    # (15 minutes), "Player's start" (0:5), all from the base.
    assert preset.timeouts is not None and preset.shootout is not None
    assert preset.shootout.rounds == 3 and preset.standings.protest_window_s == 15 * 60
    assert preset.forfeit_goals == 5


def test_the_floorball_presets_are_what_they_were_before_extends() -> None:
    # The same rules as the one-file preset of before (citations aside, now data), but for
    # what was added since: IFF 603.3's shorter-first order of penalties given together,
    # IFF 608's match penalty before or after the match without bench time, the strict order of
    # shootout shots and three different shooters in the first series (rules 001, 'Playing
    # the shootout'). The old text (as a journal holds it) still reads as it played: none
    # is on by default.
    before = presets.parse_journalled(OLD_FLOORBALL_TEXT, "floorball-2x15.toml")
    now = presets.load("floorball-2x15")
    assert before.citations == {} and now.citations
    assert now.penalties.shorter_first and not before.penalties.shorter_first
    assert now.penalties.ejection_only_outside_match
    assert not before.penalties.ejection_only_outside_match
    assert now.shootout is not None and before.shootout is not None
    assert now.shootout.strict_order and not before.shootout.strict_order
    assert now.shootout.distinct_first_series and not before.shootout.distinct_first_series
    assert before == type(now)(**{**{f: getattr(now, f) for f in now.__dataclass_fields__},
                                  "citations": {},
                                  "penalties": replace(now.penalties, shorter_first=False,
                                                       ejection_only_outside_match=False),
                                  "shootout": replace(now.shootout, strict_order=False,
                                                      distinct_first_series=False)})


# ---------------------------------------------------------------- a user's own preset


def _write(tmp_path: Path, text: str, name: str = "club.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_users_own_preset_may_extend_a_bundled_base(tmp_path: Path) -> None:
    path = _write(tmp_path, """
extends = "floorball-base"
name = "club-floorball-2x12"
summary = "Club floorball 2 x 12 min"
rules = "Our club cup: 2 x 12 minutes, otherwise rules 001."
[clock]
period_s = 720
cite.period_s = "club cup rules: 2 x 12 minutes"
""")
    preset = presets.load_file(path)
    assert preset.name == "club-floorball-2x12" and preset.period_length == seconds(720)
    assert preset.cite("clock.period_s") == "club cup rules: 2 x 12 minutes"
    assert preset.timeouts is not None  # rules 001 'Time-out', from the base


def test_a_users_own_preset_may_extend_a_playable_preset(tmp_path: Path) -> None:
    path = _write(tmp_path, """
extends = "ice-hockey-2x20"
name = "ice-hockey-2x20-long-break"
[clock]
breaks_s = [300]
""")
    preset = presets.load_file(path)
    assert preset.breaks == (seconds(300),)
    assert preset.summary == presets.load("ice-hockey-2x20").summary  # inherited
    assert preset.cite("clock.breaks_s") is None  # the base's citation is not its reason


def test_a_bad_users_preset_names_its_file_and_key(tmp_path: Path) -> None:
    path = _write(tmp_path, 'extends = "floorball"\nname = "x"\n')
    with pytest.raises(PresetError, match=rf"^{path}: extends: unknown preset 'floorball' "
                       r"\(one of floorball-base, floorball-2x15"):
        presets.load_file(path)
    path = _write(tmp_path, 'extends = "floorball-base"\nname = "x"\nsummary = "s"\n'
                  'rules = "r"\n[clock]\nperiod_s = "long"\n')
    with pytest.raises(PresetError, match=rf"^{path} \(extends base/floorball-base.toml\): "
                       r"clock.period_s: must be a whole number"):
        presets.load_file(path)


# ---------------------------------------------------------------- the journal's text


@pytest.mark.parametrize("name", presets.names())
def test_the_journal_text_is_self_contained_and_the_same_preset(name: str) -> None:
    text, source = presets.bundled_text(name)
    kept = presets.journal_text(text, source)
    assert "extends" not in tomllib.loads(kept)
    assert presets.parse_journalled(kept, source) == presets.load(name)
    if "extends" not in tomllib.loads(text):
        assert kept == text  # a plain preset is kept as it is, comments and all


def test_a_journal_replays_without_the_files_it_was_made_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The user's file extends a bundled base; both may change or vanish after the match.
    path = _write(tmp_path, 'extends = "floorball-2x15"\nname = "club"\n[forfeit]\ngoals = 7\n')
    text, source = presets.text("unused", path)
    journal_path = tmp_path / "M1.journal"
    resumed = open_or_create(journal_path, text, source, MatchSetup())
    resumed.recorder.command(Start(seconds(1)))
    resumed.recorder.command(Forfeit(seconds(2), Team.HOME))
    resumed.recorder.journal.close()
    path.unlink()

    def no_files(name: str) -> None:
        raise AssertionError(f"replay read the preset {name!r} from a file")

    monkeypatch.setattr(presets, "_load_base", no_files)
    again = open_or_create(journal_path, "ignored", "ignored", MatchSetup())
    try:
        result = again.recorder.match.state.result
        assert result is not None and (result.home, result.away) == (0, 7)
        assert again.recorder.match.preset.period_length == seconds(900)
    finally:
        again.recorder.journal.close()
    journal, recovery = Journal.open(journal_path)
    journal.close()
    kept = recovery.records[0]["preset_toml"]
    assert kept.startswith(f"# {path} (extends floorball-2x15.toml, base/floorball-base.toml)")


def test_an_old_journal_with_a_plain_preset_text_still_replays(tmp_path: Path) -> None:
    journal_path = tmp_path / "M1.journal"
    first = open_or_create(journal_path, OLD_FLOORBALL_TEXT, "floorball-2x15.toml",
                           MatchSetup())
    first.recorder.command(Start(seconds(1)))
    first.recorder.journal.close()
    journal, recovery = Journal.open(journal_path)
    journal.close()
    assert recovery.records[0]["preset_toml"] == OLD_FLOORBALL_TEXT  # kept as it was
    again = open_or_create(journal_path, "ignored", "ignored", MatchSetup())
    again.recorder.journal.close()
    assert again.recorder.match.state == first.recorder.match.state


def test_a_journalled_preset_must_be_self_contained() -> None:
    text, source = presets.bundled_text("floorball-2x15")
    with pytest.raises(PresetError, match=r"^floorball-2x15.toml: extends: a journalled "
                       r"preset must be self-contained"):
        presets.parse_journalled(text, source)


# ---------------------------------------------------------------- presets --show


def _show(capsys: pytest.CaptureFixture[str], name: str) -> list[str]:
    assert main(["presets", "--show", name]) == 0
    return capsys.readouterr().out.splitlines()


def _cited(lines: list[str], field: str) -> str:
    """The citation printed under ``field = ...``."""
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{field} = "))
    return lines[at + 1].strip()


def test_show_ice_hockey_cites_rules_000(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _show(capsys, "ice-hockey-2x20")
    assert lines[0].startswith("ice-hockey-2x20: Ice hockey 2 x 20 min")
    assert "clock.period_s = 1200" in lines
    # Rules 000 'Rules': 2 x 20 minutes (raw time); the last minute of period 2 clear time.
    assert _cited(lines, "clock.period_s").startswith("rules 000, 'Rules': the duration")
    assert _cited(lines, "clock.stop_time[0].last_s").startswith("rules 000, 'Rules'")
    assert _cited(lines, "forfeit.goals").endswith("with the result of 0:5")
    assert _cited(lines, "penalties.kinds.misconduct.parts_s").startswith(
        "rules 000, 'Penalties'")
    assert "(no citation)" not in lines


def test_show_floorball_resolves_its_base_and_cites_rules_001(
        capsys: pytest.CaptureFixture[str]) -> None:
    lines = _show(capsys, "floorball-2x15")
    assert lines[1] == "  from floorball-2x15.toml (extends base/floorball-base.toml)"
    # Rules 001 'Playing time': in the basic groups 2 x 15 mins (its own file) ...
    assert "clock.period_s = 900" in lines
    assert _cited(lines, "clock.period_s") == ("rules 001, 'Playing time': in the basic "
                                               "groups 2 x 15 mins")
    # ... and 'Time-out' from the base.
    assert 'timeouts.stages = ["playoff"]' in lines
    assert _cited(lines, "timeouts.stages").startswith("rules 001, 'Time-out'")
    assert "(no citation)" not in lines


def test_show_youth_hockey_cites_rules_002(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _show(capsys, "youth-hockey-3x18")
    # Rules 002 'Overtime': 6 min, or until a golden goal.
    assert "decision.sudden_death = true" in lines
    assert _cited(lines, "decision.sudden_death").startswith("rules 002, 'Overtime'")
    assert _cited(lines, "shifts.length_s").startswith("rules 002, 'Rules'")
    assert _cited(lines, "forfeit.goals").startswith("not stated in rules 002")


def test_show_football_cites_rules_003(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _show(capsys, "football-p10")
    # Rules 003 'Match rules': P10 extra player at a 5-goal deficit, lost at 2.
    assert "extra_player.lead = 5" in lines
    assert _cited(lines, "extra_player.lead").startswith("rules 003, 'Match rules'")
    assert "forfeit.goals = 3" in lines
    assert _cited(lines, "forfeit.goals").startswith("not stated in rules 003")
    assert _cited(lines, "standings.protest_window_min").startswith("rules 003, 'Protests'")


def test_show_a_users_file_marks_what_is_not_cited(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, 'extends = "football-p08"\nname = "mine"\n[clock]\n'
                  'period_s = 1200\n')
    lines = _show(capsys, str(path))
    assert _cited(lines, "clock.period_s") == "(no citation)"
    assert _cited(lines, "clock.periods").startswith("rules 003, 'General'")


def test_show_an_unknown_preset_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets", "--show", "curling"]) == 2
    assert "unknown preset 'curling'" in capsys.readouterr().err


def test_presets_help_explains_show_and_citations(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["presets", "--help"])
    out = capsys.readouterr().out
    assert "--show NAME" in out and "cite." in out and "extends" in out


def test_the_example_of_a_users_own_preset_loads_and_is_cited(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = PRESET_DIR.parents[1] / "examples" / "presets" / "club-floorball-2x12.toml"
    preset = presets.load_file(path)
    assert (preset.period_length, preset.breaks) == (seconds(720), (seconds(180),))
    lines = _show(capsys, str(path))
    assert "(no citation)" not in lines
    assert _cited(lines, "clock.breaks_s") == "club cup rules: 3 minutes between periods"
