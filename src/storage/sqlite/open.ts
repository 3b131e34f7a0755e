// better-sqlite3's objects (Database, Statement) are node::ObjectWrap instances. From Node 24.19 on, ObjectWrap's
// destructor removes a per-object environment cleanup hook and aborts the process ("Assertion failed: (env) !=
// nullptr" in node::RemoveEnvironmentCleanupHook, exit 134, or 139 in a container) when the garbage collector frees
// one while V8 has no current context, which is the case for a collection started by an allocation inside a V8
// builtin: any statement left for the collector could end the server at a random moment (at start, the
// one-off migration and PRAGMA statements did). So none is ever left for it: every database opened here and
// every statement it prepares stays reachable until the process exits, when Node frees them itself, in a context.
// That costs a few hundred bytes per statement (the SQLite side is finalized at close), so statements are prepared
// once, never per request; pragma() and iterate(), which make statements of their own, are not used.
import Database from 'better-sqlite3';

const kept: object[] = [];

function keep<T extends object>(o: T): T {
  kept.push(o);
  return o;
}

/** A better-sqlite3 database that the collector never frees, whose prepare() gives statements it never frees. */
export function openDatabase(file: string, options?: Database.Options): Database.Database {
  const db = keep(new Database(file, options));
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => keep(prepare(source))) as typeof db.prepare;
  db.pragma = () => {
    throw new Error('pragma() makes a statement of its own: use exec() to set a pragma, prepare() once to read one');
  };
  return db;
}
