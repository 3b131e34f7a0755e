-- skip-when: SELECT 1 FROM pragma_table_info('document_jobs') WHERE name = 'finished_at'
-- When a job became done or failed, and the index of a key's history (GET /v1/documents, newest first). SQLite has
-- no ADD COLUMN IF NOT EXISTS, hence the skip-when line above.
ALTER TABLE document_jobs ADD COLUMN finished_at INTEGER;
CREATE INDEX IF NOT EXISTS document_jobs_history ON document_jobs (key_id, created_at, id);
