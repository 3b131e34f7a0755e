-- Limits columns: NULL = inherit (plan default / the key's plan), -1 = unlimited, n >= 0 = that figure.
CREATE TABLE plans (
  name          TEXT PRIMARY KEY,
  monthly_chars INTEGER,
  rpm           INTEGER
);

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  prefix        TEXT NOT NULL,
  hash          TEXT NOT NULL UNIQUE,  -- sha256 of the secret; the secret itself is never stored
  name          TEXT,
  email         TEXT,
  plan          TEXT NOT NULL,
  monthly_chars INTEGER,
  rpm           INTEGER,
  created_at    INTEGER NOT NULL,      -- ms since epoch
  revoked_at    INTEGER
);

-- Characters and successful-or-in-flight requests per key and calendar month (UTC, 'YYYY-MM').
CREATE TABLE usage (
  key_id   TEXT NOT NULL REFERENCES api_keys(id),
  period   TEXT NOT NULL,
  chars    INTEGER NOT NULL DEFAULT 0,
  requests INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, period)
);

-- Arrival times of the requests counted in each key's rolling 60 s window.
CREATE TABLE rate_hits (
  key_id TEXT NOT NULL,
  at_ms  INTEGER NOT NULL
);
CREATE INDEX rate_hits_key_at ON rate_hits (key_id, at_ms);
