"""The office's rules: group tables, the bracket, suspensions, the results file, and rulings
(forfeits, eliminations, green cards). Pure."""
