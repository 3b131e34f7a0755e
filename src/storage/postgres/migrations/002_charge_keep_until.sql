-- A charge the caller names (a document job's id) may be refunded long after the hour for which ledger rows are
-- kept: a job that fails after a long outage. Pruned after the hour, its row would be gone and the refund would
-- only leave a tombstone, giving nothing back. keep_until_ms keeps such a row until then (NULL: the usual hour).
ALTER TABLE charges ADD COLUMN keep_until_ms BIGINT;

-- dragoman_charge, with the ledger row kept until p_keep_until. One call: the charge and its keeping commit together.
CREATE FUNCTION dragoman_charge_kept(p_id TEXT, p_key TEXT, p_period TEXT, p_chars BIGINT, p_defaults JSONB, p_now BIGINT,
                                     p_keep_until BIGINT)
RETURNS TABLE (status TEXT, used BIGINT, lim BIGINT)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT c.status, c.used, c.lim FROM dragoman_charge(p_id, p_key, p_period, p_chars, p_defaults, p_now) c;
  UPDATE charges SET keep_until_ms = GREATEST(COALESCE(keep_until_ms, 0), p_keep_until) WHERE id = p_id AND NOT cancelled;
END
$$;
