-- Glossaries: one row per glossary, its dictionaries as one JSON document (src/glossaries/store.ts).
-- IF NOT EXISTS: a database whose glossaries table was made before it joined this series keeps it and its rows.
CREATE TABLE IF NOT EXISTS glossaries (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, created_at BIGINT NOT NULL, dictionaries TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS glossaries_owner ON glossaries (owner, created_at);
