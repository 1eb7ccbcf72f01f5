"""Arena Scoreboard: the hall's scoreboard daemon (see DESIGN.md section 2)."""
