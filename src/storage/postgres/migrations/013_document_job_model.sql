-- The model a job asked for ("quality", "speed" or a model's name); NULL: the usual route.
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS model TEXT;
