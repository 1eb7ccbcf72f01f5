"""Which match is on the board: the first one at start (the journal to restore, after
setting aside those of another tournament or hall), the next one loaded from the office's
``next`` or the local schedule, and the replay script played on it."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.core.units import NS_PER_S
from firmware_py.logfmt import kv
from firmware_py.matchfiles import MatchFiles
from firmware_py.nextmatch import replay_above, setup_from_next
from firmware_py.outbox import SeqLog
from firmware_py.recorder import current_game
from firmware_py.runconfig import preset_text
from firmware_py.script import ScriptLine, parse_script
from firmware_py.scriptplayer import ScriptPlayer, origin_of, played_lines
from firmware_py.session import Session, open_session

if TYPE_CHECKING:
    from firmware_py.daemon import Daemon

log = logging.getLogger("firmware_py.daemon")

# A scripted match loaded from `next` starts this much later (its between-games screen shows).
SCRIPTED_PREGAME_NS = 20 * NS_PER_S
UNCLAIMED = "unclaimed"  # where a board that could not claim its state folder would write


class MatchLoader:
    """Opens the sessions of the matches the board plays, one after the other."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        # The `next` the board's match came from, if any (its time, label, suspensions).
        self.loaded_next: Mapping[str, object] | None = None
        # Where journals of another tournament or hall were moved at start (for the
        # timekeeper's status), relative to the state directory; None if there were none.
        self.set_aside: str | None = None

    def _claim(self) -> None:
        """Before anything is replayed or sent: journals of another tournament or hall (or
        of no recorded one) must never reach this tournament's office."""
        daemon = self._daemon
        link_cfg = daemon.config.mqtt
        if link_cfg is None:
            return
        try:
            aside = daemon.files.claim(link_cfg.tournament, link_cfg.hall)
        except OSError as err:
            # They cannot be moved (a read-only card): neither read nor send them. The
            # board plays from memory, on journals in a folder that cannot be made
            # either, and says so; a start with the card writable sets them aside.
            kv(log, logging.ERROR, "journals of another tournament or hall cannot be set "
               "aside: the state folder cannot be written; playing from memory",
               folder=daemon.files.dir, problem=str(err))
            self.set_aside = "NOT CHECKED - STATE FOLDER READ-ONLY"
            daemon.files = MatchFiles(daemon.files.dir / UNCLAIMED)
            return
        if aside is not None:
            self.set_aside = str(aside.relative_to(daemon.files.dir))
            kv(log, logging.WARNING, "journals of another tournament or hall set aside",
               folder=aside, tournament=link_cfg.tournament, hall=link_cfg.hall)

    def open_first(self) -> Session:
        """The match the board is on (restored from its journal), else the schedule's first
        one here, else the config's."""
        daemon = self._daemon
        cfg, opts = daemon.config, daemon.options
        self._claim()
        current = daemon.files.current()
        match_cfg = cfg.match
        setup = match_cfg.setup
        toml_text, source = preset_text(match_cfg.preset, match_cfg.preset_file)
        first = daemon.plan.first(current)
        if first is not None:
            # A fresh hall with a schedule: its first match here instead of the config's.
            self.loaded_next = first
            name, setup = setup_from_next(first)
            toml_text, source = preset_text(name, None)
        elif current is not None and current != setup.match_id:
            # The board was on another match (loaded from `next`): its journal holds its
            # setup; the config's match is only what a fresh hall plays first.
            setup = type(setup)(match_id=current)
        path = daemon.files.journal(setup.match_id)
        session = open_session(path, toml_text, source, setup, timeline=daemon.timeline,
                               boot=daemon.boot, wall=daemon.timetable.wall,
                               adopt_timeline=True)
        daemon.session = session
        if current != setup.match_id:
            daemon.storage.set_current(setup.match_id)
        match = session.recorder.match
        kv(log, logging.INFO, "match on the board", match=session.match_id,
           preset=match.preset.name, phase=match.state.phase.value,
           seq=match.state.seq, restored=session.restored,
           recording=session.recorder.recording)
        daemon.storage.check()  # a read-only or full disk at start: said at once
        daemon.storage.damage_found()
        script = opts.script
        if script is None and opts.script_dir is not None:
            candidate = opts.script_dir / f"{session.match_id}.jsonl"
            script = candidate if candidate.exists() else None
        if script is not None:
            self.start_script(script)
        return session

    def load_next(self, doc: dict[str, Any]) -> None:
        """``doc`` (a ``next`` document) onto the board: its journal opened (a replay as a
        fresh game), the current pointer, the link's outbox, the keypad and the layout."""
        daemon = self._daemon
        console, horn = daemon.console, daemon.horn
        if console is None or horn is None:
            raise RuntimeError("a next match is loaded after start()")
        self.loaded_next = doc
        name, setup = setup_from_next(doc)
        toml_text, source = preset_text(name, None)
        old = daemon.session_on_board()
        path = daemon.files.journal(setup.match_id)
        if path == old.path:
            old.close()  # the board's match replayed: one writer on its journal
        new = open_session(path, toml_text, source, setup, timeline=daemon.timeline,
                           boot=daemon.boot, wall=daemon.timetable.wall,
                           adopt_timeline=False, replay_above=replay_above(doc))
        daemon.storage.set_current(setup.match_id)
        # The old journal is closed; its outbox stays with the link, drained first.
        old.close()
        if daemon.script is not None:
            daemon.script.close()
            daemon.script = None
        daemon.session = new
        daemon.storage.damage_found()  # that match's journal may be damaged too: ask first
        replayed = new.recorder.replay_above
        if replayed is not None:
            kv(log, logging.WARNING, "replay: the office voided the result, a fresh game",
               match=new.match_id, numbered_above=replayed)
            daemon.feedback.note(new.match_id, None, daemon.timeline.now(),
                                 key="press.replay")
        daemon.office.follow(new)
        preset = new.recorder.match.preset
        console.new_match(list(preset.penalties.kinds), preset.forfeit_goals)
        daemon.plan.offer_choices()
        daemon.screen.lay_out()
        daemon.outputs.forget()
        kv(log, logging.INFO, "next match loaded", match=setup.match_id, preset=name,
           stage=setup.stage.value, home=setup.home.name, away=setup.away.name,
           previous=old.match_id)
        if daemon.options.script_dir is not None:
            script = daemon.options.script_dir / f"{setup.match_id}.jsonl"
            if script.exists():
                # As in a hall: the teams line up while the between-games screen shows the
                # match and the tables, then the timekeeper starts the clock.
                self.start_script(script, delay=SCRIPTED_PREGAME_NS)
        horn.poke()
        daemon.dirty = True

    def start_script(self, path: Path, delay: int = 0) -> None:
        """Play ``path`` on the match on the board, from now + ``delay`` (match time)."""
        daemon = self._daemon
        session = daemon.session_on_board()
        lines: list[ScriptLine] = parse_script(path.read_text(encoding="utf-8"), str(path))
        records = current_game(session.records)  # a replayed match plays its script anew
        origin = origin_of(records)
        if origin is None:
            origin = daemon.timeline.now() + delay
            session.recorder.note({"type": "script", "origin": origin, "name": path.name})
            session.new_records()
        try:
            progress = SeqLog(daemon.files.script_progress(
                session.match_id, session.recorder.replay_above))
        except OSError as err:
            # A read-only state folder: play the script all the same (only a restart could
            # then play a refused line twice, and nothing is journalled meanwhile anyway).
            kv(log, logging.WARNING, "script progress not kept", problem=str(err))
            progress = SeqLog(Path(os.devnull))
        done = played_lines(records) | progress.values
        daemon.script = ScriptPlayer(str(path), lines, origin, done, progress)
        kv(log, logging.INFO, "script", match=session.match_id, file=path,
           lines=len(lines), already_played=len(done), origin=origin)
