"""Arena Scoreboard's shared domain: what the hall, the display, the hardware and the office
all mean by a match, a rule, a message and a word.

- ``core``: the pure match engine (rules, game clock, penalties, shootout, commands, events,
  the state document). Standard library only, no I/O, no threads, no OS clock.
- ``presets``: the bundled rule presets, one TOML file per tournament format.
- ``wire``: every MQTT topic and message, declared once.
- ``words``: every visible word, per language.
- ``tournament``: the tournament and event files, the schedule, the model.
- ``timesource``, ``safejson``, ``serverthread``, ``broker``: the small shared shell parts
  (the injected clock, tolerant JSON, an HTTP server thread, the one home of paho).

Every application imports this package; it imports none of them.
"""
