"""The words in fi, Finnish (see firmware_py/words/__init__.py).

Choices, as Finnish halls and the Finnish rule books (Jääkiekkoliitto, Salibandyliitto) say
them:

- PERIOD is "ERÄ" (periods "ERÄT"), overtime "jatkoaika" (the period's value "JA"), a break
  "erätauko", a time-out "aikalisä", stop time "tehollinen aika" (the clock stops at every
  whistle), a line change "vaihto", a goal "maali", a penalty being entered "jäähy", the
  shootout "voittolaukaukset", a suspension "pelikielto".
- STOP is "SEIS", the Finnish word a table official calls; "NEXT" over the coming period
  is "SEUR." (seuraava), the one Finnish word short enough for a 4:3 board's narrow column.
- Penalty kinds as Finnish scoresheets abbreviate them: ISO (iso rangaistus), KR
  (käytösrangaistus), PR (pelirangaistus), OR (ottelurangaistus), HR (henkilökohtainen
  rangaistus, floorball's 10 minutes), JOUK (joukkuerangaistus, a bench minor).
- Tables: O (ottelut), V (voitot), T (tasapelit), H (häviöt), MAALIT, P (pisteet).
- Plurals after a number ("2 erää") are avoided: "ERÄT: 2 × 20:00" reads for any count.
- "NEXT" in the status marks is the console's button as it is labelled, not a word.
"""

WORDS: dict[str, str] = {
    "period": "ERÄ",
    # ---- the hall display
    "display.period": "ERÄ",
    "display.periods": "ERÄT",
    "display.next": "SEUR.",  # over the next period, in a 4:3 board's narrow column
    "display.period.overtime": "JA",
    "display.period.next": "{n}. ERÄ",
    "display.goal": "MAALI",
    "display.no_scorer": "EI MAALINTEKIJÄÄ",
    "display.extra_player": "LISÄPELAAJA",
    "display.intermission": "ERÄTAUKO",
    "display.overtime_break": "TAUKO",  # the period column says JA
    "display.timeout": "AIKALISÄ {time}",
    "display.strength": "{home} VASTAAN {away}",
    "display.stop": "SEIS",
    "display.stop_time": "TEHOLLINEN AIKA",
    "display.line_change": "VAIHTO {seconds}",
    "display.kind.double_minor": "2+2",
    "display.kind.major": "ISO",
    "display.kind.misconduct": "KR",
    "display.kind.game_misconduct": "PR",
    "display.kind.match": "OR",
    "display.kind.personal": "HR",
    "display.kind.bench_minor": "JOUK",
    "display.final": "OTTELU PÄÄTTYNYT",
    "display.full_time": "VARSINAINEN PELIAIKA",
    "display.decided.regulation": "VARSINAISELLA PELIAJALLA",
    "display.decided.overtime": "JATKOAJALLA",
    "display.decided.shootout": "VOITTOLAUKAUKSILLA",
    "display.decided.forfeit": "LUOVUTUS",
    "display.shootout": "VOITTOLAUKAUKSET",
    "display.shootout.next": "SEURAAVAKSI: {team}",
    "display.next_match": "SEURAAVA OTTELU",
    "display.standings": "SARJATAULUKKO",
    "display.match": "OTTELU {match}",
    "display.waiting": "ODOTETAAN KILPAILUTOIMISTOA",
    "display.plan.one": "ERÄ: 1 × {length}",
    "display.plan": "ERÄT: {n} × {length}",
    "display.suspended": "PELIKIELLOSSA: {who}",
    "display.countdown.resurfacing": "JÄÄNHOITO",
    "display.countdown.warm-up": "LÄMMITTELY",
    "display.countdown.start in": "ALKUUN",
    "display.countdown.start": "ALKU",
    "display.group": "LOHKO {group}",
    "display.table": "TAULUKKO",
    "display.table.played": "O",
    "display.table.won": "V",
    "display.table.drawn": "T",
    "display.table.lost": "H",
    "display.table.goals": "MAALIT",
    "display.table.points": "P",
    "display.status.recording": "EI TALLENNETA - TALLENNUSVIKA",
    "display.status.damaged": "LOKI VIOITTUNUT TAVUSSA {byte} - PIDÄ NEXT POHJASSA",
    "display.status.restored": "KELLO PALAUTETTU - TARKISTA",
    "display.status.set_aside": "MUUT LOKIT SIIRRETTY SIVUUN: {what}",
    "display.status.schedule": "OTTELUOHJELMAA EI KÄYTETÄ: {why}",
    "display.entry": "SYÖTTÖ",
    "display.entry.goal": "MAALI",
    "display.entry.penalty": "JÄÄHY",
    "display.entry.kind": "TYYPPI",
    "display.entry.scorer": "MAALINTEKIJÄ",
    "display.entry.player": "PELAAJA",
    "display.entry.home": "KOTI",
    "display.entry.away": "VIERAS",
}
