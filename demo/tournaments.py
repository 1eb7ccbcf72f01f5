"""What the demo plays: its event file (categories sharing halls), its matches and the
timekeeper's scripts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.tournament.files import load_event

REPO = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO / "examples" / "demo"
# The demo's event: examples/demo/event.toml, its scripts in examples/demo/event/.
DEMO_EVENT = "event"


class DemoError(Exception):
    """Something the demo cannot go on without; the message says what."""


@dataclass(frozen=True)
class DemoMatch:
    id: str
    preset: str
    stage: str  # the hall's stage: "group" or "playoff"
    home: str  # a team, or the bracket slot in words ("1st A") until the office fills it
    away: str
    home_colours: tuple[str, str] | None = None  # shirt and number, from the tournament file
    away_colours: tuple[str, str] | None = None
    category: str = ""
    hall: str = ""


@dataclass(frozen=True)
class DemoCategory:
    name: str
    presets: tuple[str, ...]
    tiebreak: tuple[str, ...] = ()  # two teams level on points: the criteria, in order
    protest_window_min: int = 0


@dataclass(frozen=True)
class DemoEvent:
    """The demo's event: its file, its scripts (one folder for every hall), its categories
    and every match in schedule order."""

    file: Path  # examples/demo/event.toml: its scripts in examples/demo/event/
    scripts: Path
    id: str
    name: str
    categories: tuple[DemoCategory, ...]
    matches: tuple[DemoMatch, ...]

    def script(self, match: str) -> Path:
        return self.scripts / f"{match}.jsonl"

    def halls(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.hall for m in self.matches))

    def hall_matches(self, hall: str) -> tuple[DemoMatch, ...]:
        """What ``hall`` plays, in its order: the first in its config, the rest as ``next``."""
        return tuple(m for m in self.matches if m.hall == hall)


def load_demo_event(folder: Path = DEMO_DIR, key: str = DEMO_EVENT) -> DemoEvent:
    """The demo's event, checked: at least two categories sharing at least two halls (each
    hall plays more than one category), and a script for every match."""
    path = folder / f"{key}.toml"
    event = load_event(path)
    matches: list[DemoMatch] = []
    for category, m in event.schedule():
        t = category.tournament
        colours = {name: (team.colours[0], team.colours[1])
                   for name, team in t.teams.items() if team.colours}
        matches.append(DemoMatch(
            m.id, m.preset, m.stage.played_as.value, m.home.label(),
            m.away.label(), colours.get(m.home.label()), colours.get(m.away.label()),
            category.name, m.hall))
    categories = tuple(
        DemoCategory(c.name, tuple(sorted({m.preset for m in c.tournament.matches})),
                     tuple(k.value.replace("_", " ") for k in c.tournament.rules.tiebreak),
                     c.tournament.rules.protest_window_s // 60)
        for c in event.categories)
    demo = DemoEvent(path, folder / key, event.id, event.name, categories, tuple(matches))
    if len(categories) < 2 or len(demo.halls()) < 2:
        raise DemoError(f"{path}: the demo plays at least two categories in at least two "
                        f"halls; this event has {len(categories)} in {len(demo.halls())}")
    for hall in demo.halls():
        shared = {m.category for m in demo.hall_matches(hall)}
        if len(shared) < 2:
            raise DemoError(f"{path}: {hall} plays only {', '.join(shared)}: the demo's halls "
                            "are shared by the categories")
    missing = [m.id for m in matches if not demo.script(m.id).is_file()]
    if missing:
        raise DemoError(f"{path}: no timekeeper's script for {', '.join(missing)} "
                        f"(expected {demo.scripts}/<match id>.jsonl)")
    return demo


def shown(path: Path) -> str:
    """A path in the repository as the user would type it from there."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)
