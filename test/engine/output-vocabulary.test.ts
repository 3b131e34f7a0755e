// DRAGOMAN_VOCABULARY=target: a many-script model's output layer over the rows a batch may write
// (model/output-vocabulary.ts, graph/output-subset.ts), against the full vocabulary on the fixtures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { readModelFolder } from '../../src/engine/model/model-folder.ts';
import { classifyPieces, outputIds, targetScripts } from '../../src/engine/model/output-vocabulary.ts';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { loadModel } from '../../src/engine/runtime/load-model.ts';
import { beamSearch } from '../../src/engine/search/beam.ts';
import { greedySearch } from '../../src/engine/search/greedy.ts';
import { candidatesNeeded, processorsFor } from '../../src/engine/search/logits-processors.ts';
import { FIXTURES, engineOver, linkModel, readDev, tempDir, type NllbDevRow } from './helpers.ts';

describe('pieces classed by script', () => {
  const pieces: [string, number][] = [['<s>', 0], ['▁Haus', 1], ['▁дом', 2], ['▁123', 3], ['、', 4], ['ひら', 5], ['カタ', 6], ['漢字', 7], ['한국', 8], ['deu_Latn', 9], ['jpn_Jpan', 10], ['kor_Hang', 11], ['x漢', 12]];
  const v = classifyPieces(pieces, 14, [0, 9, 10, 11], { 9: 'Latn', 10: 'Jpan', 11: 'Hang' });
  const ids = (target: number, own: number[] = []) => [...outputIds(v, [target], own, 1)!].map(Number);

  it('a target writes its scripts, pieces without letters and the special tokens; its sources add their own', () => {
    expect(ids(9)).toEqual([0, 1, 3, 4, 9, 10, 11, 13]);
    // Japanese: Han, Hiragana and Katakana; a piece mixing Latin and Han is not Japanese alone
    expect(ids(10)).toEqual([0, 3, 4, 5, 6, 7, 9, 10, 11, 13]);
    expect(ids(11)).toEqual([0, 3, 4, 8, 9, 10, 11, 13]);
    expect(ids(10, [2, 12])).toEqual([0, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13]);
    // Rows of two targets: both scripts
    expect([...outputIds(v, [9, 11], [], 1)!].map(Number)).toEqual([0, 1, 3, 4, 8, 9, 10, 11, 13]);
  });

  it('a row without a target token, or a subset past the share, is the whole vocabulary', () => {
    expect(outputIds(v, [undefined], [])).toBeUndefined();
    expect(outputIds(v, [9], [], 0.5)).toBeUndefined();
    expect(outputIds(v, [11], [], 0.6)?.length).toBe(8);
  });
});

/** tiny-nllb's pieces classed as the engine classes them at load. */
async function tinyNllbVocabulary() {
  const dir = join(FIXTURES, 'tiny-nllb');
  const folder = await readModelFolder(dir, 'fp32');
  const tokenizer = await ModelTokenizer.load(dir);
  const targets = targetScripts(folder.languageTokens!, (t) => tokenizer.tokenId(t));
  return { folder, tokenizer, vocabulary: classifyPieces(tokenizer.pieces(), folder.runtime!.rules.vocabSize, tokenizer.addedIds(), targets) };
}

describe('the output projection over a subset (graph/output-subset.ts)', () => {
  it('searches exactly as the whole vocabulary wherever the whole vocabulary\'s choices lie in the subset (greedy and beam 4, fp32 and int8)', async () => {
    const dev = readDev<NllbDevRow>('tiny-nllb').filter((_, i) => i % 25 === 0);
    const { tokenizer, folder } = await tinyNllbVocabulary();
    for (const precision of ['fp32', 'int8'] as const) {
      const f = precision === 'fp32' ? folder : await readModelFolder(join(FIXTURES, 'tiny-nllb'), precision);
      const spec = f.runtime!;
      if (spec.kind !== 'encoder-decoder') throw new Error('an encoder-decoder fixture');
      const processors = processorsFor(spec.rules);
      const settings = { intraOpThreads: 1, threadsAuto: false, spinning: 'off', poolThreads: 1, vocabulary: 'target' } as const;
      const model = await loadModel(spec.encoderPath, spec.decoderPath, spec.dims, spec.rules.padId, settings, candidatesNeeded(processors), undefined, spec.rules.eosId, undefined, true);
      try {
        expect(model.runtime.outputSubset).toBe(true);
        const rows = dev.map((d) => ({
          ids: tokenizer.encode(d.src, tokenizer.tokenId(d.src_lang)), maxNewTokens: 64, minNewTokens: 0, forcedFirstId: tokenizer.tokenId(d.tgt_lang),
        }));
        for (const beams of [1, 4]) {
          const search = (decoder: Parameters<typeof greedySearch>[0], r: typeof rows) =>
            beams === 1 ? greedySearch(decoder, spec.rules, processors, r) : beamSearch(decoder, spec.rules, processors, r, beams, 1);
          // Each row alone (an int8 row's activations are quantized with its batch's), over the ids its whole-vocabulary search wrote, its source's and the special tokens,
          // and every fifth id besides: a quarter of the vocabulary, the rest −∞.
          for (let i = 0; i < rows.length; i++) {
            const whole = (await search(model, [rows[i]!]))[0]!;
            const own = new Set([...whole.flat(), ...rows[i]!.ids, 0, 1, 2, 3]);
            for (let id = 0; id < spec.rules.vocabSize; id += 5) own.add(id);
            const ids = BigInt64Array.from([...own].sort((a, b) => a - b), BigInt);
            const sub = await search(model.withOutputIds(ids), [rows[i]!]);
            // Greedy: the same tokens. Beam: its scores are log-softmax over the subset, so hypotheses may rank
            // otherwise; every token is one of the subset's.
            if (beams === 1) expect(sub[0], `${precision} greedy row ${i}`).toEqual(whole);
            else for (const id of sub[0]!.flat()) expect(own.has(id), `${precision} beam row ${i}`).toBe(true);
          }
        }
        // And a subset without the whole vocabulary's first choice never writes it.
        const row = rows[0]!;
        const first = (await greedySearch(model, spec.rules, processors, [row]))[0]![0]!;
        const choice = first[1]!; // after the forced target token
        const without = BigInt64Array.from(Array.from({ length: spec.rules.vocabSize }, (_, id) => id).filter((id) => id !== choice), BigInt);
        const other = (await greedySearch(model.withOutputIds(without), spec.rules, processors, [row]))[0]![0]!;
        expect(other[0]).toBe(first[0]);
        expect(other[1]).not.toBe(choice);
      } finally {
        await model.release();
      }
    }
  });
});

describe('DRAGOMAN_VOCABULARY on the fixtures', () => {
  const dir = tempDir();
  const engines: Record<string, DragomanEngine> = {};
  beforeAll(async () => {
    linkModel(join(dir.path, 'models', 'tiny-nllb'), 'tiny-nllb');
    linkModel(join(dir.path, 'models', 'tiny-m2m100'), 'tiny-m2m100');
    for (const vocabulary of ['full', 'target']) {
      engines[vocabulary] = await engineOver(join(dir.path, 'models'), {
        DRAGOMAN_VOCABULARY: vocabulary, DRAGOMAN_BEAM: '1', DRAGOMAN_WORKERS: '1', DRAGOMAN_DATA_DIR: join(dir.path, 'data'), DRAGOMAN_CACHE_SIZE: '0',
      });
    }
  });
  afterAll(async () => {
    for (const e of Object.values(engines)) await e.close();
    dir.remove();
  });

  it('target runs the subset pass on NLLB and M2M-100, full does not', () => {
    for (const name of ['tiny-nllb', 'tiny-m2m100']) {
      expect(engines.target!.models().find((m) => m.name === name)?.outputSubset, name).toBe(true);
      expect(engines.full!.models().find((m) => m.name === name)?.outputSubset, name).toBe(false);
    }
  });

  it('full and target translate tiny-nllb\'s dev rows and tiny-m2m100\'s reference rows alike', async () => {
    const rows = readDev<NllbDevRow>('tiny-nllb');
    const m2m = readFileSync(join(FIXTURES, 'tiny-m2m100', 'reference.jsonl'), 'utf8').trim().split('\n')
      .map((l) => JSON.parse(l) as { src: string; src_lang: string; tgt_lang: string });
    const flores: Record<string, string> = { en: 'eng_Latn', de: 'deu_Latn' };
    const all = [...rows, ...m2m.map((r) => ({ src: r.src, src_lang: flores[r.src_lang]!, tgt_lang: flores[r.tgt_lang]!, model: 'tiny-m2m100' }))];
    const groups = new Map<string, number[]>();
    all.forEach((r, i) => {
      const key = `${'model' in r ? r.model : 'tiny-nllb'}|${r.src_lang}|${r.tgt_lang}`;
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const out: Record<string, string[]> = { full: [], target: [] };
    for (const [key, idx] of groups) {
      const [model, source, target] = key.split('|') as [string, string, string];
      for (const v of ['full', 'target']) {
        const r = await engines[v]!.translate(idx.map((i) => all[i]!.src), source, target, { model: { name: model } });
        expect(r.route).toEqual([model]);
        idx.forEach((i, j) => (out[v]![i] = r.translations[j]!));
      }
    }
    expect(out.full!.length).toBe(rows.length + m2m.length);
    expect(out.target).toEqual(out.full);
  });

  it('a Cyrillic target writes only Cyrillic letters and the source\'s (tiny-nllb never learned Russian, so the whole vocabulary writes Latin)', async () => {
    const sources = ['A man is walking.', 'Two dogs play in the snow near a red house.', 'The 3 children sing.'];
    const full = await engines.full!.translate(sources, 'eng_Latn', 'rus_Cyrl', { model: { name: 'tiny-nllb' } });
    const target = await engines.target!.translate(sources, 'eng_Latn', 'rus_Cyrl', { model: { name: 'tiny-nllb' } });
    /** Letters of `text` neither Cyrillic nor in the source. */
    const foreign = (text: string, source: string) => [...text].filter((c) => /\p{L}/u.test(c) && !/\p{Script=Cyrillic}/u.test(c) && !source.includes(c));
    sources.forEach((s, i) => expect(foreign(target.translations[i]!, s), target.translations[i]).toEqual([]));
    expect(sources.some((s, i) => foreign(full.translations[i]!, s).length > 0), full.translations.join(' | ')).toBe(true);
  });
});
