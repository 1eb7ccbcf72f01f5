"""The between-games screen's QR code: ``arena.qr`` (segno's one home), where the office's
printed result links take theirs from too. Kept under this name for the display's code."""

from __future__ import annotations

from arena.qr import MAX_VERSION, QUIET_ZONE, Level, QrCode, QrError, capacity, encode

__all__ = ["MAX_VERSION", "QUIET_ZONE", "Level", "QrCode", "QrError", "capacity", "encode"]
