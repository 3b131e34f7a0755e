// Every family translates exactly as transformers.js does with the same files: the fixtures' reference.jsonl is
// transformers.js' own pipeline('translation') (greedy; the `>>xxx<<` token written in front of the text for the
// multi-target OPUS-MT model, the bare text for the multi-source one, src_lang/tgt_lang for M2M-100 and mBART-50), made by scripts/fixtures/make_reference.mjs
// without Dragoman's engine. fp32 against its fp32 run, int8 against its q8 run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { familyReference as reference } from '../fixture-models.ts';
import { FIXTURES, engineOver, linkModel, rate, tempDir } from './helpers.ts';

const FLORES: Record<string, string> = { en: 'eng_Latn', de: 'deu_Latn', fr: 'fra_Latn', cs: 'ces_Latn' };
type PipelineArgs = (s: string, t: string, text: string) => [string, Record<string, string>];
const FAMILIES: { folder: string; family: string; directions: string[]; args: PipelineArgs }[] = [
  { folder: 'opus-mt-tiny-en-mul', family: 'marian', directions: ['en>de', 'en>fr', 'en>cs'],
    args: (_s, t, text) => [`${{ de: '>>deu<<', fr: '>>fra<<', cs: '>>ces<<' }[t]} ${text}`, {}] },
  { folder: 'opus-mt-tiny-mul-en', family: 'marian', directions: ['de>en', 'fr>en'], args: (_s, _t, text) => [text, {}] },
  { folder: 'tiny-m2m100', family: 'm2m100', directions: ['en>de', 'de>en'], args: (s, t, text) => [text, { src_lang: s, tgt_lang: t }] },
  { folder: 'tiny-mbart50', family: 'mbart50', directions: ['en>de', 'de>en'],
    args: (s, t, text) => [text, { src_lang: { en: 'en_XX', de: 'de_DE' }[s]!, tgt_lang: { en: 'en_XX', de: 'de_DE' }[t]! }] },
];

/**
 * transformers.js' q8 translations made here, on this machine: onnxruntime's int8 kernels round differently on
 * processors with and without AVX-512 VNNI, so a q8 reference written on another machine is not the peer's answer
 * here (its fp32 one is). The same call as scripts/fixtures/make_reference.mjs.
 */
async function liveQ8(folder: string, args: PipelineArgs, rows: { src: string; src_lang: string; tgt_lang: string }[]): Promise<string[]> {
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = FIXTURES + '/';
  env.useBrowserCache = false;
  env.useFSCache = false;
  const maxLength = (JSON.parse(readFileSync(join(FIXTURES, folder, 'generation_config.json'), 'utf8')) as { max_length: number }).max_length;
  const translator = await pipeline('translation', folder, { dtype: 'q8', local_files_only: true });
  try {
    const out: string[] = [];
    for (const row of rows) {
      const [input, langs] = args(row.src_lang, row.tgt_lang, row.src);
      const [first] = (await translator(input, { ...langs, num_beams: 1, do_sample: false, max_new_tokens: maxLength - 1 })) as { translation_text: string }[];
      out.push(first!.translation_text);
    }
    return out;
  } finally {
    await translator.dispose();
  }
}

for (const { folder, family, directions, args } of FAMILIES) {
  for (const precision of ['fp32', 'int8'] as const) {
    describe(`${folder} (${family}, ${precision}) equals transformers.js`, () => {
      const dir = tempDir();
      let engine: DragomanEngine;
      const rows = reference(folder).map((r) => ({ ...r, translation: r.fp32 }));
      beforeAll(async () => {
        if (precision === 'int8') {
          const live = await liveQ8(folder, args, rows);
          rows.forEach((r, i) => { r.translation = live[i]!; });
        }
        linkModel(join(dir.path, folder), folder);
        engine = await engineOver(dir.path, { DRAGOMAN_BEAM: '1', DRAGOMAN_PRECISION: precision, DRAGOMAN_CACHE_SIZE: '0' });
      });
      afterAll(async () => {
        await engine.close();
        dir.remove();
      });

      it('is the family the folder says, with the reference directions', () => {
        const info = engine.models().find((m) => m.name === folder)!;
        expect(info).toMatchObject({ family, status: 'ok', precision });
        expect([...new Set(rows.map((r) => `${r.src_lang}>${r.tgt_lang}`))]).toEqual(directions);
      });

      for (const direction of directions) {
        it(`${direction}: >= 95% of at least 50 sentences identical`, async () => {
          const [s, t] = direction.split('>') as [string, string];
          const dirRows = rows.filter((r) => r.src_lang === s && r.tgt_lang === t);
          expect(dirRows.length).toBeGreaterThanOrEqual(50);
          // fp32: all sentences in one call, so batched and padded rows are held to the reference too. int8: one
          // sentence per call, as the reference ran: onnxruntime quantizes activations per tensor, so an int8 result
          // depends on the batch it shares (its padding included) in any runtime.
          const translations: string[] = [];
          if (precision === 'fp32') {
            const r = await engine.translate(dirRows.map((d) => d.src), FLORES[s]!, FLORES[t]!);
            expect(r.route).toEqual([folder]);
            translations.push(...r.translations);
          } else {
            for (const d of dirRows) translations.push((await engine.translate([d.src], FLORES[s]!, FLORES[t]!)).translations[0]!);
          }
          const same = dirRows.filter((d, i) => translations[i] === d.translation).length;
          // A sentence "ends" when the model stops by itself, well before the length limit.
          const ended = dirRows.filter((d) => d.translation.length <= 3 * d.src.length + 20).length;
          console.log(`${folder} ${precision} ${direction}: parity with transformers.js ${rate(same, dirRows.length)}; `
            + `reference sentences that end ${rate(ended, dirRows.length)}`);
          expect(same / dirRows.length).toBeGreaterThanOrEqual(0.95);
        });
      }
    });
  }
}

// generation_config.json asks for beams (num_beams 5 for M2M-100 and mBART-50, 4 for OPUS-MT): without DRAGOMAN_BEAM
// the engine searches with that many, as it does for the other families.
describe('beam search where generation_config.json asks for it', () => {
  for (const { folder, directions } of FAMILIES) {
    it(`${folder}: the default search is the config's beam search, not greedy`, async () => {
      const dir = tempDir();
      linkModel(join(dir.path, folder), folder); // alone: routing would send en>de to another family
      const engine = await engineOver(dir.path, { DRAGOMAN_CACHE_SIZE: '0' });
      try {
        const beams = (JSON.parse(readFileSync(join(FIXTURES, folder, 'generation_config.json'), 'utf8')) as { num_beams: number }).num_beams;
        expect(beams).toBeGreaterThan(1);
        const [s, t] = directions[0]!.split('>') as [string, string];
        const sources = reference(folder).filter((r) => r.src_lang === s && r.tgt_lang === t).map((r) => r.src).slice(0, 20);
        // one sentence per call: a beam's near-ties may tip with the padding of whatever batch a row shares
        const run = async (options: { beams?: number }) => {
          const out: string[] = [];
          for (const src of sources) out.push((await engine.translate([src], FLORES[s]!, FLORES[t]!, options)).translations[0]!);
          return out;
        };
        const byDefault = await run({});
        expect(byDefault).toEqual(await run({ beams }));
        const greedy = await run({ beams: 1 });
        const differ = sources.filter((_, i) => byDefault[i] !== greedy[i]).length;
        console.log(`${folder} ${s}>${t}: beam ${beams} differs from greedy on ${differ}/${sources.length}`);
        expect(differ).toBeGreaterThan(0);
      } finally {
        await engine.close();
        dir.remove();
      }
    });
  }
});
