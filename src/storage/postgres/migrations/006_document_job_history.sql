-- When a job became done or failed, and the index of a key's history (GET /v1/documents, newest first).
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS finished_at BIGINT;
CREATE INDEX IF NOT EXISTS document_jobs_history ON document_jobs (key_id, created_at, id);
