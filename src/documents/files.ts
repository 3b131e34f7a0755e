// A job's files under the data directory: documents/<job id>/source and documents/<job id>/result. Names on disk
// are ours (the job id is random hex), never the client's file name, so nothing can be written outside the folder.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const ID = /^[0-9a-f]{32}$/;

export class JobFiles {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'documents');
  }

  private dir(id: string): string {
    if (!ID.test(id)) throw new Error('not a job id');
    return join(this.root, id);
  }

  async writeSource(id: string, bytes: Uint8Array): Promise<void> {
    await mkdir(this.dir(id), { recursive: true });
    await writeFile(join(this.dir(id), 'source'), bytes);
  }

  readSource(id: string): Promise<Buffer> {
    return readFile(join(this.dir(id), 'source'));
  }

  /** Written under another name first, so a result file is always whole. */
  async writeResult(id: string, bytes: Uint8Array): Promise<void> {
    const tmp = join(this.dir(id), 'result.partial');
    await writeFile(tmp, bytes);
    await rename(tmp, join(this.dir(id), 'result'));
  }

  resultPath(id: string): string {
    return join(this.dir(id), 'result');
  }

  async resultSize(id: string): Promise<number | undefined> {
    return stat(this.resultPath(id)).then((s) => s.size, () => undefined);
  }

  /** Bytes of the job's files on disk (upload and result). */
  async size(id: string): Promise<number> {
    const sizes = await Promise.all(['source', 'result'].map((f) => stat(join(this.dir(id), f)).then((s) => s.size, () => 0)));
    return sizes[0]! + sizes[1]!;
  }

  async remove(id: string): Promise<void> {
    await rm(this.dir(id), { recursive: true, force: true });
  }
}
