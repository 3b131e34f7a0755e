// Document translation benchmark: a DOCX of about 100 pages (about 40,000 words in paragraphs with bold, italic
// and link runs, headings and tables), made with npm's `docx`, translated through the document path (format
// detection, units with inline tags, the service's format=html path, tag placement, the zip written back), side
// by side with the same text sent to the engine as plain strings (its sentences, the same batches). Resident memory
// is sampled every 50 ms while the document is translated and compared with the idle process's.
//
//   npm run bench:documents [-- --pages 100] [--from en] [--to de] [--rounds 1] [--text distinct|repeated] [--out bench.docx] [--pdf-pages 20] [--pdf-docs 4] [--only pdf]
//
// The PDF row: the same kind of document, --pdf-pages long, printed to PDF by LibreOffice (skipped without soffice),
// read and written by the PDF format (on its PDF thread) with each unit's own text as its translation, --pdf-docs
// times (default 4): the first document starts the PDF thread, the next ones find it running (the second still
// warming up the thread's compiled code). The time per page beyond translation. Target: ≤ 50 ms per page.
// --only pdf: the PDF rows alone.
//
// --text distinct (default): English captions, each used once (Multi30k's training captions from ../shared when
// present, else the tiny en-de fixture's 500 dev sources, cycled), so the engine translates about as many sentences
// as the document has, as in a real document. --text repeated: eight sentences cycled, so the engine translates
// only a few hundred distinct ones and the document path's own work weighs most.
//
// Models come from DRAGOMAN_MODELS_DIR (e.g. opus-mt-en-de); the translation cache is off so neither run helps the
// other. Targets: the document at most 10 % slower than the plain strings, at most 200 MB above idle.
//
// The LLM context row: a --llm-pages DOCX (default 5) through the document path on the tiny-qwen3-mt fixture (or
// --llm DIR, a folder holding one LLM translator that declares contextPrompt), with each sentence's earlier sentences
// as context (DRAGOMAN_DOCUMENT_CONTEXT_CHARS, --context-chars, default 500) and without, alternated --rounds times:
// time per document, prompt tokens and generated tokens. --only llm-context: that row alone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AlignmentType, Document, ExternalHyperlink, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { loadConfig } from '../src/config/env.ts';
import { createDetector } from '../src/detect/index.ts';
import { checkDocument, limitsOf } from '../src/documents/accept.ts';
import { formatById } from '../src/documents/formats/index.ts';
import { SegmentTableReader } from '../src/documents/segment-table.ts';
import { translateUnits } from '../src/documents/units.ts';
import { DocumentWorkers } from '../src/documents/worker/pool.ts';
import { createEngine } from '../src/engine/index.ts';
import { resolveLanguage } from '../src/languages/catalog.ts';
import { createService } from '../src/service/index.ts';
import { planHtml } from '../src/text/html/index.ts';
import { planText } from '../src/text/segment.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const pages = Number(opt('pages', '100'));
const from = opt('from', 'en');
const to = opt('to', 'de');
const rounds = Number(opt('rounds', '1'));

const REPEATED = [
  'The committee met on Tuesday to discuss the budget for the coming year.',
  'Several members asked whether the new library could open before the winter.',
  'Our engineers tested the bridge under heavy load and found no weakness.',
  'The report recommends planting more trees along the northern road.',
  'Visitors can buy tickets at the station or on the museum website.',
  'After a long debate, the council agreed to extend the opening hours.',
  'The weather in the mountains changes quickly, so bring warm clothes.',
  'Children from three schools took part in the science fair this spring.',
];

/** The captions of --text distinct (see the header). */
function distinctSentences(): string[] {
  const multi30k = new URL('../../shared/data/multi30k/train.en.gz', import.meta.url);
  if (existsSync(multi30k)) return gunzipSync(readFileSync(multi30k)).toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  const dev = new URL('../test/fixtures/models/tiny-marian-en-de/dev.jsonl', import.meta.url);
  return readFileSync(dev, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { src: string }).src);
}

const SENTENCES = opt('text', 'distinct') === 'repeated' ? REPEATED : distinctSentences();

/** About 400 words a page: three paragraphs of runs, a heading every page, a table every fifth page. */
function makeDocument(pageCount: number): Document {
  const children: (Paragraph | Table)[] = [];
  let s = 0;
  const sentence = () => SENTENCES[s++ % SENTENCES.length]!;
  for (let p = 0; p < pageCount; p++) {
    children.push(new Paragraph({ text: `Chapter ${p + 1}: ${sentence()}`, heading: HeadingLevel.HEADING_1 }));
    for (let k = 0; k < 3; k++) {
      const runs: (TextRun | ExternalHyperlink)[] = [];
      for (let j = 0; j < 10; j++) {
        const text = sentence() + ' ';
        if (j % 4 === 1) runs.push(new TextRun({ text, bold: true }));
        else if (j % 4 === 2) runs.push(new TextRun({ text, italics: true }));
        else if (j % 7 === 3) runs.push(new ExternalHyperlink({ link: 'https://example.com/report', children: [new TextRun({ text, style: 'Hyperlink' })] }));
        else runs.push(new TextRun(text));
      }
      children.push(new Paragraph({ children: runs, alignment: AlignmentType.JUSTIFIED }));
    }
    if (p % 5 === 4) {
      const row = () => new TableRow({ children: [0, 1, 2].map(() => new TableCell({ children: [new Paragraph(sentence())] })) });
      children.push(new Table({ rows: [row(), row(), row(), row()] }));
    }
  }
  return new Document({ sections: [{ children }] });
}

const rss = () => process.memoryUsage().rss;
/** CPU time of the whole process (the engine's threads included), ms: less moved by other load than wall time. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const kb = (bytes: number) => `${(bytes / 2 ** 10).toFixed(0)} KB`;

async function main(): Promise<void> {
  if (opt('only', '') === 'pdf') return pdfRow();
  if (opt('only', '') === 'llm-context') return llmContextRow();
  const docx = formatById('docx');
  if (!docx) {
    console.error('bench:documents needs the DOCX format (src/documents/formats/zip-formats.ts registers none here).');
    process.exit(2);
  }
  const bytes = await Packer.toBuffer(makeDocument(pages));
  if (args.includes('--out')) writeFileSync(opt('out', 'bench.docx'), bytes);
  const config = loadConfig({ ...process.env, DRAGOMAN_CACHE_SIZE: '0' });
  const engine = await createEngine(config);
  const detector = await createDetector({ secondOpinion: config.detectSecondOpinion });
  const service = createService({ config, engine, detector, planners: { text: planText, html: planHtml } });
  const workers = new DocumentWorkers(config);
  const source = resolveLanguage(from)!;
  const target = resolveLanguage(to)!;
  if (!engine.route(source.flores, target.flores)) {
    console.error(`No installed model translates ${from} into ${to} (DRAGOMAN_MODELS_DIR=${config.modelsDir}).`);
    process.exit(2);
  }
  // Warm up the engine on a few sentences so neither run pays for the first session runs.
  await engine.translate(REPEATED, source.flores, target.flores);
  global.gc?.();
  const idle = rss();

  // What the engine did for each side (its batches, rows and generated tokens): int8 results depend on which sentences share
  // a batch, so the two sides may generate a little more or less for the same text.
  const work = { runs: 0, rows: 0, tokens: 0 };
  engine.events.on('batch', (e: { rows: number; generatedTokens: number }) => {
    work.runs++;
    work.rows += e.rows;
    work.tokens += e.generatedTokens;
  });
  const taken = () => {
    const w = `${work.runs} batches, ${work.rows} rows, ${work.tokens} tokens generated`;
    work.runs = work.rows = work.tokens = 0;
    return w;
  };

  // Each round: the document, then the same text as plain strings (round 1 runs the document code cold, as the
  // first document of a server; later rounds as a server that has translated some).
  const rows: string[] = [];
  let summary = '';
  let peak = idle;
  let stringsPeak = idle;
  for (let round = 1; round <= rounds; round++) {
    // 1. The document: open (zip read, units planned and counted), translate, write.
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
    const t0 = performance.now();
    const c0 = cpuMs();
    const checked = await checkDocument(service, workers, { bytes, filename: 'bench.docx', target: to, source: from }, config);
    const tOpened = performance.now();
    const units = new SegmentTableReader(checked.planned.segments);
    const translations = await translateUnits(service, checked.planned.segments, source, target, () => undefined);
    const tTranslated = performance.now();
    const out = await workers.write(bytes, checked.planned.format, limitsOf(config), translations, target.code);
    const documentMs = performance.now() - t0;
    const documentCpu = cpuMs() - c0;
    clearInterval(sampler);
    const documentWork = taken();
    const phases = `open and count ${((tOpened - t0) / 1000).toFixed(1)} s, translate ${((tTranslated - tOpened) / 1000).toFixed(1)} s, write ${((performance.now() - tTranslated) / 1000).toFixed(1)} s`;

    // 2. The same text as plain strings: each unit's text, its sentences, the same batches, straight to the engine.
    const texts = Array.from({ length: units.units }, (_, i) => (units.segmentsOf(i) ?? []).join(' '));
    const stringsSampler = setInterval(() => (stringsPeak = Math.max(stringsPeak, rss())), 50);
    const t1 = performance.now();
    const c1 = cpuMs();
    const BATCH = 64;
    const chunks: string[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) chunks.push(texts.slice(i, i + BATCH).flatMap((t) => planText(t).segments));
    const worker = async () => {
      for (let c = chunks.shift(); c; c = chunks.shift()) if (c.length) await engine.translate(c, source.flores, target.flores);
    };
    await Promise.all([worker(), worker()]);
    const stringsMs = performance.now() - t1;
    const stringsCpu = cpuMs() - c1;
    clearInterval(stringsSampler);

    if (round === 1) {
      const words = texts.join(' ').split(/\s+/).filter(Boolean).length;
      summary = `DOCX: ${pages} pages, ${words} words, ${units.units} units, ${checked.characters} characters, ${mb(bytes.length)} in, ${mb(out.length)} out`;
    }
    console.log(`round ${round}: document path ${phases} (engine: ${documentWork}); plain strings (engine: ${taken()})`);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    rows.push(`| ${round} | ${s(documentMs)} | ${s(stringsMs)} | ${(documentMs / stringsMs).toFixed(2)} (target ≤ 1.10) | ${s(documentCpu)} / ${s(stringsCpu)} = ${(documentCpu / stringsCpu).toFixed(2)} |`);
  }

  console.log(summary);
  console.log('');
  console.log('| round | the DOCX through the document path | plain strings through the engine | document ÷ strings | CPU time, all threads: document / strings |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log('');
  console.log(`resident memory while translating the document: idle ${mb(idle)}, peak ${mb(peak)}, +${mb(peak - idle)} (target ≤ +200 MB)`);
  // The engine's own buffers grow with the largest batch it has run, whatever sent it: the plain strings' peak shows that part.
  console.log(`resident memory while translating the plain strings: peak ${mb(stringsPeak)}, +${mb(stringsPeak - idle)}`);
  await workers.close();
  await engine.close();
  await pdfRow();
  await llmContextRow();
}

/** The LLM context row (see the header): the same document with and without its earlier sentences as context. */
async function llmContextRow(): Promise<void> {
  let dir = opt('llm', '');
  let made: string | undefined;
  if (!dir) {
    made = dir = mkdtempSync(join(tmpdir(), 'dragoman-bench-llm-'));
    symlinkSync(new URL('../test/fixtures/models/tiny-qwen3-mt', import.meta.url).pathname, join(dir, 'tiny-qwen3-mt'));
  }
  const llmPages = Number(opt('llm-pages', '5'));
  const chars = Number(opt('context-chars', '500'));
  const bytes = await Packer.toBuffer(makeDocument(llmPages));
  for (const fixed of [undefined, 20]) await llmContextRun(dir, bytes, llmPages, chars, fixed);
  if (made) rmSync(made, { recursive: true, force: true });
}

/** One engine's rows of the LLM context table; `fixed`: every sentence generates exactly that many tokens (the prompt's cost alone). */
async function llmContextRun(dir: string, bytes: Uint8Array, llmPages: number, chars: number, fixed: number | undefined): Promise<void> {
  const config = loadConfig({ ...process.env, DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_CACHE_SIZE: '0' });
  const engine = await createEngine(config, fixed === undefined ? {} : { fixedNewTokens: fixed });
  const detector = await createDetector({ secondOpinion: config.detectSecondOpinion });
  const service = createService({ config, engine, detector, planners: { text: planText, html: planHtml } });
  const workers = new DocumentWorkers(config);
  try {
    const model = engine.models().find((m) => m.status === 'ok' && m.prompt?.context);
    const source = resolveLanguage(from)!;
    const target = resolveLanguage(to)!;
    if (!model) {
      console.log(`LLM context row skipped: no model in ${dir} declares contextPrompt.`);
      return;
    }
    await engine.translate(REPEATED, source.flores, target.flores, { model: { name: model.name } });
    const work = { rows: 0, sourceTokens: 0, tokens: 0 };
    engine.events.on('batch', (e: { rows: number; sourceTokens: number; generatedTokens: number }) => {
      work.rows += e.rows;
      work.sourceTokens += e.sourceTokens;
      work.tokens += e.generatedTokens;
    });
    const checked = await checkDocument(service, workers, { bytes, filename: 'bench.docx', target: to, source: from }, config);
    const units = new SegmentTableReader(checked.planned.segments);
    let sentences = 0;
    for (let i = 0; i < units.units; i++) sentences += units.segmentsOf(i)?.length ?? 0;
    const runs = { with: [] as number[], without: [] as number[] };
    const tokens = { with: '', without: '' };
    for (let round = 1; round <= rounds; round++) {
      for (const way of ['without', 'with'] as const) {
        work.rows = work.sourceTokens = work.tokens = 0;
        const t0 = performance.now();
        await translateUnits(service, checked.planned.segments, source, target, () => undefined, undefined, {
          model: { name: model.name }, ...(way === 'with' ? { documentContext: { chars } } : {}),
        });
        runs[way].push(performance.now() - t0);
        tokens[way] = `${work.rows} rows, ${work.sourceTokens} prompt tokens (padded), ${work.tokens} generated`;
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const w = median(runs.with);
    const wo = median(runs.without);
    console.log('');
    const answers = fixed === undefined ? 'the model\'s own answers' : `every answer exactly ${fixed} tokens (the prompt's cost alone)`;
    console.log(`LLM context: ${model.name} (${model.precision}), a ${llmPages}-page DOCX, ${units.units} units, ${sentences} sentences, ${checked.characters} characters; ${answers}; medians of ${rounds} rounds`);
    console.log('| document path | time per document | per sentence | engine work |');
    console.log('|---|---|---|---|');
    console.log(`| without context | ${(wo / 1000).toFixed(2)} s | ${(wo / sentences).toFixed(1)} ms | ${tokens.without} |`);
    console.log(`| earlier sentences as context (${chars} characters) | ${(w / 1000).toFixed(2)} s | ${(w / sentences).toFixed(1)} ms | ${tokens.with} |`);
    console.log(`| context ÷ none | ${(w / wo).toFixed(2)} | | |`);
  } finally {
    await workers.close();
    await engine.close();
  }
}

/** The PDF row (see the header): LibreOffice prints the document, the PDF format reads and writes it. */
async function pdfRow(): Promise<void> {
  const pdfPages = Number(opt('pdf-pages', '20'));
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-bench-pdf-'));
  try {
    writeFileSync(join(dir, 'bench.docx'), await Packer.toBuffer(makeDocument(pdfPages)));
    const run = spawnSync('soffice', [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', dir, join(dir, 'bench.docx')], { encoding: 'utf8', timeout: 600_000, env: { ...process.env, HOME: dir } });
    if (run.error || run.status !== 0 || !existsSync(join(dir, 'bench.pdf'))) {
      console.log(`PDF row skipped: LibreOffice (soffice) could not print the document (${run.error?.message ?? run.stderr}).`);
      return;
    }
    const bytes = new Uint8Array(readFileSync(join(dir, 'bench.pdf')));
    const format = formatById('pdf')!;
    const limits = { maxCharacters: 10_000_000, maxUnits: 100_000, maxUncompressedBytes: 300 * 1024 * 1024, maxZipEntries: 10_000, maxCompressionRatio: 200 };
    const count = Number(/\/Type\s*\/Pages[^>]*?\/Count\s+(\d+)/.exec(Buffer.from(bytes).toString('latin1'))?.[1] ?? pdfPages);
    console.log('');
    console.log('| PDF | pages | units | read | write | per page, beyond translation | CPU per page (all threads) |');
    console.log('|---|---|---|---|---|---|---|');
    // The first document starts the PDF thread (pdf.js loaded, fonts parsed); the next ones find it running.
    const docs = Math.max(2, Number(opt('pdf-docs', '4')));
    const runs = ['first document (PDF thread started)', ...Array.from({ length: docs - 1 }, (_, i) => `document ${i + 2} (PDF thread running)`)];
    for (const run of runs) {
      const c0 = cpuMs();
      const t0 = performance.now();
      const doc = await format.open(bytes, limits);
      const t1 = performance.now();
      const out = await doc.write(doc.units.map((u) => u.html), to);
      const t2 = performance.now();
      const cpu = cpuMs() - c0;
      console.log(`| LibreOffice PDF, ${kb(bytes.length)} in, ${kb(out.length)} out, ${run} | ${count} | ${doc.units.length} | ${(t1 - t0).toFixed(0)} ms | ${(t2 - t1).toFixed(0)} ms | ${((t2 - t0) / count).toFixed(1)} ms (target ≤ 50 ms) | ${(cpu / count).toFixed(1)} ms |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
