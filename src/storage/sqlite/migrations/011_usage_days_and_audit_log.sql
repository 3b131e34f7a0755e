-- usage_days: what each key was charged per UTC day ('YYYY-MM-DD'), written in the transaction of the charge (and of
-- its refund), so a report over days adds up to the monthly usage row: chars and requests as charged, document_chars
-- the part charged by document jobs (named charges), memory_chars the characters served from the key's memories.
-- charges.day: the day a named charge was made, so its refund is taken off that day however late it comes.
-- audit_log: who created, changed or revoked which key, and when; never a secret.
CREATE TABLE usage_days (
  key_id         TEXT NOT NULL,
  day            TEXT NOT NULL,
  chars          INTEGER NOT NULL DEFAULT 0,
  requests       INTEGER NOT NULL DEFAULT 0,
  document_chars INTEGER NOT NULL DEFAULT 0,
  memory_chars   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
CREATE INDEX usage_days_day ON usage_days (day);

ALTER TABLE charges ADD COLUMN day TEXT;

CREATE TABLE audit_log (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  at      INTEGER NOT NULL,  -- ms since epoch
  actor   TEXT NOT NULL,     -- 'cli:<user>' or 'admin'
  action  TEXT NOT NULL,     -- key.create, key.revoke, key.set-plan, key.set-limits
  key_id  TEXT,
  detail  TEXT NOT NULL      -- JSON of what changed
);
CREATE INDEX audit_log_at ON audit_log (at);
