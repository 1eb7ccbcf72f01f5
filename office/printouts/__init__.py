"""What the office prints and exports: game sheets, door schedules, tables and placings as
HTML and PDF, and spreadsheet files."""
