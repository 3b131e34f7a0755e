// The bytes of a text format as a string and back, in the file's own encoding: UTF-8 (with its byte-order mark
// when it had one) or UTF-16 LE with a mark. Anything else is refused rather than guessed: a wrong guess would
// turn every kept byte into different ones.
import { DocumentError } from './types.ts';

export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le';

export interface TextFile {
  text: string;
  encoding: TextEncoding;
  /** The line break the file uses most ("\r\n" or "\n"), for lines a format adds. */
  newline: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of `bytes`, or undefined when they are not text in an encoding we keep (NUL bytes, invalid UTF-8). */
export function tryDecodeText(bytes: Uint8Array): TextFile | undefined {
  let text: string;
  let encoding: TextEncoding;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    text = Buffer.from(bytes.buffer, bytes.byteOffset + 2, bytes.byteLength - 2).toString('utf16le');
    encoding = 'utf16le';
  } else {
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    try {
      text = utf8.decode(bom ? bytes.subarray(3) : bytes);
    } catch {
      return undefined;
    }
    encoding = bom ? 'utf8-bom' : 'utf8';
  }
  if (text.includes('\u0000')) return undefined;
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  return { text, encoding, newline: crlf > lf ? '\r\n' : '\n' };
}

export function decodeText(bytes: Uint8Array, what: string): TextFile {
  const file = tryDecodeText(bytes);
  if (!file) {
    throw new DocumentError(`The ${what} file is not text in UTF-8 (or UTF-16 with a byte-order mark): save it as UTF-8 and send it again.`);
  }
  return file;
}

export function encodeText(text: string, encoding: TextEncoding): Uint8Array {
  if (encoding === 'utf16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const body = Buffer.from(text, 'utf8');
  return encoding === 'utf8-bom' ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

/** The start of a text for sniffing (after a byte-order mark), or '' when the bytes are not text. */
export function textHead(bytes: Uint8Array, chars = 4096): string {
  const file = tryDecodeText(bytes.subarray(0, Math.min(bytes.length, chars * 2)));
  if (file) return file.text.slice(0, chars);
  // The cut may have split a UTF-8 sequence: decode what is whole.
  const head = tryDecodeText(bytes.subarray(0, Math.min(bytes.length, chars * 2) - 3));
  return head ? head.text.slice(0, chars) : '';
}

export function extensionOf(filename: string): string {
  const m = /\.([A-Za-z0-9]+)$/.exec(filename);
  return m ? m[1]!.toLowerCase() : '';
}
