// The numbered migration files of one backend (001_*.sql, 002_*.sql, ...), in order. Two files with one number would
// leave one unapplied (the version is what is recorded), so that is refused at start, as is a gap in the numbers.
import { readdirSync, readFileSync } from 'node:fs';

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  /**
   * A query on the database as it is; when it returns a row, the migration's change is already there and the file
   * is recorded without being run. Written as the file's first line: `-- skip-when: SELECT ...`.
   */
  skipWhen?: string;
}

const SKIP_WHEN = /^--\s*skip-when:\s*(.+)$/;

export function migrationFiles(dir: string): MigrationFile[] {
  const files = readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((name): MigrationFile => {
      const sql = readFileSync(dir + name, 'utf8');
      const skipWhen = SKIP_WHEN.exec(sql.split('\n', 1)[0]!)?.[1];
      return { version: Number.parseInt(name, 10), name, sql, ...(skipWhen ? { skipWhen } : {}) };
    });
  files.forEach((file, i) => {
    if (file.version !== i + 1) {
      const other = files.find((f) => f !== file && f.version === file.version);
      throw new Error(
        other
          ? `two migrations are numbered ${file.version} in ${dir} (${other.name}, ${file.name}): give the later one the next free number`
          : `migration ${file.name} in ${dir} is numbered ${file.version}, the series expects ${i + 1} next`,
      );
    }
  });
  return files;
}
