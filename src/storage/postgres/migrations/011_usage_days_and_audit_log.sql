-- PostgreSQL twin of src/storage/sqlite/migrations/011_usage_days_and_audit_log.sql. usage_days is written inside
-- dragoman_charge / dragoman_refund, so the per-day rows commit with the charge they count. The day comes from the
-- caller (the accounts' clock, the same that names the month: p_day), is kept in charges.day, and a refund is taken
-- off that day. A named charge (dragoman_charge_kept: a document job's) also counts as document characters. The
-- functions of 001/002 keep their signatures (a replica not yet upgraded still charges) and count on p_now's day.
CREATE TABLE usage_days (
  key_id         TEXT NOT NULL,
  day            TEXT NOT NULL,
  chars          BIGINT NOT NULL DEFAULT 0,
  requests       BIGINT NOT NULL DEFAULT 0,
  document_chars BIGINT NOT NULL DEFAULT 0,
  memory_chars   BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
CREATE INDEX usage_days_day ON usage_days (day);

ALTER TABLE charges ADD COLUMN day TEXT;

CREATE TABLE audit_log (
  id      BIGSERIAL PRIMARY KEY,
  at      BIGINT NOT NULL,
  actor   TEXT NOT NULL,
  action  TEXT NOT NULL,
  key_id  TEXT,
  detail  TEXT NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);

CREATE FUNCTION dragoman_day(p_ms BIGINT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(to_timestamp(p_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')
$$;

CREATE FUNCTION dragoman_charge(p_id TEXT, p_key TEXT, p_period TEXT, p_chars BIGINT, p_defaults JSONB, p_now BIGINT, p_day TEXT)
RETURNS TABLE (status TEXT, used BIGINT, lim BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_lim  BIGINT := dragoman_monthly_limit(p_key, p_defaults);
  v_used BIGINT;
  v_cancelled BOOLEAN;
BEGIN
  IF v_lim IS NULL THEN
    RETURN QUERY SELECT 'refused'::TEXT, 0::BIGINT, 0::BIGINT;
    RETURN;
  END IF;
  INSERT INTO charges (id, key_id, period, chars, at_ms, day) VALUES (p_id, p_key, p_period, p_chars, p_now, p_day)
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
    INSERT INTO usage_days AS d (key_id, day, chars, requests) VALUES (p_key, p_day, p_chars, 1)
      ON CONFLICT (key_id, day) DO UPDATE SET chars = d.chars + EXCLUDED.chars, requests = d.requests + 1;
    RETURN QUERY SELECT 'charged'::TEXT, v_used, v_lim;
    RETURN;
  END IF;

  DELETE FROM charges WHERE id = p_id;
  SELECT u.chars INTO v_used FROM usage u WHERE u.key_id = p_key AND u.period = p_period;
  RETURN QUERY SELECT 'refused'::TEXT, COALESCE(v_used, 0), v_lim;
END
$$;

CREATE OR REPLACE FUNCTION dragoman_charge(p_id TEXT, p_key TEXT, p_period TEXT, p_chars BIGINT, p_defaults JSONB, p_now BIGINT)
RETURNS TABLE (status TEXT, used BIGINT, lim BIGINT)
LANGUAGE sql AS $$
  SELECT * FROM dragoman_charge(p_id, p_key, p_period, p_chars, p_defaults, p_now, dragoman_day(p_now))
$$;

CREATE OR REPLACE FUNCTION dragoman_refund(p_id TEXT, p_key TEXT, p_period TEXT, p_now BIGINT) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
  v_key TEXT; v_period TEXT; v_chars BIGINT; v_day TEXT; v_kept BIGINT;
BEGIN
  FOR attempt IN 1..2 LOOP
    DELETE FROM charges WHERE id = p_id AND NOT cancelled RETURNING key_id, period, chars, COALESCE(day, dragoman_day(at_ms)), keep_until_ms
      INTO v_key, v_period, v_chars, v_day, v_kept;
    IF FOUND THEN
      UPDATE usage SET chars = GREATEST(0, chars - v_chars), requests = GREATEST(0, requests - 1)
        WHERE key_id = v_key AND period = v_period;
      UPDATE usage_days SET chars = GREATEST(0, chars - v_chars), requests = GREATEST(0, requests - 1),
          document_chars = CASE WHEN v_kept IS NULL THEN document_chars ELSE GREATEST(0, document_chars - v_chars) END
        WHERE key_id = v_key AND day = v_day;
      INSERT INTO charges (id, key_id, period, chars, at_ms, cancelled)
        VALUES (p_id, v_key, v_period, 0, p_now, true) ON CONFLICT (id) DO NOTHING;
      RETURN true;
    END IF;
    INSERT INTO charges (id, key_id, period, chars, at_ms, cancelled)
      VALUES (p_id, p_key, p_period, 0, p_now, true) ON CONFLICT (id) DO NOTHING;
    IF FOUND THEN RETURN false; END IF;
  END LOOP;
  RETURN false;
END
$$;

CREATE FUNCTION dragoman_charge_kept(p_id TEXT, p_key TEXT, p_period TEXT, p_chars BIGINT, p_defaults JSONB, p_now BIGINT,
                                     p_keep_until BIGINT, p_day TEXT)
RETURNS TABLE (status TEXT, used BIGINT, lim BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_status TEXT; v_used BIGINT; v_lim BIGINT;
BEGIN
  SELECT c.status, c.used, c.lim INTO v_status, v_used, v_lim FROM dragoman_charge(p_id, p_key, p_period, p_chars, p_defaults, p_now, p_day) c;
  UPDATE charges SET keep_until_ms = GREATEST(COALESCE(keep_until_ms, 0), p_keep_until) WHERE id = p_id AND NOT cancelled;
  IF v_status = 'charged' THEN
    UPDATE usage_days SET document_chars = document_chars + p_chars WHERE key_id = p_key AND day = p_day;
  END IF;
  RETURN QUERY SELECT v_status, v_used, v_lim;
END
$$;

CREATE OR REPLACE FUNCTION dragoman_charge_kept(p_id TEXT, p_key TEXT, p_period TEXT, p_chars BIGINT, p_defaults JSONB, p_now BIGINT,
                                                p_keep_until BIGINT)
RETURNS TABLE (status TEXT, used BIGINT, lim BIGINT)
LANGUAGE sql AS $$
  SELECT * FROM dragoman_charge_kept(p_id, p_key, p_period, p_chars, p_defaults, p_now, p_keep_until, dragoman_day(p_now))
$$;
