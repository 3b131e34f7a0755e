// A one-sentence request's latency under bulk work, priorities against first come, first served, on `dragoman serve`
// started from the CLI. For each model, beam size and DRAGOMAN_SCHEDULING (fifo, priority): the one-sentence request's
// p50 and p95 idle, then while (a) two clients each keep a 64-sentence request in flight, (b) a document job of
// `--paragraphs` paragraphs runs, (c) both; and what the bulk work got done meanwhile (the clients' sentences a
// second, the document's time). One table at the end.
//
//   npm run bench:fairness [-- --models tiny,base] [--beams 1,4] [--probes 15] [--paragraphs 600] [--schedulings fifo,priority]
//                          [--base-beams 1,4] [--base-probes 15] [--base-paragraphs 600]   (bench-marian-base's own)
//
// `base` is bench-marian-base (bench-model-folder.ts finds it; `python3 ../shared/models/_build/make_bench_model.py
// ../bench-models/bench-marian-base` makes it), `tiny` the tiny en-de fixture.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchModelFolder, ROOT } from './bench-model-folder.ts';
import { benchEnv, enterpriseKey, startServer } from './bench-server.ts';

const { values } = parseArgs({
  options: {
    models: { type: 'string', default: 'tiny,base' },
    beams: { type: 'string', default: '1,4' },
    probes: { type: 'string', default: '15' },
    paragraphs: { type: 'string', default: '600' },
    'base-paragraphs': { type: 'string' },
    'base-probes': { type: 'string' },
    'base-beams': { type: 'string' },
    schedulings: { type: 'string', default: 'fifo,priority' },
  },
});

const TINY = join(ROOT, 'test/fixtures/models/tiny-marian-en-de');
const SENTENCES = readFileSync(join(TINY, 'dev.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { src: string }).src);
/** Bulk work and probes use different sentences: the engine shares a sentence in flight between requests. */
const BULK = SENTENCES.slice(0, 400);
const PROBES = SENTENCES.slice(400);

interface Phase { p50: number; p95: number; probes: number; sentencesPerSecond?: number; documentSeconds?: number }
interface Row { model: string; beams: number; scheduling: string; idle: Phase; a: Phase; b: Phase; c: Phase }

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function modelsFolder(work: string, folder: string): string {
  const models = join(work, 'models');
  const model = join(models, 'bench-en-de');
  mkdirSync(model, { recursive: true });
  for (const f of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx']) {
    if (existsSync(join(folder, f))) symlinkSync(join(folder, f), join(model, f));
  }
  writeFileSync(join(model, 'dragoman.json'), JSON.stringify({ family: 'marian', source: 'en', target: 'de' }));
  return models;
}

async function run(label: string, folder: string, beams: number, scheduling: string, probes: number, paragraphs: number): Promise<Row> {
  const work = mkdtempSync(join(tmpdir(), 'dragoman-fairness-'));
  const env = benchEnv(work, modelsFolder(work, folder), { DRAGOMAN_BEAM: String(beams), DRAGOMAN_SCHEDULING: scheduling });
  const key = enterpriseKey(env);
  const { url, child } = await startServer(env);
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  let probeAt = 0;
  const translate = async (q: string[]) => {
    const res = await fetch(`${url}/v1/translate`, { method: 'POST', headers, body: JSON.stringify({ q, source: 'en', target: 'de' }) });
    if (res.status !== 200) throw new Error(`translate: HTTP ${res.status} ${await res.text()}`);
    await res.json();
  };
  /** Sequential one-sentence requests, a short pause between them, until `n` or `until()` says stop. */
  const probe = async (n: number, until?: () => boolean): Promise<number[]> => {
    const ms: number[] = [];
    while (ms.length < n && !until?.()) {
      const t0 = performance.now();
      await translate([PROBES[probeAt++ % PROBES.length]!]);
      ms.push(performance.now() - t0);
      await sleep(100);
    }
    return ms;
  };
  const phase = (ms: number[]): Phase => ({ p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), probes: ms.length });

  /**
   * Two clients, each with one 64-sentence request in flight at all times; stop() waits for their last requests and
   * answers the sentences a second over the whole time, those last requests included.
   */
  const clients = () => {
    let stop = false;
    let sentences = 0;
    let at = 0;
    const t0 = performance.now();
    const loop = async () => {
      while (!stop) {
        const q = Array.from({ length: 64 }, () => BULK[at++ % BULK.length]!);
        await translate(q);
        sentences += q.length;
      }
    };
    const running = [loop(), loop()];
    return {
      async stop() {
        stop = true;
        await Promise.all(running);
        return sentences / ((performance.now() - t0) / 1000);
      },
    };
  };

  /** A plain-text document of `paragraphs` paragraphs (two sentences each), uploaded; resolves with its seconds. */
  const documentJob = async () => {
    const text = Array.from({ length: paragraphs }, (_, i) => `${BULK[(2 * i) % BULK.length]} ${BULK[(2 * i + 1) % BULK.length]}`).join('\n\n');
    const form = new FormData();
    form.set('file', new Blob([text], { type: 'text/plain' }), 'bench.txt');
    form.set('source', 'en');
    form.set('target', 'de');
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/documents`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    if (res.status !== 202) throw new Error(`document: HTTP ${res.status} ${await res.text()}`);
    const { data } = (await res.json()) as { data: { document: { id: string } } };
    let done = false;
    const finished = (async () => {
      for (;;) {
        await sleep(200);
        const s = await fetch(`${url}/v1/documents/${data.document.id}`, { headers: { 'x-api-key': key } });
        const { data: d } = (await s.json()) as { data: { document: { status: string } } };
        if (d.document.status === 'failed') throw new Error('document job failed');
        if (d.document.status === 'done') {
          done = true;
          return (performance.now() - t0) / 1000;
        }
      }
    })();
    return { finished, done: () => done };
  };

  try {
    await probe(3); // warm-up
    const idle = phase(await probe(probes));

    let load = clients();
    await sleep(500);
    const a = phase(await probe(probes));
    a.sentencesPerSecond = await load.stop();

    let doc = await documentJob();
    await sleep(500);
    const b = phase(await probe(probes, doc.done));
    b.documentSeconds = await doc.finished;

    load = clients();
    doc = await documentJob();
    await sleep(500);
    const c = phase(await probe(probes, doc.done));
    c.documentSeconds = await doc.finished;
    c.sentencesPerSecond = await load.stop();
    const row = { model: label, beams, scheduling, idle, a, b, c };
    console.error(JSON.stringify(row));
    return row;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
const base = benchModelFolder(undefined);
for (const model of values.models.split(',')) {
  const folder = model === 'base' ? base : TINY;
  if (model === 'base' && folder === TINY) {
    console.error('bench-marian-base not found: skipped (make it with ../shared/models/_build/make_bench_model.py)');
    continue;
  }
  const probes = Number(model === 'base' ? values['base-probes'] ?? values.probes : values.probes);
  const paragraphs = Number(model === 'base' ? values['base-paragraphs'] ?? values.paragraphs : values.paragraphs);
  const beamList = model === 'base' ? values['base-beams'] ?? values.beams : values.beams;
  for (const beams of beamList.split(',').map(Number)) {
    for (const scheduling of values.schedulings.split(',')) {
      rows.push(await run(model === 'base' ? `bench-marian-base (${paragraphs} par.)` : `tiny (${paragraphs} par.)`, folder, beams, scheduling, probes, paragraphs));
    }
  }
}

const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x)}` : '-');
const pair = (p: Phase) => `${ms(p.p50)} / ${ms(p.p95)}`;
const ratio = (p: Phase, idle: Phase) => `${(p.p95 / idle.p50).toFixed(1)}×`;
console.log('| model | beams | scheduling | idle p50 / p95 ms | (a) 2 × 64-sentence clients | (b) document | (c) both | p95 ÷ idle p50: a, b, c | (a) bulk sentences/s | (b) document s | (c) sentences/s, document s |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.model} | ${r.beams} | ${r.scheduling} | ${pair(r.idle)} | ${pair(r.a)} | ${pair(r.b)} | ${pair(r.c)} | ${ratio(r.a, r.idle)}, ${ratio(r.b, r.idle)}, ${ratio(r.c, r.idle)} | ${r.a.sentencesPerSecond!.toFixed(1)} | ${r.b.documentSeconds!.toFixed(1)} | ${r.c.sentencesPerSecond!.toFixed(1)}, ${r.c.documentSeconds!.toFixed(1)} |`);
}
