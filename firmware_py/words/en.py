"""The words in en (see firmware_py/words/__init__.py): every key there is, English the
fallback of every other table.

``display.*``: the hall display's (display/screens/), capitals as the board shows them; a
``{field}`` is filled by the screen (a number, a time, a team's name).
"""

WORDS: dict[str, str] = {
    "period": "PERIOD",
    # ---- the hall display: the game screen's period column
    "display.period": "PERIOD",
    "display.periods": "PERIODS",
    "display.next": "NEXT",
    "display.period.overtime": "OT",  # the period's value in overtime
    "display.period.next": "P{n}",  # what comes after a break: period n
    # ---- the game screen's columns and indicators
    "display.goal": "GOAL",
    "display.no_scorer": "NO SCORER",
    "display.extra_player": "EXTRA PLAYER",
    "display.intermission": "INTERMISSION",
    "display.overtime_break": "OVERTIME BREAK",
    "display.timeout": "TIME-OUT {time}",
    "display.strength": "{home} ON {away}",
    "display.stop": "STOP",
    "display.stop_time": "STOP TIME",
    "display.line_change": "LINE CHANGE {seconds}",
    # penalty kinds, short (IIHF scoresheet abbreviations); a minor has none
    "display.kind.double_minor": "2+2",
    "display.kind.major": "MAJ",
    "display.kind.misconduct": "MISC",
    "display.kind.game_misconduct": "GM",
    "display.kind.match": "MP",
    "display.kind.personal": "PERS",
    "display.kind.bench_minor": "BENCH",
    # ---- the final and shootout screens
    "display.final": "FINAL",
    "display.full_time": "FULL TIME",
    "display.decided.regulation": "REGULATION TIME",
    "display.decided.overtime": "AFTER OVERTIME",
    "display.decided.shootout": "AFTER SHOOTOUT",
    "display.decided.forfeit": "FORFEIT",
    "display.shootout": "SHOOTOUT",
    "display.shootout.next": "NEXT: {team}",
    # ---- between games and before the first face-off
    "display.next_match": "NEXT MATCH",
    "display.standings": "STANDINGS",
    "display.match": "MATCH {match}",
    "display.waiting": "WAITING FOR THE OFFICE",
    "display.plan.one": "1 PERIOD OF {length}",
    "display.plan": "{n} PERIODS OF {length}",
    "display.suspended": "SUSPENDED: {who}",
    "display.countdown.resurfacing": "RESURFACING",
    "display.countdown.warm-up": "WARM-UP",
    "display.countdown.start in": "START IN",
    "display.countdown.start": "START",
    "display.group": "GROUP {group}",
    "display.table": "TABLE",
    "display.table.played": "P",
    "display.table.won": "W",
    "display.table.drawn": "D",
    "display.table.lost": "L",
    "display.table.goals": "GOALS",
    "display.table.points": "PTS",
    # ---- the status marks and the operator line (the footer)
    "display.status.recording": "NOT RECORDING - STORAGE FAULT",
    "display.status.damaged": "JOURNAL DAMAGED AT BYTE {byte} - HOLD NEXT",
    "display.status.restored": "CLOCK RESTORED - CHECK",
    "display.status.set_aside": "OTHER JOURNALS SET ASIDE: {what}",
    "display.status.schedule": "SCHEDULE NOT USED: {why}",
    "display.entry": "ENTRY",
    "display.entry.goal": "GOAL",
    "display.entry.penalty": "PENALTY",
    "display.entry.kind": "KIND",
    "display.entry.scorer": "SCORER",
    "display.entry.player": "PLAYER",
    "display.entry.home": "HOME",
    "display.entry.away": "AWAY",
}
