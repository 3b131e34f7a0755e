-- Translation memories (src/memories). memories: one row per memory; state 'ready' is what a key sees, 'staging' an
-- import in progress (its segments land under its own number until its last transaction moves them into the memory
-- named by into_num, or makes the staging row the memory); heartbeat is touched by a running import, so a staging row
-- left by a killed process is swept. memory_segments: one row per (memory, exact key, target language).
-- memory_words: the fuzzy index (posting lists of word hashes). memory_usage: characters served from memories per key
-- and quota period. memory_jobs: DeepL's import and export jobs.
CREATE TABLE IF NOT EXISTS memories (
  num INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL, name TEXT NOT NULL,
  source TEXT NOT NULL, targets TEXT NOT NULL, segment_count INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL,
  into_num INTEGER, heartbeat INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS memories_owner ON memories (owner, state, created_at);
CREATE TABLE IF NOT EXISTS memory_segments (
  id INTEGER PRIMARY KEY, mem INTEGER NOT NULL, target_lang TEXT NOT NULL, key TEXT NOT NULL,
  source TEXT NOT NULL, target TEXT NOT NULL, source_markup TEXT, target_markup TEXT, reviewed INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS memory_segments_key ON memory_segments (mem, key, target_lang);
CREATE INDEX IF NOT EXISTS memory_segments_mem ON memory_segments (mem, id);
CREATE TABLE IF NOT EXISTS memory_words (
  mem INTEGER NOT NULL, word INTEGER NOT NULL, seg INTEGER NOT NULL, PRIMARY KEY (mem, word, seg)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_jobs (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, token TEXT NOT NULL,
  memory_id TEXT, display_name TEXT, file_name TEXT, content_type TEXT, content_length INTEGER, error TEXT,
  skipped INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memory_usage (owner TEXT NOT NULL, period TEXT NOT NULL, chars INTEGER NOT NULL, PRIMARY KEY (owner, period));
