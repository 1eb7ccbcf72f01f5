"""The words in sr, Serbian in Latin script (see firmware_py/words/__init__.py).

Choices, as Serbian halls and the Serbian hockey and floorball federations say them:

- PERIOD is "PERIOD" (periods "PERIODI"); overtime "produžetak" (the period's value
  "PR"), a break "pauza", a time-out "tajm-aut", stop time "čisto vreme", a line change
  "izmena", a goal "gol", a penalty being entered "isključenje".
- The shootout is "penali" ("posle penala"), as Serbian reports call it in both sports; a
  forfeit is recorded as a "službeni rezultat" (official result).
- Penalty kinds: VK (velika kazna), DK (disciplinska kazna), DKU (disciplinska kazna do
  kraja utakmice), KU (kazna za utakmicu), LK (lična kazna, floorball's 10 minutes),
  KLUPA (a bench minor).
- Tables: U (utakmice), P (pobede), N (nerešeno), I (izgubljeno), GOLOVI, B (bodovi).
- Latin script only: the display's font has every letter (Č Ć Đ Š Ž).
- "NEXT" in the status marks is the console's button as it is labelled, not a word.
"""

WORDS: dict[str, str] = {
    "period": "PERIOD",
    # ---- the hall display
    "display.period": "PERIOD",
    "display.periods": "PERIODI",
    "display.next": "SLEDI",
    "display.period.overtime": "PR",
    "display.period.next": "{n}. PER.",
    "display.goal": "GOL",
    "display.no_scorer": "BEZ STRELCA",
    "display.extra_player": "IGRAČ VIŠE",
    "display.intermission": "PAUZA",
    "display.overtime_break": "PAUZA",  # the period column says PR
    "display.timeout": "TAJM-AUT {time}",
    "display.strength": "{home} NA {away}",
    "display.stop": "STOP",
    "display.stop_time": "ČISTO VREME",
    "display.line_change": "IZMENA {seconds}",
    "display.kind.double_minor": "2+2",
    "display.kind.major": "VK",
    "display.kind.misconduct": "DK",
    "display.kind.game_misconduct": "DKU",
    "display.kind.match": "KU",
    "display.kind.personal": "LK",
    "display.kind.bench_minor": "KLUPA",
    "display.final": "KRAJ UTAKMICE",
    "display.full_time": "KRAJ",
    "display.decided.regulation": "U REGULARNOM VREMENU",
    "display.decided.overtime": "POSLE PRODUŽETKA",
    "display.decided.shootout": "POSLE PENALA",
    "display.decided.forfeit": "SLUŽBENI REZULTAT",
    "display.shootout": "PENALI",
    "display.shootout.next": "SLEDI: {team}",
    "display.next_match": "SLEDEĆA UTAKMICA",
    "display.standings": "TABELA",
    "display.match": "UTAKMICA {match}",
    "display.waiting": "ČEKA SE DIREKCIJA TURNIRA",
    "display.plan.one": "PERIOD: 1 × {length}",
    "display.plan": "PERIODI: {n} × {length}",
    "display.suspended": "SUSPENDOVANI: {who}",
    "display.countdown.resurfacing": "PRIPREMA LEDA",
    "display.countdown.warm-up": "ZAGREVANJE",
    "display.countdown.start in": "POČETAK ZA",
    "display.countdown.start": "POČETAK",
    "display.group": "GRUPA {group}",
    "display.table": "TABELA",
    "display.table.played": "U",
    "display.table.won": "P",
    "display.table.drawn": "N",
    "display.table.lost": "I",
    "display.table.goals": "GOLOVI",
    "display.table.points": "B",
    "display.status.recording": "NE SNIMA SE - GREŠKA SKLADIŠTA",
    "display.status.damaged": "DNEVNIK OŠTEĆEN NA BAJTU {byte} - DRŽI NEXT",
    "display.status.restored": "SAT VRAĆEN - PROVERI",
    "display.status.set_aside": "DRUGI DNEVNICI SKLONJENI: {what}",
    "display.status.schedule": "RASPORED NIJE KORIŠĆEN: {why}",
    "display.entry": "UNOS",
    "display.entry.goal": "GOL",
    "display.entry.penalty": "ISKLJUČENJE",
    "display.entry.kind": "VRSTA",
    "display.entry.scorer": "STRELAC",
    "display.entry.player": "IGRAČ",
    "display.entry.home": "DOMAĆI",
    "display.entry.away": "GOSTI",
}
