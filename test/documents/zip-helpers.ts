// Shared by the zip document tests: the real engine (tiny Marian en→de) behind the format=html path, an
// unzip that does not use our reader, the checks every translated file must pass, and LibreOffice.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { createEngine } from '../../src/engine/index.ts';
import type { Engine } from '../../src/engine/types.ts';
import type { DocumentFormat, DocumentLimits, TextUnit } from '../../src/documents/formats/types.ts';
import { planHtml } from '../../src/text/html/index.ts';

export const LIMITS: DocumentLimits = { maxCharacters: 1_000_000, maxUnits: 1_000_000, maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 5000, maxCompressionRatio: 100 };

const FIXTURE = resolve(import.meta.dirname, '../fixtures/models/tiny-marian-en-de');

export interface Translator {
  /** Each unit through the format=html path (planHtml → engine → assemble), all segments in one engine call. */
  translate(units: readonly TextUnit[]): Promise<string[]>;
  close(): Promise<void>;
}

export async function startTranslator(): Promise<Translator> {
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-docs-'));
  symlinkSync(FIXTURE, join(dir, 'tiny-marian-en-de'));
  const engine: Engine = await createEngine(
    loadConfig({ DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1' }),
  );
  return {
    async translate(units) {
      const plans = units.map((u) => planHtml(u.html));
      const segments = plans.flatMap((p) => p.segments);
      const out = segments.length === 0 ? [] : (await engine.translate(segments, 'eng_Latn', 'deu_Latn')).translations;
      let at = 0;
      return plans.map((p) => p.assemble(out.slice(at, (at += p.segments.length))));
    },
    async close() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The text a unit's HTML shows (tags dropped, entities decoded), whitespace collapsed. */
export function htmlText(html: string): string {
  const walk = (node: T.ParentNode): string =>
    node.childNodes.map((c) => (c.nodeName === '#text' ? (c as T.TextNode).value : 'childNodes' in c ? walk(c as T.ParentNode) : '')).join('');
  return squash(walk(parseFragment(html)));
}

export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export interface Entry {
  name: string;
  data: Buffer;
  method: number;
}

/** Every entry of a zip, with yauzl directly (not through the code under test). */
export async function unzip(bytes: Uint8Array): Promise<Entry[]> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const out: Entry[] = [];
  await new Promise<void>((done, fail) => {
    zip.on('entry', (e: yauzl.Entry) => {
      zip.openReadStream(e, (err, stream) => {
        if (err) return fail(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          out.push({ name: e.fileName, data: Buffer.concat(chunks), method: e.compressionMethod });
          zip.readEntry();
        });
        stream.on('error', fail);
      });
    });
    zip.on('end', () => done());
    zip.on('error', fail);
    zip.readEntry();
  });
  return out;
}

export interface XNode {
  name: string;
  attrs: Record<string, string>;
  children: (XNode | string)[];
}

/** Parses XML strictly (throws on anything not well-formed), keeping qualified names. */
export function xmlTree(text: string): XNode {
  const parser = new SaxesParser({ xmlns: true });
  // The one HTML entity the EPUB 2 test file uses (XHTML 1.1's DTD defines it; saxes reads no DTD).
  parser.ENTITIES.nbsp = '\u00a0';
  const root: XNode = { name: '#document', attrs: {}, children: [] };
  const stack = [root];
  parser.on('opentag', (t) => {
    const el: XNode = { name: t.name, attrs: Object.fromEntries(Object.entries(t.attributes).map(([k, v]) => [k, v.value])), children: [] };
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (t) => stack[stack.length - 1]!.children.push(t));
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(text).close();
  return root.children.find((c): c is XNode => typeof c !== 'string')!;
}

export function descendants(node: XNode, name: string, into = true): XNode[] {
  const out: XNode[] = [];
  for (const c of node.children) {
    if (typeof c === 'string') continue;
    if (c.name === name) {
      out.push(c);
      if (!into) continue;
    }
    out.push(...descendants(c, name, into));
  }
  return out;
}

/** Text of the `textName` elements under `node`, not looking into nested `stop` elements (a text box's paragraphs). */
export function textUnder(node: XNode, textName: string, stop?: string): string {
  let out = '';
  for (const c of node.children) {
    if (typeof c === 'string') continue;
    if (c.name === stop) continue;
    if (c.name === textName) out += c.children.filter((x): x is string => typeof x === 'string').join('');
    else out += textUnder(c, textName, stop);
  }
  return out;
}

/**
 * The checks every translated zip document passes: same entries in the same order, every entry but the
 * translated parts byte-identical, translated parts well-formed XML, a stored first `mimetype` stays so.
 * Returns the translated parts' text by name.
 */
export async function checkContainer(before: Uint8Array, after: Uint8Array, translatedParts: readonly string[]): Promise<Map<string, string>> {
  const a = await unzip(before);
  const b = await unzip(after);
  expect(b.map((e) => e.name)).toEqual(a.map((e) => e.name));
  const parts = new Map<string, string>();
  for (const [i, entry] of a.entries()) {
    const out = b[i]!;
    if (translatedParts.includes(entry.name)) {
      const text = out.data.toString('utf8');
      expect(() => xmlTree(text), entry.name).not.toThrow();
      parts.set(entry.name, text);
    } else {
      expect(out.data.equals(entry.data), `${entry.name} is byte-identical`).toBe(true);
    }
  }
  if (a[0]?.name === 'mimetype') expect(b[0]!.method).toBe(0);
  for (const name of translatedParts) expect(parts.has(name), `${name} was translated`).toBe(true);
  return parts;
}

/** Opens the format, translates through the html path, writes: the units, their translations and the result. */
export async function translateFile(format: DocumentFormat, bytes: Uint8Array, translator: Translator, target = 'de') {
  const opened = await format.open(bytes, LIMITS);
  const translations = await translator.translate(opened.units);
  const result = await opened.write(translations, target);
  return { units: opened.units, translations, result };
}

const SOFFICE = process.env.DRAGOMAN_SOFFICE ?? 'soffice';

/** Fails (never skips) when LibreOffice is missing: CI installs it. */
export function requireSoffice(): void {
  const probe = spawnSync(SOFFICE, ['--version'], { encoding: 'utf8', timeout: 120_000 });
  if (probe.error || probe.status !== 0) {
    throw new Error(`LibreOffice (soffice) is needed by the document tests and was not found: install libreoffice-writer-nogui, -calc-nogui and -impress-nogui (${probe.error?.message ?? probe.stderr}).`);
  }
}

/** LibreOffice converts each file (one soffice run for all); returns the output files by input name. */
export function sofficeConvert(files: Record<string, Uint8Array>, to: string): Map<string, Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-soffice-'));
  try {
    const inDir = join(dir, 'in');
    const outDir = join(dir, 'out');
    mkdirSync(inDir);
    const paths = Object.entries(files).map(([name, bytes]) => {
      const path = join(inDir, name);
      writeFileSync(path, bytes);
      return path;
    });
    const run = spawnSync(SOFFICE, [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--norestore', '--convert-to', to, '--outdir', outDir, ...paths], {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, HOME: dir },
    });
    if (run.error || run.status !== 0) throw new Error(`soffice failed (${run.status}): ${run.error?.message ?? ''} ${run.stderr}`);
    const ext = to.split(':')[0]!;
    const out = new Map<string, Buffer>();
    for (const name of Object.keys(files)) {
      const path = join(outDir, `${basename(name).replace(/\.[^.]+$/, '')}.${ext}`);
      if (existsSync(path) && statSync(path).size > 0) out.set(name, readFileSync(path));
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * EPUBCheck (Debian's `epubcheck`) as a command: Debian installs the jar itself as /usr/bin/epubcheck, run by
 * binfmt where that is set up; without it, through java -jar. Fails (never skips) when it is missing.
 */
function epubcheckCommand(): string[] {
  const which = spawnSync('sh', ['-c', 'command -v epubcheck'], { encoding: 'utf8' });
  const path = which.stdout.trim();
  if (which.status !== 0 || path === '') {
    throw new Error('EPUBCheck is needed by the EPUB tests and was not found: install Debian\'s epubcheck package (with a Java runtime).');
  }
  const head = Buffer.alloc(2);
  const fd = openSync(path, 'r');
  readSync(fd, head, 0, 2, 0);
  closeSync(fd);
  // The quick compiler only and the serial collector: a run this short is mostly the JVM starting, which this
  // halves on a busy 2-core machine.
  return head.toString('latin1') === 'PK' ? ['java', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', path] : [path];
}

/** EPUBCheck's verdict on each file, the runs side by side: exit code and its report. */
export async function epubcheck(files: Record<string, Uint8Array>): Promise<Map<string, { code: number | null; report: string }>> {
  const command = epubcheckCommand();
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-epubcheck-'));
  try {
    const runs = Object.entries(files).map(([name, bytes]) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return new Promise<[string, { code: number | null; report: string }]>((done, fail) => {
        const child = spawn(command[0]!, [...command.slice(1), path], { stdio: ['ignore', 'pipe', 'pipe'] });
        let report = '';
        child.stdout.on('data', (c: Buffer) => (report += c.toString('utf8')));
        child.stderr.on('data', (c: Buffer) => (report += c.toString('utf8')));
        child.on('error', fail);
        child.on('close', (code) => done([name, { code, report }]));
      });
    });
    return new Map(await Promise.all(runs));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
