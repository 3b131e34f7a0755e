-- The fuzzy index of translation memories in blocks (src/memories/postings.ts): memory_postings holds one row per
-- (memory, word, block of up to 16,384 segment ids), the ids as the first one and the gaps after it; it replaces
-- memory_words (a row per word and segment). memory_keys is the exact-match index, (memory, key, target language) →
-- segment: an import appends its segments and fills memory_keys once at its end, in key order, where the unique index
-- on memory_segments took each segment at a random place.
CREATE TABLE IF NOT EXISTS memory_postings (
  mem INTEGER NOT NULL, word INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, n INTEGER NOT NULL, segs TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS memory_postings_word ON memory_postings (mem, word, first);
INSERT INTO memory_postings (mem, word, first, last, n, segs)
  SELECT mem, word, MIN(seg), MAX(seg), COUNT(*), COALESCE(group_concat(gap, ',' ORDER BY seg), '')
  FROM (SELECT mem, word, seg, seg / 16384 AS part, seg - LAG(seg) OVER (PARTITION BY mem, word, seg / 16384 ORDER BY seg) AS gap FROM memory_words)
  GROUP BY mem, word, part;
DROP TABLE memory_words;
CREATE TABLE IF NOT EXISTS memory_keys (
  mem INTEGER NOT NULL, key TEXT NOT NULL, target_lang TEXT NOT NULL, seg INTEGER NOT NULL, PRIMARY KEY (mem, key, target_lang)) WITHOUT ROWID;
INSERT INTO memory_keys (mem, key, target_lang, seg) SELECT mem, key, target_lang, id FROM memory_segments m
  WHERE m.mem IN (SELECT num FROM memories WHERE state = 'ready');
DROP INDEX IF EXISTS memory_segments_key;
