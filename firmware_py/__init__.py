"""Arena Scoreboard: the hall's scoreboard daemon (see docs/developer.md 2)."""
