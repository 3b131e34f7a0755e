-- skip-when: SELECT 1 FROM pragma_table_info('document_jobs') WHERE name = 'memory'
-- The translation memory a job translates with, as JSON ({"id", "threshold", "update"}); SQLite has no ADD COLUMN IF
-- NOT EXISTS, hence the skip-when line above.
ALTER TABLE document_jobs ADD COLUMN memory TEXT;
