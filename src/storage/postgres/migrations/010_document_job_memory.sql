-- The translation memory a job translates with, as JSON ({"id", "threshold", "update"}).
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS memory TEXT;
