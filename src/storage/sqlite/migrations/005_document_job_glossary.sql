-- skip-when: SELECT 1 FROM pragma_table_info('document_jobs') WHERE name = 'glossary'
-- The glossary a job translates with (SQLite has no ADD COLUMN IF NOT EXISTS, hence the skip-when line above: a
-- table that already has the column is left as it is).
ALTER TABLE document_jobs ADD COLUMN glossary TEXT;
