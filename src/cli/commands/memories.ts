// dragoman memories list|create|import|export|segments|delete --key ID: a key's translation memories, on the
// server's database through the same memory book as /v1/memories (docs/memories.md).
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extname } from 'node:path';
import type { ImportFormat, Memory } from '../../memories/index.ts';
import { memoryNamed, withMemories } from '../memories-context.ts';
import { CliError, printableJson, table, usageError, type CliIo } from '../io.ts';
import { groupHelp, helpOrUnknown, misuse, parse, syntax, type Syntax } from '../syntax.ts';

export const summary = "import, export, list and delete a key's translation memories";

const KEY = { type: 'string', value: 'ID', required: true, about: 'the key whose memories these are (IDs: "dragoman keys list")' } as const;

const LIST = syntax({
  command: 'memories list',
  about: "List the key's memories: ID, name, languages, segment count.",
  flags: { key: KEY, json: { type: 'boolean', about: 'print the memories as JSON' } },
});

const CREATE = syntax({
  command: 'memories create',
  args: 'NAME',
  about: 'Make an empty memory.',
  flags: {
    key: KEY,
    source: { type: 'string', value: 'LANG', required: true, about: 'source language code, e.g. en' },
    targets: { type: 'string', value: 'LANG[,LANG...]', about: 'target language codes, e.g. de,fr' },
  },
});

const IMPORT = syntax({
  command: 'memories import',
  args: 'FILE',
  about: 'Import a TMX, TSV or CSV file (by its extension, or --format) as a new memory, or into one (--into).\n' +
    'The file is read as a stream; an import that fails leaves the memory as it was.',
  flags: {
    key: KEY,
    into: { type: 'string', value: 'MEMORY', about: 'ID or name of a memory to add the segments to (default: a new memory)' },
    name: { type: 'string', value: 'NAME', about: "the new memory's name (default: the file's name)" },
    format: { type: 'string', value: 'tmx|tsv|csv', about: "the file's format (default: from its extension)" },
    source: { type: 'string', value: 'LANG', about: "source language: TSV/CSV, or a TMX whose srclang is *all*" },
    target: { type: 'string', value: 'LANG', about: 'target language of a TSV/CSV file' },
  },
});

const EXPORT = syntax({
  command: 'memories export',
  args: 'MEMORY',
  about: 'Write a memory (ID or name) as TMX 1.4 to -o FILE, or to standard output.',
  flags: { key: KEY, output: { type: 'string', short: 'o', value: 'FILE', about: 'where to write the TMX (default: standard output)' } },
});

const SEGMENTS = syntax({
  command: 'memories segments',
  args: 'MEMORY',
  about: "List a memory's segments (ID or name), a page at a time.",
  flags: {
    key: KEY,
    text: { type: 'string', value: 'TEXT', about: 'only segments whose source or target contains TEXT' },
    limit: { type: 'string', value: 'N', about: 'segments per page (default 100, at most 1000)' },
    after: { type: 'string', value: 'SEGMENT', about: 'the page after this segment ID (printed as "next")' },
    json: { type: 'boolean', about: 'print the page as JSON' },
  },
});

const DELETE = syntax({
  command: 'memories delete',
  args: 'MEMORY',
  about: 'Delete a memory (ID or name) and its segments.',
  flags: { key: KEY },
});

const HELP = groupHelp('memories', [LIST, CREATE, IMPORT, EXPORT, SEGMENTS, DELETE]);

function keyOf(s: Syntax, key: string | undefined): string {
  if (!key) throw misuse(s, '--key is required: the ID of the key whose memories these are (dragoman keys list)');
  return key;
}

function one(s: Syntax, positionals: string[], what: string): string {
  if (positionals.length !== 1) throw misuse(s, `expected one ${what}`);
  return positionals[0]!;
}

function formatOf(file: string, given: string | undefined): ImportFormat {
  const f = (given ?? extname(file).slice(1)).toLowerCase();
  if (f === 'tmx' || f === 'tsv' || f === 'csv') return f;
  throw usageError(given ? `--format must be tmx, tsv or csv, got "${given}"` : `cannot tell the format of ${file} from its extension: give --format tmx|tsv|csv`);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

const describe = (m: Memory) => `${m.id} "${m.name}" (${m.source} → ${m.targets.join(', ') || 'no target yet'}, ${count(m.segmentCount)} segments)`;

function positiveInt(flag: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) throw usageError(`${flag} must be an integer from 1 to ${max}, got "${value}"`);
  return n;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parse(LIST, rest);
      const list = await withMemories(io, keyOf(LIST, values.key), ({ book, owner }) => book.list(owner));
      if (values.json) {
        io.out(printableJson(list.map(({ id, name, source, targets, segmentCount, createdAt }) => ({ id, name, source, targets, segmentCount, createdAt: new Date(createdAt).toISOString() }))));
        return 0;
      }
      if (!list.length) {
        io.out('No memories. Import one with: dragoman memories import FILE.tmx --key ID');
        return 0;
      }
      const rows = [['ID', 'NAME', 'SOURCE', 'TARGETS', 'SEGMENTS']];
      for (const m of list) rows.push([m.id, m.name, m.source, m.targets.join(','), String(m.segmentCount)]);
      table(rows).forEach((l) => io.out(l));
      return 0;
    }
    case 'create': {
      const { values, positionals } = parse(CREATE, rest);
      const name = one(CREATE, positionals, 'NAME');
      if (!values.source) throw misuse(CREATE, '--source is required: the source language code, e.g. --source en');
      const targets = values.targets ? values.targets.split(',').map((t) => t.trim()).filter(Boolean) : [];
      const m = await withMemories(io, keyOf(CREATE, values.key), ({ book, owner }) => book.create(owner, name, values.source, targets));
      io.out(`Created memory ${describe(m)}.`);
      return 0;
    }
    case 'import': {
      const { values, positionals } = parse(IMPORT, rest);
      const file = one(IMPORT, positionals, 'FILE');
      const format = formatOf(file, values.format);
      if (values.into && values.name) throw misuse(IMPORT, '--into and --name exclude each other: a memory imported into keeps its name');
      if (!(await stat(file).then((s) => s.isFile(), () => false))) throw new CliError(`${file}: no such file`);
      const r = await withMemories(io, keyOf(IMPORT, values.key), async ({ book, owner }) => {
        const into = values.into ? (await memoryNamed(book, owner, values.into)).id : undefined;
        const name = values.name ?? file.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
        return book.import(owner, { format, into, name, source: values.source, target: values.target }, createReadStream(file));
      });
      io.out(`Imported ${count(r.imported)} segments (${count(r.skipped)} units skipped) into memory ${describe(r.memory)}.`);
      return 0;
    }
    case 'export': {
      const { values, positionals } = parse(EXPORT, rest);
      const ref = one(EXPORT, positionals, 'MEMORY');
      await withMemories(io, keyOf(EXPORT, values.key), async ({ book, owner }) => {
        const m = await memoryNamed(book, owner, ref);
        const { chunks } = await book.export(owner, m.id);
        if (values.output) await pipeline(Readable.from(chunks), createWriteStream(values.output));
        else for await (const chunk of chunks) process.stdout.write(chunk);
        if (values.output) io.err(`Exported memory ${describe(m)} to ${values.output}.`);
      });
      return 0;
    }
    case 'segments': {
      const { values, positionals } = parse(SEGMENTS, rest);
      const ref = one(SEGMENTS, positionals, 'MEMORY');
      const limit = positiveInt('--limit', values.limit, 1000) ?? 100;
      const after = positiveInt('--after', values.after, Number.MAX_SAFE_INTEGER);
      const page = await withMemories(io, keyOf(SEGMENTS, values.key), async ({ book, owner }) => {
        const m = await memoryNamed(book, owner, ref);
        return book.segments(owner, m.id, { limit, ...(after !== undefined ? { after } : {}), ...(values.text ? { text: values.text } : {}) });
      });
      if (values.json) {
        io.out(printableJson({ segments: page.segments.map(({ id, source, target, targetLang, reviewed }) => ({ id, source, target, targetLanguage: targetLang, status: reviewed ? 'reviewed' : 'unreviewed' })), segmentCount: page.total, ...(page.next !== undefined ? { next: page.next } : {}) }));
        return 0;
      }
      const rows = [['ID', 'TARGET', 'STATUS', 'SOURCE', 'TRANSLATION']];
      for (const s of page.segments) rows.push([String(s.id), s.targetLang, s.reviewed ? 'reviewed' : 'unreviewed', s.source, s.target]);
      table(rows).forEach((l) => io.out(l));
      if (page.next !== undefined) io.out(`next: --after ${page.next}`);
      return 0;
    }
    case 'delete': {
      const { values, positionals } = parse(DELETE, rest);
      const ref = one(DELETE, positionals, 'MEMORY');
      const m = await withMemories(io, keyOf(DELETE, values.key), async ({ book, owner }) => {
        const found = await memoryNamed(book, owner, ref);
        await book.delete(owner, found.id);
        return found;
      });
      io.out(`Deleted memory ${describe(m)}.`);
      return 0;
    }
    default:
      return helpOrUnknown(io, 'memories', sub, HELP);
  }
}
