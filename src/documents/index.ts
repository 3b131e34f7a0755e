// Documents: the formats (./formats), the job engine and its store. The store is on the accounts' database
// (src/storage): SQLite in the data directory, or PostgreSQL with DRAGOMAN_DATABASE_URL.
import type { Storage } from '../storage/index.ts';
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

export function jobStore(storage: Storage): JobStore {
  return storage.kind === 'postgres' ? new PgJobStore(storage) : new SqliteJobStore(storage);
}
