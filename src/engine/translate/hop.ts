// One hop of a route: one model translating segments from one language into another. Segments with nothing to
// translate, cached ones and ones already on their way for another request are answered without the model; the
// rest (cut to the model's position table, long-input.ts) go to the batcher as rows.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Batcher } from '../batching/batcher.ts';
import { NoLanguageToken, PromptPartUnsupported, PromptTooLong } from '../errors.ts';
import { FAMILY_RULES, maxNewTokens, maxSourceTokens, type GenerationRules } from '../model/family.ts';
import { userContent, type TranslatorPrompt } from '../model/translator-prompt.ts';
import type { ModelTokenizer } from '../model/tokenizer.ts';
import type { GenerationRow } from '../search/types.ts';
import type { ModelInfo, PromptAdditions, TranslateOptions } from '../types.ts';
import { TranslationCache } from './cache.ts';
import { fitPieces } from './long-input.ts';
import { translateConstrained } from './constrained-hop.ts';

export interface LoadedModel {
  info: ModelInfo;
  rules: GenerationRules;
  tokenizer: ModelTokenizer;
  /** Multi-target Marian: FLORES code -> `>>xx<<` token opening the source. */
  targetTokens?: Record<string, string>;
  /** NLLB, M2M-100, mBART-50: FLORES code -> the vocabulary's language token (`deu_Latn`, `__de__`, `de_DE`). */
  languageTokens?: Record<string, string>;
  /** A decoder-only translator: its dragoman.json prompt. */
  prompt?: TranslatorPrompt;
}

export interface Hop {
  translations: string[];
  alternatives: string[][];
}

/** Longest segment (UTF-16 units) the translation cache keeps: with the default 10,000 entries, at most ~100 MB. */
export const MAX_CACHED_CHARS = 2_000;

/** Tokenizer work (encoding, decoding) and cache lookups yield to the event loop after this long. */
const YIELD_AFTER_MS = 10;

/** A segment with no letter in any script has nothing for a model to translate. */
export const HAS_LETTER = /\p{L}/u;

function languageTokenId(model: LoadedModel, token: string | undefined, flores: string): number {
  const id = token === undefined ? undefined : model.tokenizer.tokenId(token);
  if (id === undefined) throw new NoLanguageToken(model.info.name, flores);
  return id;
}

/**
 * How a segment becomes a row: its source ids and the most tokens its output may take. An encoder-decoder model reads
 * the segment's pieces (framed by the family's language token); a decoder-only translator reads its prompt
 * (dragoman.json's template filled, in the tokenizer's chat template), and its output is bounded by the segment's own
 * tokens as an encoder-decoder model's is, within what its context has left after the prompt. What a request adds
 * (context, instructions, a register) takes at most half of the tokens it reads at once, so the text keeps room.
 */
function framing(model: LoadedModel, source: string, target: string, openingToken: number | undefined, additions: PromptAdditions) {
  const { prompt, tokenizer, rules } = model;
  if (!prompt) {
    const asked = Object.entries(additions).find(([, v]) => v !== undefined && (!Array.isArray(v) || v.length));
    if (asked) throw new PromptPartUnsupported(model.info.name, asked[0]);
    return { encode: (text: string) => tokenizer.encode(text, openingToken), newTokens: (ids: readonly number[]) => maxNewTokens(rules, ids.length) };
  }
  const ask = (text: string) => tokenizer.chat(userContent(prompt, source, target, text, additions, model.info.name), prompt.options);
  const plain = plainWrapper(model, source, target, () => tokenizer.chat(userContent(prompt, source, target, ''), prompt.options).length);
  let wrapper = plain;
  if (hasAdditions(additions)) {
    wrapper = ask('').length;
    const limit = Math.floor(maxSourceTokens(rules) / 2);
    if (wrapper - plain > limit) throw new PromptTooLong(model.info.name, wrapper - plain, limit);
  }
  return {
    encode: ask,
    newTokens: (ids: readonly number[]) => Math.max(1, Math.min(maxNewTokens(rules, Math.max(1, ids.length - wrapper)), rules.maxPositions - ids.length)),
  };
}

/** Per model and pair, the tokens the prompt puts around the text: rendering the chat template is a tokenization. */
const plainWrappers = new WeakMap<LoadedModel, Map<string, number>>();

function plainWrapper(model: LoadedModel, source: string, target: string, measure: () => number): number {
  let lengths = plainWrappers.get(model);
  if (!lengths) plainWrappers.set(model, (lengths = new Map()));
  const pair = `${source}>${target}`;
  let length = lengths.get(pair);
  if (length === undefined) lengths.set(pair, (length = measure()));
  return length;
}

function hasAdditions(a: PromptAdditions): boolean {
  return !!a.context || !!a.instructions?.length || !!a.formality;
}

/** What the additions make of a cache key's model part: the same segment with other additions is another translation. */
function additionsKey(a: PromptAdditions): string {
  return hasAdditions(a) ? `\u0001${JSON.stringify([a.context ?? '', a.instructions ?? [], a.formality ?? ''])}` : '';
}

export class HopTranslator {
  /** Segments being translated right now, by cache key, and how many other requests wait for each (see translate). */
  private readonly inFlight = new Map<string, { promise: Promise<Hop>; joiners: number }>();

  constructor(
    private readonly cache: TranslationCache<Hop>,
    private readonly batcher: Batcher,
    /** DRAGOMAN_BEAM, when set. */
    private readonly beamSetting: number | undefined,
    /** Benchmark only: every row generates exactly this many tokens. */
    private readonly fixedNewTokens?: number,
  ) {}

  async translate(model: LoadedModel, source: string, target: string, texts: string[], opts: TranslateOptions): Promise<Hop> {
    const { cache, inFlight, batcher } = this;
    const alternatives = Math.max(0, opts.alternatives ?? 0);
    let beams = Math.max(1, opts.beams ?? this.beamSetting ?? model.rules.defaultBeams);
    if (alternatives > 0) beams = Math.max(beams, alternatives + 1); // n-best needs at least that many beams
    const nBest = alternatives > 0 ? beams : 1;
    // The family's framing (model/family.ts): NLLB, M2M-100 and mBART-50 open the input with the source's token and
    // force the target's first; a multi-target Marian model reads the target's >>xx<< token first, nothing forced.
    const rules = FAMILY_RULES[model.info.family!];
    const languageToken = (flores: string) => languageTokenId(model, model.languageTokens?.[flores], flores);
    const openingToken = rules.opening === 'source' ? languageToken(source)
      : model.targetTokens ? languageTokenId(model, model.targetTokens[target], target) : undefined;
    const forcedFirstId = rules.forcesTargetToken ? languageToken(target) : undefined;
    const additions = opts.prompt ?? {};
    const { encode, newTokens } = framing(model, source, target, openingToken, additions);

    // Segments with constraints take their own search; the others go the usual way, as if none had any.
    const bound = opts.constraints?.map((c, i) => (c?.length && HAS_LETTER.test(texts[i]!) ? i : -1)).filter((i) => i >= 0) ?? [];
    if (bound.length) {
      const isBound = new Set(bound);
      const [plain, constrained] = await Promise.all([
        this.translate(model, source, target, texts.map((t, i) => (isBound.has(i) ? '' : t)), { ...opts, constraints: undefined }),
        translateConstrained({
          model: model.info.name, rules: model.rules, tokenizer: model.tokenizer, batcher, encode, newTokens, forcedFirstId, beams,
          ...(this.fixedNewTokens !== undefined ? { fixedNewTokens: this.fixedNewTokens } : {}),
          ...(opts.signal ? { cancel: { signal: opts.signal, dropWaiting: () => true } } : {}),
          ...(opts.priority ? { priority: opts.priority } : {}),
        }, bound.map((i) => texts[i]!), bound.map((i) => opts.constraints![i]!)),
      ]);
      bound.forEach((i, k) => {
        plain.translations[i] = constrained[k]!;
        plain.alternatives[i] = [];
      });
      return plain;
    }

    const out: Hop = { translations: new Array<string>(texts.length).fill(''), alternatives: texts.map(() => []) };
    const keyOf = (text: string) => TranslationCache.key(model.info.name + additionsKey(additions), source, target, beams, alternatives, text);
    const todo = new Map<string, number[]>(); // distinct text -> positions
    const settle = new Map<string, { resolve: (r: Hop) => void; reject: (e: unknown) => void }>();
    const joining: Promise<void>[] = [];
    let slice = performance.now();
    for (const [i, text] of texts.entries()) {
      if (performance.now() - slice > YIELD_AFTER_MS) {
        await nextTurn(); // 20,000 segments of one request: cache lookups in slices
        slice = performance.now();
      }
      if (!text.trim()) continue; // whitespace is not sent to the model
      // Nothing to translate (a number, "!!!", an emoji, a list marker): a model would invent a sentence for it.
      if (!HAS_LETTER.test(text)) {
        out.translations[i] = text;
        continue;
      }
      const key = keyOf(text);
      const hit = cache.get(key);
      if (hit) {
        out.translations[i] = hit.translations[0]!;
        out.alternatives[i] = hit.alternatives[0]!;
        continue;
      }
      // The same segment already on its way for another request: share that result, so concurrent requests (and
      // the cache entry left behind) agree — an int8 result may depend on which sentences share its batch.
      const pending = inFlight.get(key);
      if (pending) {
        pending.joiners++;
        const joined = pending.promise.then((r) => {
          out.translations[i] = r.translations[0]!;
          out.alternatives[i] = r.alternatives[0]!;
        });
        joined.catch(() => {}); // awaited below; handled here in case this request fails first on its own segments
        joining.push(joined);
        continue;
      }
      const positions = todo.get(text);
      if (positions) {
        positions.push(i); // (a copy per repeat was quadratic: 20,000 times "a" took seconds)
        continue;
      }
      todo.set(text, [i]);
      // In flight from now on (this loop yields): a concurrent request joins it instead of translating it again.
      const promise = new Promise<Hop>((resolve, reject) => settle.set(text, { resolve, reject }));
      promise.catch(() => {}); // a failure is the owner's to report; a joiner sees it through its own await
      inFlight.set(key, { promise, joiners: 0 });
    }
    if (!todo.size) {
      await Promise.all(joining);
      return out;
    }

    // A sentence longer than the model's position table is cut at spaces into pieces that fit (rare: the service
    // segments text into sentences first); its translation is the pieces' translations joined by a space.
    const distinct = [...todo.keys()];
    try {
      const limit = maxSourceTokens(model.rules);
      // Encoded a segment at a time with a yield every few milliseconds: 100,000 characters are a few hundred
      // milliseconds of tokenizer, which must not stall the event loop (other requests, GET /health) at once.
      const pieces: ReturnType<typeof fitPieces>[] = [];
      slice = performance.now();
      for (const text of distinct) {
        pieces.push(fitPieces(text, encode, limit));
        if (performance.now() - slice > YIELD_AFTER_MS) {
          await nextTurn();
          slice = performance.now();
        }
      }
      // Identical pieces are generated once (a long run of one repeated letter is cut into many equal pieces).
      const rows: GenerationRow[] = [];
      const rowOf: number[] = [];
      const rowByIds = new Map<string, number>();
      for (const { ids } of pieces.flat()) {
        const same = ids.join(',');
        let row = rowByIds.get(same);
        if (row === undefined) {
          const max = this.fixedNewTokens ?? newTokens(ids);
          row = rows.push({ ids, maxNewTokens: max, minNewTokens: this.fixedNewTokens ?? 0, forcedFirstId }) - 1;
          rowByIds.set(same, row);
        }
        rowOf.push(row);
      }
      // A client that has gone drops its waiting rows, unless another request waits for one of its sentences.
      const cancel = opts.signal && {
        signal: opts.signal,
        dropWaiting: () => distinct.every((text) => (inFlight.get(keyOf(text))?.joiners ?? 0) === 0),
      };
      const hypotheses = await batcher.submit(model.info.name, beams, nBest, rows, cancel, opts.priority);
      let next = 0;
      slice = performance.now();
      for (const [d, text] of distinct.entries()) {
        if (performance.now() - slice > YIELD_AFTER_MS) {
          await nextTurn();
          slice = performance.now();
        }
        const results = pieces[d]!.map(() => hypotheses[rowOf[next++]!]!.map((ids) => model.tokenizer.decode(ids)));
        const best = results.map((strings) => strings[0] ?? '').join(' ');
        const others = results.length === 1
          ? [...new Set(results[0]!.slice(1))].filter((s) => s !== best).slice(0, alternatives)
          : [];
        const result: Hop = { translations: [best], alternatives: [others] };
        // A very long segment is not kept: it rarely comes again, and 10,000 of them would hold gigabytes.
        if (text.length <= MAX_CACHED_CHARS) cache.set(keyOf(text), result);
        inFlight.delete(keyOf(text));
        settle.get(text)!.resolve(result);
        for (const i of todo.get(text)!) {
          out.translations[i] = best;
          out.alternatives[i] = others;
        }
      }
    } catch (err) {
      for (const text of distinct) {
        inFlight.delete(keyOf(text));
        settle.get(text)!.reject(err);
      }
      throw err;
    }
    await Promise.all(joining);
    return out;
  }
}
