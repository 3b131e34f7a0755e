-- skip-when: SELECT 1 FROM pragma_table_info('document_jobs') WHERE name = 'model'
-- The model a job asked for ("quality", "speed" or a model's name); NULL: the usual route. SQLite has no ADD COLUMN
-- IF NOT EXISTS, hence the skip-when line above.
ALTER TABLE document_jobs ADD COLUMN model TEXT;
