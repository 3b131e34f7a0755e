// A minimal POSIX ustar writer and reader, streaming (model files are large) and positional, so that a truncated
// archive is reported as exactly that — which file, how many bytes are missing — instead of as garbage.
// Only regular files are written; the reader also skips directory entries (a re-tarred pack) and refuses the rest.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

const BLOCK = 512;
const CHUNK = 1 << 20;

export class TarError extends Error {}

function writeOctal(buf: Buffer, offset: number, length: number, value: number): void {
  buf.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
}

function writeSize(buf: Buffer, value: number): void {
  if (value < 8 ** 11) return writeOctal(buf, 124, 12, value);
  // GNU base-256 for files of 8 GiB and more: high bit set, big-endian in the remaining 11 bytes.
  buf[124] = 0x80;
  let v = BigInt(value);
  for (let i = 135; i > 124; i--) {
    buf[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function splitName(name: string): [prefix: string, name: string] {
  if (Buffer.byteLength(name) <= 100) return ['', name];
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return [prefix, rest];
  }
  throw new TarError(`path too long for a ustar archive: ${name}`);
}

function checksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}

export function fileHeader(name: string, size: number, mtimeSeconds: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const [prefix, short] = splitName(name);
  h.write(short, 0, 100, 'utf8');
  writeOctal(h, 100, 8, 0o644);
  writeOctal(h, 108, 8, 0);
  writeOctal(h, 116, 8, 0);
  writeSize(h, size);
  writeOctal(h, 136, 12, Math.floor(mtimeSeconds));
  h.write('0', 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  h.write(checksum(h).toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

export class TarWriter {
  private constructor(private readonly fh: FileHandle) {}

  static async create(path: string): Promise<TarWriter> {
    return new TarWriter(await open(path, 'w'));
  }

  async addBuffer(name: string, data: Buffer): Promise<void> {
    await this.fh.write(fileHeader(name, data.length, Date.now() / 1000));
    await this.fh.write(data);
    await this.fh.write(Buffer.alloc(padding(data.length)));
  }

  /** Streams a file in; returns the sha256 of the bytes actually written (the file may change under us). */
  async addFile(name: string, path: string, size: number, mtimeSeconds: number): Promise<string> {
    await this.fh.write(fileHeader(name, size, mtimeSeconds));
    const hash = createHash('sha256');
    let written = 0;
    for await (const chunk of createReadStream(path, { highWaterMark: CHUNK })) {
      const buf = chunk as Buffer;
      written += buf.length;
      if (written > size) throw new TarError(`${path} grew while it was being packed`);
      hash.update(buf);
      await this.fh.write(buf);
    }
    if (written !== size) throw new TarError(`${path} shrank while it was being packed`);
    await this.fh.write(Buffer.alloc(padding(size)));
    return hash.digest('hex');
  }

  async finish(): Promise<void> {
    await this.fh.write(Buffer.alloc(BLOCK * 2));
    await this.fh.sync();
    await this.fh.close();
  }

  async abort(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** Byte offset of the entry's data in the archive. */
  dataOffset: number;
}

function readString(buf: Buffer, offset: number, length: number): string {
  const end = buf.indexOf(0, offset);
  return buf.toString('utf8', offset, end === -1 || end > offset + length ? offset + length : end);
}

function readNumber(buf: Buffer, offset: number, length: number): number {
  if (buf[offset]! & 0x80) {
    let v = 0n;
    for (let i = offset + 1; i < offset + length; i++) v = (v << 8n) | BigInt(buf[i]!);
    return Number(v);
  }
  const text = readString(buf, offset, length).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

export class TarReader {
  private pos = 0;

  private constructor(
    private readonly fh: FileHandle,
    readonly archiveSize: number,
    private readonly label: string,
  ) {}

  static async open(path: string): Promise<TarReader> {
    const fh = await open(path, 'r');
    return new TarReader(fh, (await fh.stat()).size, path);
  }

  private truncated(detail: string): TarError {
    return new TarError(`${this.label} is truncated or damaged: ${detail}`);
  }

  /** The next regular file, or undefined at the end-of-archive marker (or the very end of the file). */
  async next(): Promise<TarEntry | undefined> {
    for (;;) {
      if (this.pos >= this.archiveSize) return undefined;
      const h = Buffer.alloc(BLOCK);
      const { bytesRead } = await this.fh.read(h, 0, BLOCK, this.pos);
      if (bytesRead < BLOCK) throw this.truncated(`it ends inside an entry header at byte ${this.pos}`);
      if (h.every((b) => b === 0)) return undefined;
      if (readNumber(h, 148, 8) !== checksum(h)) {
        throw this.truncated(`bad header checksum at byte ${this.pos} (not a tar archive, or corrupted)`);
      }
      const prefix = h.subarray(257, 262).toString('ascii') === 'ustar' ? readString(h, 345, 155) : '';
      const short = readString(h, 0, 100);
      const name = prefix ? `${prefix}/${short}` : short;
      const size = readNumber(h, 124, 12);
      const type = String.fromCharCode(h[156]!);
      const dataOffset = this.pos + BLOCK;
      this.pos = dataOffset + size + padding(size);
      if (type === '5') continue;
      if (type !== '0' && type !== '\0') throw new TarError(`${this.label}: ${name} is not a regular file (tar type "${type}")`);
      if (dataOffset + size > this.archiveSize) {
        throw this.truncated(`${name} should have ${size} bytes but the archive ends after ${Math.max(this.archiveSize - dataOffset, 0)}`);
      }
      return { name, size, dataOffset };
    }
  }

  async *content(entry: TarEntry): AsyncGenerator<Buffer> {
    let done = 0;
    while (done < entry.size) {
      const want = Math.min(CHUNK, entry.size - done);
      const buf = Buffer.alloc(want);
      const { bytesRead } = await this.fh.read(buf, 0, want, entry.dataOffset + done);
      if (bytesRead === 0) throw this.truncated(`${entry.name} ends after ${done} of ${entry.size} bytes`);
      done += bytesRead;
      yield bytesRead === want ? buf : buf.subarray(0, bytesRead);
    }
  }

  async readAll(entry: TarEntry, limit: number): Promise<Buffer> {
    if (entry.size > limit) throw new TarError(`${this.label}: ${entry.name} is ${entry.size} bytes, more than expected`);
    const parts: Buffer[] = [];
    for await (const part of this.content(entry)) parts.push(part);
    return Buffer.concat(parts);
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}
