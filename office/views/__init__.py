"""What the office derives from what it stores: the ledger (folded from scratch or again after
a change), the page's snapshot and what is kept of it between refreshes, the public
projection, and the board the readers share."""
