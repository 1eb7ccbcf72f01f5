"""The office's durable memory (SQLite), what is checked before anything is stored, and the
office's own bad data (refusals, quarantine)."""
