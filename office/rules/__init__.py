"""The office's rules: group tables, the bracket, suspensions, placings, top scorers, the
results file, rulings (forfeits, eliminations, green cards) and alerts. Pure."""
