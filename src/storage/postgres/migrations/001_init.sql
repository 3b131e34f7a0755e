-- PostgreSQL twin of src/storage/sqlite/migrations/001_init.sql: same tables, same encoding of limits
-- (NULL = inherit from the plan / the built-in default, -1 = unlimited, n >= 0 = that figure), plus the
-- charge ledger and the functions that make every check-and-write one atomic call (one round trip).

CREATE TABLE plans (
  name          TEXT PRIMARY KEY,
  monthly_chars BIGINT,
  rpm           BIGINT
);

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  prefix        TEXT NOT NULL,
  hash          TEXT NOT NULL UNIQUE,  -- sha256 of the secret; the secret itself is never stored
  name          TEXT,
  email         TEXT,
  plan          TEXT NOT NULL,
  monthly_chars BIGINT,
  rpm           BIGINT,
  created_at    BIGINT NOT NULL,       -- ms since epoch
  revoked_at    BIGINT
);

CREATE TABLE usage (
  key_id   TEXT NOT NULL REFERENCES api_keys(id),
  period   TEXT NOT NULL,
  chars    BIGINT NOT NULL DEFAULT 0,
  requests BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, period)
);

-- Arrival times of the requests counted in each key's rolling 60 s window (all replicas write here).
CREATE TABLE rate_hits (
  key_id TEXT NOT NULL,
  at_ms  BIGINT NOT NULL
);
CREATE INDEX rate_hits_key_at ON rate_hits (key_id, at_ms);

-- One row per charge, keyed by an id the process draws: makes charge and refund idempotent, so a call whose
-- connection broke can be repeated without charging twice, and a refund of a charge whose fate is unknown
-- leaves a tombstone (cancelled) that a late copy of the charge collides with. Rows are pruned after an hour.
CREATE TABLE charges (
  id        TEXT PRIMARY KEY,
  key_id    TEXT NOT NULL,
  period    TEXT NOT NULL,
  chars     BIGINT NOT NULL,
  at_ms     BIGINT NOT NULL,
  cancelled BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX charges_at ON charges (at_ms);

-- Effective monthly limit of a key (-1 = unlimited, NULL = no such key). p_defaults: {"free": 500000, ...}.
CREATE FUNCTION dragoman_monthly_limit(p_key TEXT, p_defaults JSONB) RETURNS BIGINT
LANGUAGE sql STABLE AS $$
  SELECT COALESCE(k.monthly_chars, p.monthly_chars, (p_defaults ->> k.plan)::BIGINT)
  FROM api_keys k LEFT JOIN plans p ON p.name = k.plan
  WHERE k.id = p_key
$$;

-- Check-and-charge. status: 'charged' | 'refused' | 'already' (this id was charged before: a repeat after a
-- lost connection) | 'cancelled' (this id was refunded before it arrived). The usage row is changed by ONE
-- conditional upsert (the row lock makes concurrent charges of one key queue; the WHERE is re-checked on the
-- newest row version), never read-then-write.
CREATE FUNCTION dragoman_charge(p_id TEXT, p_key TEXT, p_period TEXT, p_chars BIGINT, p_defaults JSONB, p_now BIGINT)
RETURNS TABLE (status TEXT, used BIGINT, lim BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_lim  BIGINT := dragoman_monthly_limit(p_key, p_defaults);
  v_used BIGINT;
  v_cancelled BOOLEAN;
BEGIN
  IF v_lim IS NULL THEN  -- no such key: nothing can be charged
    RETURN QUERY SELECT 'refused'::TEXT, 0::BIGINT, 0::BIGINT;
    RETURN;
  END IF;
  -- Waits for a concurrent insert of the same id (the original call on a dead connection) to settle.
  INSERT INTO charges (id, key_id, period, chars, at_ms) VALUES (p_id, p_key, p_period, p_chars, p_now)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT c.cancelled INTO v_cancelled FROM charges c WHERE c.id = p_id;
    SELECT u.chars INTO v_used FROM usage u WHERE u.key_id = p_key AND u.period = p_period;
    RETURN QUERY SELECT CASE WHEN v_cancelled THEN 'cancelled' ELSE 'already' END, COALESCE(v_used, 0), v_lim;
    RETURN;
  END IF;

  INSERT INTO usage AS u (key_id, period, chars, requests)
    SELECT p_key, p_period, p_chars, 1 WHERE v_lim = -1 OR p_chars <= v_lim
    ON CONFLICT (key_id, period) DO UPDATE
      SET chars = u.chars + EXCLUDED.chars, requests = u.requests + 1
      WHERE v_lim = -1 OR u.chars + EXCLUDED.chars <= v_lim
    RETURNING u.chars INTO v_used;
  IF FOUND THEN
    RETURN QUERY SELECT 'charged'::TEXT, v_used, v_lim;
    RETURN;
  END IF;

  DELETE FROM charges WHERE id = p_id;
  SELECT u.chars INTO v_used FROM usage u WHERE u.key_id = p_key AND u.period = p_period;
  RETURN QUERY SELECT 'refused'::TEXT, COALESCE(v_used, 0), v_lim;
END
$$;

-- Undo the charge `p_id` exactly once. If it is not there (never arrived, refused, or already refunded),
-- leave a tombstone so a copy still in flight on a dead connection cannot apply later. Returns true when
-- characters were given back.
CREATE FUNCTION dragoman_refund(p_id TEXT, p_key TEXT, p_period TEXT, p_now BIGINT) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
  v_key TEXT; v_period TEXT; v_chars BIGINT;
BEGIN
  FOR attempt IN 1..2 LOOP
    DELETE FROM charges WHERE id = p_id AND NOT cancelled RETURNING key_id, period, chars
      INTO v_key, v_period, v_chars;
    IF FOUND THEN
      UPDATE usage SET chars = GREATEST(0, chars - v_chars), requests = GREATEST(0, requests - 1)
        WHERE key_id = v_key AND period = v_period;
      INSERT INTO charges (id, key_id, period, chars, at_ms, cancelled)
        VALUES (p_id, v_key, v_period, 0, p_now, true) ON CONFLICT (id) DO NOTHING;
      RETURN true;
    END IF;
    -- Conflict here means the charge committed after the DELETE looked: go round once more to undo it.
    INSERT INTO charges (id, key_id, period, chars, at_ms, cancelled)
      VALUES (p_id, p_key, p_period, 0, p_now, true) ON CONFLICT (id) DO NOTHING;
    IF FOUND THEN RETURN false; END IF;
  END LOOP;
  RETURN false;
END
$$;

-- Rolling 60 s window of one key, shared by every replica. The per-key advisory lock (transaction-scoped)
-- queues concurrent requests of the same key for the few statements below; other keys do not wait.
-- ok: recorded; otherwise n = requests in the window and nth = arrival of the one whose exit frees a slot.
CREATE FUNCTION dragoman_hit(p_key TEXT, p_limit INTEGER, p_now BIGINT, p_window BIGINT)
RETURNS TABLE (ok BOOLEAN, n INTEGER, oldest BIGINT, nth BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_n INTEGER; v_oldest BIGINT; v_nth BIGINT;
BEGIN
  -- A hit is not money: its commit need not wait for the WAL flush (a database crash may forget the last
  -- few hundred ms of hits, letting a key slightly over its limit once). Charges stay fully durable.
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM pg_advisory_xact_lock(1684107629, hashtext(p_key));  -- 1684107629 = 'drgm': our lock namespace
  DELETE FROM rate_hits WHERE key_id = p_key AND at_ms <= p_now - p_window;
  SELECT count(*)::INTEGER, min(at_ms) INTO v_n, v_oldest FROM rate_hits WHERE key_id = p_key;
  IF v_n < p_limit THEN
    INSERT INTO rate_hits (key_id, at_ms) VALUES (p_key, p_now);
    RETURN QUERY SELECT true, v_n, v_oldest, NULL::BIGINT;
    RETURN;
  END IF;
  SELECT at_ms INTO v_nth FROM rate_hits WHERE key_id = p_key ORDER BY at_ms OFFSET v_n - p_limit LIMIT 1;
  RETURN QUERY SELECT false, v_n, v_oldest, v_nth;
END
$$;
