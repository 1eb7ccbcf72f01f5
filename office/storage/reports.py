"""Results entered on a form for a match without a board: each match's result link (an
unguessable token), the entries written with it or by the office, and the office's
confirmation of an entry. Tables ``result_links`` and ``reports`` of the store, append-only
as the rest of the audit trail; the confirmations are office actions (the ``admin`` table).

Who may write (docs/office.md, "Results from a pitch without a board"):

- a phone, with its match's token only; it may correct its own entry (a newer one) until
  the office confirms that entry or enters the match's result itself;
- the office (its own page, never reachable from the phones), at any time.

Every write carries the form's nonce (``nonce``: made by the server for one form, bound to
the match, the writer's kind and the entry the form was shown with). A nonce used once is
not used again: the same form sent twice is stored once (the second answer says it is
stored already); a form shown before another entry was stored is refused as stale, so two
phones of one match never overwrite each other unseen. Check and write are one transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from office.storage.store import Store

PHONE, OFFICE = "phone", "office"
HALL = "hall"  # a board's final: the hall's events (the events table), never a row here
SOURCES = (HALL, PHONE, OFFICE)
CONFIRM = "report_confirm"  # the office action confirming an entry
SECRET_KEY = "report_secret"  # kv: the key the nonces are signed with (made once)
LINK_BASE_KEY = "result_url"  # kv: the public address the links start with (office serve)
TOKEN_BYTES = 18  # 144 bits: 24 characters in a link


@dataclass(frozen=True, slots=True)
class Report:
    """One stored entry of a match's result."""

    id: int  # increasing: the latest of a match counts
    match: str
    source: str  # PHONE or OFFICE
    nonce: str
    data: Mapping[str, Any]  # office.views.reported.ReportedResult.to_data()
    at: datetime  # the office's wall time when stored


class Outcome(StrEnum):
    STORED = "stored"
    SAME = "same"  # the very form again: stored once already
    REPLAYED = "replayed"  # a used nonce with other content
    STALE = "stale"  # another entry was stored after the form was shown
    LOCKED = "locked"  # confirmed by the office, or entered by it: a phone cannot change it


@dataclass(frozen=True, slots=True)
class Written:
    outcome: Outcome
    report: Report | None  # stored (STORED, SAME), or the one in the way (the others)


# --- links --------------------------------------------------------------------------------


def ensure_links(store: Store, matches: Iterable[str], at: datetime) -> int:
    """A token for every match that has none yet (kept for good: a sheet printed again
    shows the same link); returns how many were made."""
    have = set(links(store))
    wanted = [m for m in dict.fromkeys(matches) if m not in have]
    if not wanted:
        return 0
    with store.transaction() as db:
        for match in wanted:
            db.execute("INSERT OR IGNORE INTO result_links VALUES (?, ?, ?)",
                       (match, secrets.token_urlsafe(TOKEN_BYTES), at.isoformat()))
    return len(wanted)


def result_link(base_url: str, token: str) -> str:
    """A match's result link: the public site's address, ``r/``, the token."""
    return f"{base_url.rstrip('/')}/r/{token}"


def links(store: Store) -> dict[str, str]:
    """Every match's token, by match."""
    return {str(m): str(t) for m, t in store.rows("SELECT match, token FROM result_links")}


class LinkIndex:
    """The match of a token, compared in constant time: the token is looked up by its
    hash (which tells nothing of it), then compared with ``hmac.compare_digest``."""

    def __init__(self, by_match: Mapping[str, str]) -> None:
        self._by_hash = {_digest(t): (t, m) for m, t in by_match.items()}

    def match_of(self, token: str) -> str | None:
        found = self._by_hash.get(_digest(token))
        if found is None or not hmac.compare_digest(found[0].encode(), token.encode()):
            return None
        return found[1]


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


# --- nonces -------------------------------------------------------------------------------


def secret(store: Store) -> bytes:
    """The store's signing key for the forms' nonces (made at the first use, kept: a form
    shown before a restart can still be sent after it)."""
    value = store.kv_get(SECRET_KEY)
    if not isinstance(value, str):
        value = secrets.token_hex(32)
        with store.transaction() as db:  # the first writer's key wins
            db.execute("INSERT OR IGNORE INTO kv VALUES (?, ?)", (SECRET_KEY, json.dumps(value)))
        value = store.kv_get(SECRET_KEY)
    return bytes.fromhex(str(value))


def make_nonce(key: bytes, source: str, match: str, base: int) -> str:
    """A nonce for one form: fresh, and signed for this match, writer and entry shown
    (``base``: the id of the latest entry when the form was shown, 0 for none)."""
    fresh = secrets.token_urlsafe(12)
    return f"{fresh}.{base}.{_sign(key, source, match, fresh, base)}"


def read_nonce(key: bytes, source: str, match: str, nonce: str) -> int | None:
    """The entry a nonce was made with (its ``base``); None when this server did not make
    it for this match and writer (forged, or another form's)."""
    parts = nonce.split(".")
    if len(parts) != 3 or not parts[1].isdigit() or len(nonce) > 100:
        return None
    fresh, base = parts[0], int(parts[1])
    if not hmac.compare_digest(parts[2], _sign(key, source, match, fresh, base)):
        return None
    return base


def _sign(key: bytes, source: str, match: str, fresh: str, base: int) -> str:
    message = json.dumps([source, match, fresh, base]).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


# --- entries ------------------------------------------------------------------------------


def reports(store: Store, match: str | None = None) -> list[Report]:
    """Every entry, oldest first (of one match, or all)."""
    query = "SELECT id, match, source, nonce, data, at FROM reports"
    args: tuple[str, ...] = ()
    if match is not None:
        query += " WHERE match = ?"
        args = (match,)
    return [_report(r) for r in store.rows(query + " ORDER BY id", args)]


def latest(entries: Iterable[Report]) -> dict[str, Report]:
    """The entry that counts of each match: its latest."""
    out: dict[str, Report] = {}
    for r in entries:
        if r.match not in out or r.id > out[r.match].id:
            out[r.match] = r
    return out


def confirmations(store: Store) -> dict[str, int]:
    """By match, the entry the office confirmed last."""
    out: dict[str, int] = {}
    for a in store.admin_actions():
        if a.kind == CONFIRM:
            out[str(a.data["match"])] = int(a.data["report"])
    return out


def confirm(store: Store, match: str, report: int, at: datetime) -> int:
    """The office confirms an entry (audited): from now on no phone changes it."""
    return store.admin(CONFIRM, {"match": match, "report": report}, at)


def write(store: Store, match: str, source: str, *, nonce: str, base: int,
          data: Mapping[str, Any], at: datetime) -> Written:
    """Store an entry unless the nonce was used, another entry came after the form's
    ``base``, or (a phone) the office has confirmed or entered the result."""
    if source not in (PHONE, OFFICE):
        raise ValueError(f"source {source!r}: one of {PHONE}, {OFFICE}")
    text = _dump(data)
    with store.transaction() as db:
        used = db.execute("SELECT id, match, source, nonce, data, at FROM reports "
                          "WHERE nonce = ?", (nonce,)).fetchone()
        if used is not None:
            same = used[1] == match and used[4] == text
            return Written(Outcome.SAME if same else Outcome.REPLAYED, _report(used))
        row = db.execute("SELECT id, match, source, nonce, data, at FROM reports WHERE "
                         "match = ? ORDER BY id DESC LIMIT 1", (match,)).fetchone()
        current = _report(row) if row is not None else None
        if source == PHONE and current is not None:
            confirmed = [json.loads(d)["report"] for (d,) in db.execute(
                "SELECT data FROM admin WHERE kind = ?", (CONFIRM,))
                if json.loads(d).get("match") == match]
            if current.source == OFFICE or current.id in confirmed:
                return Written(Outcome.LOCKED, current)
        if (current.id if current is not None else 0) != base:
            return Written(Outcome.STALE, current)
        cur = db.execute("INSERT INTO reports (match, source, nonce, data, at) "
                         "VALUES (?, ?, ?, ?, ?)", (match, source, nonce, text, at.isoformat()))
        assert cur.lastrowid is not None
        return Written(Outcome.STORED, Report(cur.lastrowid, match, source, nonce,
                                              json.loads(text), at))


def _report(row: tuple[Any, ...]) -> Report:
    return Report(int(row[0]), str(row[1]), str(row[2]), str(row[3]), json.loads(row[4]),
                  datetime.fromisoformat(row[5]))


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
