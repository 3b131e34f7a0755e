-- skip-when: SELECT 1 FROM pragma_table_info('document_jobs') WHERE name = 'download_token'
-- The SHA-256 of a LibreTranslate translate_file job's download token, and the index a download finds it by.
ALTER TABLE document_jobs ADD COLUMN download_token TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS document_jobs_download ON document_jobs (download_token);
