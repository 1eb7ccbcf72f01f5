"""The words in cs, Czech (see firmware_py/words/__init__.py).

Choices, as Czech halls and the Czech rule books (ČSLH ice hockey, ČFbU floorball) say them:

- PERIOD is "PERIODA", not "TŘETINA": the board also plays two-period presets (2 x 20:00),
  where "třetina" (a third) would be wrong; "perioda" is what multi-sport scoreboards in
  Czech halls show and reads right for any number of periods.
- Overtime is "prodloužení" (the period's value "PR"), the shootout "samostatné nájezdy"
  (both sports), stop time "čistý čas" (the clock stops at every whistle), a line change
  "střídání", a suspension "distanc", a forfeit "kontumace".
- A time-out is "TIME-OUT", as Czech boards write it: the rule books' "oddechový čas" does
  not fit beside its time in the indicator column (it showed as "ODDECHOVÝ…").
- Penalty kinds as Czech scoresheets abbreviate them: VT (větší trest), OT (osobní trest),
  OK (osobní trest do konce utkání), TH (trest ve hře); floorball's 10-minute personal
  penalty is also "osobní trest" (OT): one preset never has both.
- Tables as Czech papers print them: Z (zápasy), V (výhry), R (remízy), P (prohry),
  SKÓRE, B (body).
- "NEXT" in the status marks is the console's button as it is labelled, not a word.
"""

WORDS: dict[str, str] = {
    "period": "PERIODA",
    # ---- the hall display
    "display.period": "PERIODA",
    "display.periods": "PERIODY",
    "display.next": "DALŠÍ",
    "display.period.overtime": "PR",
    "display.period.next": "{n}. PER.",
    "display.goal": "GÓL",
    "display.no_scorer": "BEZ STŘELCE",
    "display.extra_player": "HRÁČ NAVÍC",
    "display.intermission": "PŘESTÁVKA",
    "display.overtime_break": "PŘESTÁVKA",  # the period column says PR
    "display.timeout": "TIME-OUT {time}",
    "display.strength": "{home} NA {away}",
    "display.stop": "STOP",
    "display.stop_time": "ČISTÝ ČAS",
    "display.line_change": "STŘÍDÁNÍ {seconds}",
    "display.kind.double_minor": "2+2",
    "display.kind.major": "VT",
    "display.kind.misconduct": "OT",
    "display.kind.game_misconduct": "OK",
    "display.kind.match": "TH",
    "display.kind.personal": "OT",
    "display.kind.bench_minor": "LAVICE",
    "display.final": "KONEC ZÁPASU",
    "display.full_time": "ZÁKLADNÍ HRACÍ DOBA",
    "display.decided.regulation": "V ZÁKLADNÍ HRACÍ DOBĚ",
    "display.decided.overtime": "PO PRODLOUŽENÍ",
    "display.decided.shootout": "PO SAMOSTATNÝCH NÁJEZDECH",
    "display.decided.forfeit": "KONTUMACE",
    "display.shootout": "SAMOSTATNÉ NÁJEZDY",
    "display.shootout.next": "NA ŘADĚ: {team}",
    "display.next_match": "PŘÍŠTÍ ZÁPAS",
    "display.standings": "TABULKA",
    "display.match": "ZÁPAS {match}",
    "display.waiting": "ČEKÁ SE NA ŘEDITELSTVÍ TURNAJE",
    "display.plan.one": "PERIODA: 1 × {length}",
    "display.plan": "PERIODY: {n} × {length}",
    "display.suspended": "DISTANC: {who}",
    "display.countdown.resurfacing": "ÚPRAVA LEDU",
    "display.countdown.warm-up": "ROZCVIČKA",
    "display.countdown.start in": "ZAČÁTEK ZA",
    "display.countdown.start": "ZAČÁTEK",
    "display.group": "SKUPINA {group}",
    "display.table": "TABULKA",
    "display.table.played": "Z",
    "display.table.won": "V",
    "display.table.drawn": "R",
    "display.table.lost": "P",
    "display.table.goals": "SKÓRE",
    "display.table.points": "B",
    "display.status.recording": "NEZAZNAMENÁVÁ SE - CHYBA ÚLOŽIŠTĚ",
    "display.status.damaged": "ZÁZNAM POŠKOZEN NA BAJTU {byte} - PODRŽTE NEXT",
    "display.status.restored": "ČAS OBNOVEN - ZKONTROLUJTE",
    "display.status.set_aside": "JINÉ ZÁZNAMY ODLOŽENY: {what}",
    "display.status.schedule": "ROZPIS NEPOUŽIT: {why}",
    "display.entry": "ZADÁNÍ",
    "display.entry.goal": "GÓL",
    "display.entry.penalty": "TREST",
    "display.entry.kind": "DRUH",
    "display.entry.scorer": "STŘELEC",
    "display.entry.player": "HRÁČ",
    "display.entry.home": "DOMÁCÍ",
    "display.entry.away": "HOSTÉ",
}
