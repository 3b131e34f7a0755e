-- The glossary a job translates with (a table that already has the column is left as it is).
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS glossary TEXT;
