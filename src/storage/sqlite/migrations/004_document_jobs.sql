-- Document translation jobs (src/documents/store.ts). IF NOT EXISTS: a database whose document_jobs table was made
-- before it joined this series keeps it and its rows.
CREATE TABLE IF NOT EXISTS document_jobs (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  status TEXT NOT NULL,
  filename TEXT NOT NULL,
  format TEXT NOT NULL,
  source TEXT,
  detected_source TEXT,
  target TEXT NOT NULL,
  characters INTEGER NOT NULL,
  progress REAL NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  error TEXT,
  charge_state TEXT NOT NULL,
  charge TEXT NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS document_jobs_expiry ON document_jobs (expires_at);
CREATE INDEX IF NOT EXISTS document_jobs_open ON document_jobs (status, lease_until);
