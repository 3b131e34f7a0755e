// DRAGOMAN_MODELS_DIR while serving: `models pull`, `models import` and `models remove` (renames in the folder) are
// seen through fs.watch; a folder copied by hand, whose files change below the folder, by a rescan every few seconds.
// Only folders whose files changed are read again. A folder whose files were written less than SETTLE_MS ago is left
// for the next look (a copy still under way), unless it carries the manifest that pull and import write before their
// final rename.
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readModelFolder, type ModelFolder } from './model-folder.ts';
import type { PrecisionSetting } from '../types.ts';

/** What `models pull` and `models import` write into a folder before renaming it into place (src/models/manifest.ts). */
const MANIFEST_FILE = 'dragoman-manifest.json';
/** A folder's files unchanged for this long are taken as complete. */
export const SETTLE_MS = 1_000;
/** The fallback rescan: what fs.watch does not report (files written below a folder) is seen within this. */
export const RESCAN_MS = 3_000;
/** Events of one rename or copy come in bursts: one look after the burst. */
const DEBOUNCE_MS = 100;

interface Seen {
  stamp: string;
  folder: ModelFolder;
}

/** Names, sizes and modification times of every file below `dir`, and the newest time. */
async function folderStamp(dir: string): Promise<{ stamp: string; newest: number; manifest: boolean } | undefined> {
  try {
    const files = (await readdir(dir, { recursive: true })).sort();
    let newest = 0;
    const parts: string[] = [];
    let manifest = false;
    for (const f of files) {
      const st = await stat(join(dir, f)).catch(() => undefined);
      if (!st?.isFile()) continue;
      if (f === MANIFEST_FILE) manifest = true;
      newest = Math.max(newest, st.mtimeMs, st.ctimeMs);
      parts.push(`${f}:${st.size}:${st.mtimeMs}:${st.ino}`);
    }
    return { stamp: parts.join('|'), newest, manifest };
  } catch {
    return undefined;
  }
}

/**
 * Watches `dir`; calls `onChange` with every complete model folder (sorted by name) each time the set or a folder's
 * files changed. The first scan is the caller's (scanFolders at start): `initial` is what it read.
 */
export class ModelsWatch {
  private readonly seen = new Map<string, Seen>();
  private watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private debounce: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly precision: PrecisionSetting,
    initial: readonly ModelFolder[],
    private readonly onChange: (folders: ModelFolder[]) => void,
    private readonly onError: (err: Error) => void,
  ) {
    void Promise.all(initial.map(async (f) => {
      const s = await folderStamp(f.info.path);
      if (s) this.seen.set(f.info.name, { stamp: s.stamp, folder: f });
    })).then(() => this.startWatching());
    this.timer = setInterval(() => this.scan(), RESCAN_MS);
    this.timer.unref();
  }

  private startWatching(): void {
    if (this.closed) return;
    try {
      this.watcher = watch(this.dir, { persistent: false }, () => this.soon());
      this.watcher.on('error', () => {
        // The folder itself went away or cannot be watched: the rescan still looks.
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // No folder yet, or no inotify left: the rescan looks every RESCAN_MS.
    }
  }

  private soon(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.scan(), DEBOUNCE_MS);
    this.debounce.unref();
  }

  /** Looks at the folder now (also called by tests); resolves when that look is done. */
  scan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = this.look().catch((err: Error) => this.onError(err)).finally(() => {
      this.scanning = undefined;
      if (this.again) {
        this.again = false;
        void this.scan();
      }
    });
    return this.scanning;
  }

  private async look(): Promise<void> {
    if (!this.watcher) this.startWatching();
    let names: string[];
    try {
      const entries = await readdir(this.dir, { withFileTypes: true });
      names = entries.filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name).filter((n) => !n.startsWith('.')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      names = [];
    }
    let changed = names.length !== this.seen.size || names.some((n) => !this.seen.has(n));
    let unsettled = false;
    const next = new Map<string, Seen>();
    for (const name of names) {
      const path = join(this.dir, name);
      const s = await folderStamp(path);
      if (!s) continue;
      const before = this.seen.get(name);
      if (before && before.stamp === s.stamp) {
        next.set(name, before);
        continue;
      }
      if (!s.manifest && Date.now() - s.newest < SETTLE_MS) {
        // Still being written: keep what was served under this name (if anything) until the files settle.
        unsettled = true;
        if (before) next.set(name, before);
        continue;
      }
      next.set(name, { stamp: s.stamp, folder: await readModelFolder(path, this.precision) });
      changed = true;
    }
    if (unsettled) setTimeout(() => void this.scan(), SETTLE_MS).unref();
    if (!changed && next.size === this.seen.size) return;
    this.seen.clear();
    for (const [k, v] of next) this.seen.set(k, v);
    this.onChange([...next.values()].map((s) => s.folder));
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.watcher?.close();
  }
}
