"""What the demo plays: its tournament files, their matches and the timekeeper's scripts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from office.files import load_tournament

REPO = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO / "examples" / "demo"
# The demo's tournaments, in the order they are started and printed: file stem = the folder
# of its scripts.
DEMO_TOURNAMENTS = ("hockey", "football")


class DemoError(Exception):
    """Something the demo cannot go on without; the message says what."""


@dataclass(frozen=True)
class DemoMatch:
    id: str
    preset: str
    stage: str  # the hall's stage: "group" or "playoff"
    home: str
    away: str
    home_colours: tuple[str, str] | None = None  # shirt and number, from the tournament file
    away_colours: tuple[str, str] | None = None


@dataclass(frozen=True)
class DemoTournament:
    """One tournament of the demo: its file, its scripts and its one hall."""

    file: Path  # examples/demo/hockey.toml: its scripts in examples/demo/hockey/
    scripts: Path
    id: str
    name: str
    hall: str
    matches: tuple[DemoMatch, ...]
    tiebreak: tuple[str, ...] = ()  # two teams level on points: the criteria, in order
    protest_window_min: int = 0

    def script(self, match: str) -> Path:
        return self.scripts / f"{match}.jsonl"


def load_demo_tournaments(folder: Path = DEMO_DIR,
                          keys: Sequence[str] = DEMO_TOURNAMENTS) -> list[DemoTournament]:
    """The demo's tournaments, checked: one hall each, a script for every match, and no
    two tournaments in the same hall."""
    loaded: list[DemoTournament] = []
    for key in keys:
        path = folder / f"{key}.toml"
        t = load_tournament(path)
        halls = t.halls()
        if len(halls) != 1:
            raise DemoError(f"{path}: the demo plays each tournament in one hall, "
                            f"this one has {len(halls)}: {', '.join(halls)}")
        colours = {name: (team.colours[0], team.colours[1])
                   for name, team in t.teams.items() if team.colours}
        matches = tuple(
            DemoMatch(m.id, m.preset, "playoff" if m.stage.decided else "group",
                      m.home.label(), m.away.label(), colours.get(m.home.label()),
                      colours.get(m.away.label()))
            for m in t.matches)
        demo = DemoTournament(path, folder / key, t.id, t.name, halls[0], matches,
                              tuple(c.value.replace("_", " ") for c in t.rules.tiebreak),
                              t.rules.protest_window_s // 60)
        missing = [m.id for m in matches if not demo.script(m.id).is_file()]
        if missing:
            raise DemoError(f"{path}: no timekeeper's script for {', '.join(missing)} "
                            f"(expected {demo.scripts}/<match id>.jsonl)")
        loaded.append(demo)
    used = [d.hall for d in loaded]
    if len(set(used)) != len(used):
        raise DemoError(f"two demo tournaments share a hall: {', '.join(used)}")
    return loaded


def shown(path: Path) -> str:
    """A path in the repository as the user would type it from there."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)
