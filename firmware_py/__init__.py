"""Arena Scoreboard: the hall's scoreboard daemon (see README section 2)."""
