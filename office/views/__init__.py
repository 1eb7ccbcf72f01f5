"""What the office derives from what it stores: the ledger (folded from scratch or again after
a change), placings, top scorers and alerts read off it, the page's snapshot and what is kept
of it between refreshes, the public projection, and the board the readers share."""
