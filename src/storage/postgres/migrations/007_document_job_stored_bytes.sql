-- The bytes a job keeps (its upload, and its result or the room held for it), summed per key for the storage limit.
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS stored_bytes BIGINT NOT NULL DEFAULT 0;
