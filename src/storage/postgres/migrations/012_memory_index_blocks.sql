-- The fuzzy index of translation memories in blocks (src/memories/postings.ts): memory_postings holds one row per
-- (memory, word, block of up to 16,384 segment ids), the ids as the first one and the gaps after it; it replaces
-- memory_words (a row per word and segment).
CREATE TABLE IF NOT EXISTS memory_postings (
  mem BIGINT NOT NULL, word INTEGER NOT NULL, first BIGINT NOT NULL, last BIGINT NOT NULL, n INTEGER NOT NULL, segs TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS memory_postings_word ON memory_postings (mem, word, first);
DO $$ BEGIN
  IF to_regclass('memory_words') IS NOT NULL THEN
    INSERT INTO memory_postings (mem, word, first, last, n, segs)
      SELECT mem, word, MIN(seg), MAX(seg), COUNT(*), COALESCE(string_agg(gap::text, ',' ORDER BY seg), '')
      FROM (SELECT mem, word, seg, seg / 16384 AS part, seg - LAG(seg) OVER (PARTITION BY mem, word, seg / 16384 ORDER BY seg) AS gap FROM memory_words) w
      GROUP BY mem, word, part;
    DROP TABLE memory_words;
  END IF;
END $$;
