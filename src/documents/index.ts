// Documents: the formats (./formats), the job engine and its store. The store is chosen like the accounts':
// SQLite in the data directory's database, or PostgreSQL with DRAGOMAN_DATABASE_URL.
import { join } from 'node:path';
import { PgJobStore } from './postgres-store.ts';
import { SqliteJobStore } from './sqlite-store.ts';
import type { JobStore } from './store.ts';
import { FORMATS } from './formats/index.ts';

export { DocumentJobs, resultName, type DocumentJobsDeps, type Submission } from './jobs.ts';
export { viewOf, type DocumentView, type JobRecord } from './job.ts';
export type { JobStore } from './store.ts';
export { detectFormat, FORMATS, SUPPORTED_FORMATS } from './formats/index.ts';

/** The file extensions of the formats, with the dot (LibreTranslate's supportedFilesFormat). */
export const FILE_EXTENSIONS: readonly string[] = [...new Set(FORMATS.map((f) => `.${f.extension}`))];

export function openJobStore(config: { dataDir: string; databaseUrl: string | undefined }): JobStore {
  if (config.databaseUrl) return new PgJobStore(config.databaseUrl);
  return new SqliteJobStore(join(config.dataDir, 'dragoman.db'));
}
