// Zip containers (OOXML, ODF, EPUB): read whole into memory under the document limits, written back with
// every entry in its original order and with its original content; only the parts we translated differ.
// yauzl reads (it checks each entry's real size against its header while inflating), yazl writes.
import { inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { DocumentError, type DocumentLimits } from './types.ts';

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** Deflated in the input (stored entries are written stored again: EPUB's and ODF's mimetype must be). */
  compressed: boolean;
  mtime: Date;
}

// Small entries may be very repetitive (an empty sheet, a style list) without being a bomb: the ratio is
// checked only on entries at least this large.
const RATIO_FLOOR = 64 * 1024;

/** Why an entry name would escape the folder it is unpacked into, or undefined when it is fine. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.length === 0) return 'an empty name';
  if (name.includes('\0')) return 'a NUL character';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((part) => part === '..')) return 'a ".." path segment';
  return undefined;
}

export async function readZip(bytes: Uint8Array, limits: DocumentLimits, kind: string): Promise<ZipEntry[]> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zip: yauzl.ZipFile;
  try {
    // strictFileNames off: we check names ourselves and answer with a specific message.
    zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, decodeStrings: true, strictFileNames: false, validateEntrySizes: true });
  } catch (err) {
    throw new DocumentError(`The ${kind} file is not a readable zip archive (${(err as Error).message}).`);
  }
  if (zip.entryCount > limits.maxZipEntries) {
    zip.close();
    throw new DocumentError(`The ${kind} file has ${zip.entryCount} zip entries; at most ${limits.maxZipEntries} are accepted.`);
  }
  // First every entry's header (the central directory: nothing inflated yet), so that what the whole archive
  // would cost is known and refused before any of it is spent; then the entries' data.
  const headers: yauzl.Entry[] = [];
  const names = new Set<string>();
  let total = 0;
  let packed = 0;
  try {
    for (;;) {
      const entry = await nextEntry(zip);
      if (entry === undefined) break;
      const name = entry.fileName;
      const unsafe = unsafeEntryName(name);
      if (unsafe !== undefined) throw new DocumentError(`The ${kind} file has a zip entry name with ${unsafe}, which is refused.`);
      // Two entries of one name: a reader takes one of them, we would translate the other (or both): refused.
      if (names.has(name)) throw new DocumentError(`The ${kind} file has two zip entries named "${name}", which is refused.`);
      names.add(name);
      total += entry.uncompressedSize;
      packed += entry.compressedSize;
      if (total > limits.maxUncompressedBytes) {
        throw new DocumentError(`The ${kind} file unpacks to more than ${limits.maxUncompressedBytes} bytes, the limit for documents.`);
      }
      if (entry.uncompressedSize >= RATIO_FLOOR && entry.uncompressedSize > entry.compressedSize * limits.maxCompressionRatio) {
        throw new DocumentError(
          `The zip entry "${name}" of the ${kind} file is compressed more than ${limits.maxCompressionRatio} to 1, which is refused (a zip bomb?).`,
        );
      }
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw new DocumentError(`The zip entry "${name}" of the ${kind} file uses an unsupported compression method (${entry.compressionMethod}).`);
      }
      if ((entry.generalPurposeBitFlag & 1) !== 0) throw new DocumentError(`The ${kind} file is encrypted (password-protected); remove the password first.`);
      headers.push(entry);
    }
    // Many small entries each under the floor add up as one large one would: the whole archive's ratio too.
    if (total >= RATIO_FLOOR && total > packed * limits.maxCompressionRatio) {
      throw new DocumentError(
        `The ${kind} file unpacks to ${total} bytes from ${packed}, more than ${limits.maxCompressionRatio} to 1, which is refused (a zip bomb?).`,
      );
    }
    const entries: ZipEntry[] = [];
    for (const entry of headers) {
      const name = entry.fileName;
      const data = name.endsWith('/') ? Buffer.alloc(0) : await entryData(zip, entry);
      entries.push({ name, data, compressed: entry.compressionMethod === 8, mtime: entry.getLastModDate() });
    }
    zip.close();
    return entries;
  } catch (err) {
    zip.close();
    if (err instanceof DocumentError) throw err;
    const message = (err as Error).message;
    // yauzl checks names itself before handing an entry out.
    if (/invalid relative path|absolute path/.test(message)) {
      throw new DocumentError(`The ${kind} file has a zip entry name with a ".." path segment or an absolute path, which is refused (${message}).`);
    }
    throw new DocumentError(`The ${kind} file is a damaged zip archive (${message}).`);
  }
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      zip.removeListener('entry', onEntry);
      zip.removeListener('end', onEnd);
      zip.removeListener('error', onError);
    };
    const onEntry = (e: yauzl.Entry): void => (cleanup(), resolve(e));
    const onEnd = (): void => (cleanup(), resolve(undefined));
    const onError = (err: Error): void => (cleanup(), reject(err));
    zip.once('entry', onEntry);
    zip.once('end', onEnd);
    zip.once('error', onError);
    zip.readEntry();
  });
}

async function entryData(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The archive again, entries in the given order; EPUB/ODF's stored `mimetype` stays stored. */
export function writeZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    if (e.name.endsWith('/')) zip.addEmptyDirectory(e.name, { mtime: e.mtime, forceDosTimestamp: true });
    else zip.addBuffer(e.data, e.name, { compress: e.compressed, mtime: e.mtime, forceDosTimestamp: true });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    zip.outputStream.on('error', reject);
  });
}

/**
 * What sniffing needs, read synchronously from the central directory without unpacking the archive: the
 * entry names and, for a few small entries, their content. Undefined when the bytes are not a zip.
 */
export interface ZipPeek {
  names: string[];
  /** The first entry in the file (by local header), stored: ODF's and EPUB's `mimetype`. */
  firstStored: { name: string; text: string } | undefined;
  /** Content of one entry of at most 1 MB, or undefined. */
  text(name: string): string | undefined;
}

export function peekZip(bytes: Uint8Array): ZipPeek | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 22 || buf.readUInt32LE(0) !== 0x04034b50) return undefined;
  // End of central directory: within the last 64 KB + 22 bytes (the comment is at most 65535 bytes).
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const central = new Map<string, { method: number; size: number; offset: number }>();
  const names: string[] = [];
  for (let i = 0; i < count && at + 46 <= buf.length && buf.readUInt32LE(at) === 0x02014b50; i++) {
    const nameLength = buf.readUInt16LE(at + 28);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength);
    central.set(name, { method: buf.readUInt16LE(at + 10), size: buf.readUInt32LE(at + 20), offset: buf.readUInt32LE(at + 42) });
    names.push(name);
    at += 46 + nameLength + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  const dataAt = (offset: number): number | undefined => {
    if (offset + 30 > buf.length || buf.readUInt32LE(offset) !== 0x04034b50) return undefined;
    return offset + 30 + buf.readUInt16LE(offset + 26) + buf.readUInt16LE(offset + 28);
  };
  const firstNameLength = buf.readUInt16LE(26);
  const firstName = buf.toString('utf8', 30, 30 + firstNameLength);
  const firstStart = dataAt(0);
  const firstStored =
    buf.readUInt16LE(8) === 0 && firstStart !== undefined
      ? { name: firstName, text: buf.toString('latin1', firstStart, Math.min(buf.length, firstStart + Math.min(buf.readUInt32LE(18), 256))) }
      : undefined;
  return {
    names,
    firstStored,
    text(name) {
      const entry = central.get(name);
      if (entry === undefined) return undefined;
      const start = dataAt(entry.offset);
      if (start === undefined || entry.size > buf.length - start) return undefined;
      const raw = buf.subarray(start, start + entry.size);
      try {
        if (entry.method === 0) return raw.toString('utf8');
        if (entry.method === 8) return inflateRawSync(raw, { maxOutputLength: 1 << 20 }).toString('utf8');
      } catch {
        return undefined;
      }
      return undefined;
    },
  };
}
