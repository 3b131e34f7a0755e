-- skip-when: SELECT 1 FROM pragma_table_info('document_jobs') WHERE name = 'stored_bytes'
-- The bytes a job keeps (its upload, and its result or the room held for it), summed per key for the storage limit.
-- SQLite has no ADD COLUMN IF NOT EXISTS, hence the skip-when line above.
ALTER TABLE document_jobs ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
