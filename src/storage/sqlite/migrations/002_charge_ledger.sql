-- Charges made with an id of the caller's (a document job's id): charging that id again charges nothing more, and
-- its refund gives back once (refunded = 1 after it, or for an id refunded before any charge came: a mark that
-- makes a later charge of it fail). Rows stay until keep_until (ms since epoch), then are pruned.
CREATE TABLE charges (
  id         TEXT PRIMARY KEY,
  key_id     TEXT NOT NULL,
  period     TEXT NOT NULL,
  chars      INTEGER NOT NULL,
  keep_until INTEGER NOT NULL,
  refunded   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX charges_keep_until ON charges (keep_until);
