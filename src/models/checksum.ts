// Hashes of files on disk, streamed (model graphs are hundreds of MB).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The git blob id (what the hub sends as ETag for files not stored in LFS): sha1("blob <size>\0" + content). */
export async function gitBlobSha1File(path: string): Promise<string> {
  const { size } = await stat(path);
  const hash = createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
