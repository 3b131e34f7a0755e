// One hop of a route: one model translating segments from one language into another. Segments with nothing to
// translate, cached ones and ones already on their way for another request are answered without the model; the
// rest (cut to the model's position table, long-input.ts) go to the batcher as rows.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Batcher } from '../batching/batcher.ts';
import { NoLanguageToken, PromptPartUnsupported, PromptTooLong } from '../errors.ts';
import { FAMILY_RULES, maxNewTokens, maxSourceTokens, type GenerationRules } from '../model/family.ts';
import { userContent, type SegmentPrompt, type TranslatorPrompt } from '../model/translator-prompt.ts';
import type { ModelTokenizer } from '../model/tokenizer.ts';
import type { GenerationRow } from '../search/types.ts';
import type { ModelInfo, PromptExample, PromptTerm, SegmentConstraint, TranslateOptions } from '../types.ts';
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

/** How one segment's rows are made, and what its prompt adds to its cache key. */
interface Framing {
  encode(text: string): number[];
  newTokens(ids: readonly number[]): number;
  key: string;
}

/**
 * How a segment becomes a row: its source ids and the most tokens its output may take. An encoder-decoder model reads
 * the segment's pieces (framed by the family's language token); a decoder-only translator reads its prompt
 * (dragoman.json's template filled, in the tokenizer's chat template), and its output is bounded by the segment's own
 * tokens as an encoder-decoder model's is, within what its context has left after the prompt. What the prompt adds
 * takes at most half of the tokens the model reads at once, so the text keeps room: the request's context,
 * instructions and register must fit (else PromptTooLong); then the segment's glossary terms, as many as fit (the
 * others are still kept by constrained decoding); then its translation memory examples, the best ones that fit; then
 * the earlier lines of `earlier`, the latest that fit beside `text`, the segment they come before.
 */
function framing(
  model: LoadedModel, source: string, target: string, openingToken: number | undefined, additions: SegmentPrompt, earlier?: string, text?: string,
): Framing {
  const { prompt, tokenizer, rules } = model;
  if (!prompt) {
    const asked = Object.entries(additions).find(([k, v]) => k !== 'terms' && k !== 'examples' && v !== undefined && (!Array.isArray(v) || v.length));
    if (asked) throw new PromptPartUnsupported(model.info.name, asked[0]);
    return { encode: (text: string) => tokenizer.encode(text, openingToken), newTokens: (ids: readonly number[]) => maxNewTokens(rules, ids.length), key: '' };
  }
  const measure = (a: SegmentPrompt) => tokenizer.chat(userContent(prompt, source, target, '', a, model.info.name), prompt.options).length;
  const plain = plainWrapper(model, source, target, () => tokenizer.chat(userContent(prompt, source, target, ''), prompt.options).length);
  const limit = Math.floor(maxSourceTokens(rules) / 2);
  const { terms, examples, ...asked } = additions;
  let chosen: SegmentPrompt = asked;
  let wrapper = plain;
  if (hasAdditions(asked)) {
    wrapper = measure(asked);
    if (wrapper - plain > limit) throw new PromptTooLong(model.info.name, wrapper - plain, limit);
  }
  // The most terms that fit, then the most examples (best first), each by a binary search (more never take fewer tokens).
  const most = <T>(part: 'terms' | 'examples', list: readonly T[] | undefined) => {
    let [low, high] = [0, list?.length ?? 0]; // the answer is in [low, high]
    while (low < high) {
      const n = (low + high + 1) >> 1;
      const withMore = { ...chosen, [part]: list!.slice(0, n) };
      const length = measure(withMore);
      if (length - plain <= limit) {
        chosen = withMore;
        wrapper = length;
        low = n;
      } else {
        high = n - 1;
      }
    }
  };
  most('terms', terms);
  most('examples', examples);
  if (earlier && prompt.contextPrompt) {
    // Earlier lines never cut the segment itself into pieces: they take only the room its own tokens leave.
    const room = maxSourceTokens(rules) - (text === undefined ? 0 : tokenizer.textIds(text).length);
    // The fewest lines dropped from the front that fit: fewer lines never take more tokens, so a binary search. Each
    // try counts the user message's tokens alone (a chat template rendered per try would cost more than the context
    // saves): the context adds what it adds there, give or take a token where it meets the words around it.
    const lines = earlier.split('\n');
    const message = (a: SegmentPrompt) => {
      const content = userContent(prompt, source, target, '', a, model.info.name);
      return tokenizer.textIds(typeof content === 'string' ? content : JSON.stringify(content)).length;
    };
    const bare = message(chosen);
    let best: { prompt: SegmentPrompt; length: number } | undefined;
    let [low, high] = [0, lines.length]; // the answer is in [low, high]; high: none fits
    while (low < high) {
      const from = (low + high) >> 1;
      const withContext = { ...chosen, context: lines.slice(from).join('\n') };
      const length = wrapper + message(withContext) - bare;
      if (length - plain <= limit && length <= room) {
        best = { prompt: withContext, length };
        high = from;
      } else {
        low = from + 1;
      }
    }
    if (best) {
      chosen = best.prompt;
      wrapper = best.length;
    }
  }
  return {
    encode: (text: string) => tokenizer.chat(userContent(prompt, source, target, text, chosen, model.info.name), prompt.options),
    newTokens: (ids: readonly number[]) => Math.max(1, Math.min(maxNewTokens(rules, Math.max(1, ids.length - wrapper)), rules.maxPositions - ids.length)),
    key: additionsKey(chosen),
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

function hasAdditions(a: SegmentPrompt): boolean {
  return !!a.context || !!a.instructions?.length || !!a.formality || !!a.terms?.length || !!a.examples?.length;
}

/** What the additions make of a cache key's model part: the same segment with other additions is another translation. */
function additionsKey(a: SegmentPrompt): string {
  return hasAdditions(a)
    ? `\u0001${JSON.stringify([a.context ?? '', a.instructions ?? [], a.formality ?? '', (a.terms ?? []).map((t) => [t.source, t.target]),
      ...(a.examples?.length ? [a.examples.map((e) => [e.source, e.target])] : [])])}`
    : '';
}

/** What translating one hop's segments takes besides the texts. */
interface HopRun {
  beams: number;
  alternatives: number;
  nBest: number;
  forcedFirstId: number | undefined;
  /** Segment i's framing (the same object for segments framed alike). */
  frameOf(i: number): Framing;
  signal?: AbortSignal;
  priority?: TranslateOptions['priority'];
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
    const { batcher } = this;
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
    const plain = framing(model, source, target, openingToken, additions);

    // An LLM translator that declares a terminology wording reads a segment's glossary terms in its prompt as well
    // (or, for a benchmark, instead of constrained decoding); one that declares a context wording reads a document's
    // earlier lines; one that declares an examples wording, a translation memory's matches of the segment. Each
    // segment so framed has a framing of its own; every other segment shares the plain one.
    const mode = opts.terms ?? 'both';
    const worded = !!model.prompt?.terminology;
    const promptTerms = (c: SegmentConstraint[] | undefined): PromptTerm[] => (worded && mode !== 'decoding'
      ? (c ?? []).flatMap((x) => (x.source !== undefined ? [{ source: x.source, target: x.target }] : [])) : []);
    const searched = (c: SegmentConstraint[] | undefined) => (worded && mode === 'prompt' ? c?.filter((x) => x.source === undefined) : c);
    const contexts = model.prompt?.contextPrompt ? opts.contexts : undefined;
    const examplesOf = (i: number): readonly PromptExample[] => (model.prompt?.examples ? opts.examples?.[i] ?? [] : []);
    const framings = new Map<string, Framing>();
    const frameOf = (i: number): Framing => {
      const terms = promptTerms(opts.constraints?.[i]);
      const earlier = contexts?.[i];
      const examples = examplesOf(i);
      if (!terms.length && !earlier && !examples.length) return plain;
      const id = JSON.stringify([terms, examples, earlier ?? '', earlier ? texts[i] : '']);
      let f = framings.get(id);
      if (!f) framings.set(id, (f = framing(model, source, target, openingToken, { ...additions, terms, examples }, earlier, texts[i])));
      return f;
    };
    const run: HopRun = { beams, alternatives, nBest, forcedFirstId, frameOf, signal: opts.signal, priority: opts.priority };

    // Segments with constraints take their own search; the others go the usual way, as if none had any.
    const search = opts.constraints?.map(searched);
    const bound = search?.map((c, i) => (c?.length && HAS_LETTER.test(texts[i]!) ? i : -1)).filter((i) => i >= 0) ?? [];
    if (!bound.length) return this.unconstrained(model, source, target, texts, run);
    const isBound = new Set(bound);
    const [out, constrained] = await Promise.all([
      this.unconstrained(model, source, target, texts.map((t, i) => (isBound.has(i) ? '' : t)), run),
      translateConstrained({
        model: model.info.name, rules: model.rules, tokenizer: model.tokenizer, batcher, forcedFirstId, beams,
        encode: (text, row) => frameOf(bound[row]!).encode(text),
        newTokens: (ids, row) => frameOf(bound[row]!).newTokens(ids),
        ...(this.fixedNewTokens !== undefined ? { fixedNewTokens: this.fixedNewTokens } : {}),
        ...(opts.signal ? { cancel: { signal: opts.signal, dropWaiting: () => true } } : {}),
        ...(opts.priority ? { priority: opts.priority } : {}),
      }, bound.map((i) => texts[i]!), bound.map((i) => search![i]!)),
    ]);
    bound.forEach((i, k) => {
      out.translations[i] = constrained[k]!;
      out.alternatives[i] = [];
    });
    return out;
  }

  /** Segments without constraints: from the cache, shared with a request translating them now, or as rows. */
  private async unconstrained(model: LoadedModel, source: string, target: string, texts: string[], run: HopRun): Promise<Hop> {
    const { cache, inFlight, batcher } = this;
    const { beams, alternatives, nBest, forcedFirstId, frameOf } = run;
    const out: Hop = { translations: new Array<string>(texts.length).fill(''), alternatives: texts.map(() => []) };
    const keyOf = (text: string, f: Framing) => TranslationCache.key(model.info.name + f.key, source, target, beams, alternatives, text);
    // Distinct segments by cache key (a segment with other prompt additions is another one): text, framing, positions.
    const todo = new Map<string, { text: string; framing: Framing; positions: number[] }>();
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
      const f = frameOf(i);
      const key = keyOf(text, f);
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
      const same = todo.get(key);
      if (same) {
        same.positions.push(i); // (a copy per repeat was quadratic: 20,000 times "a" took seconds)
        continue;
      }
      todo.set(key, { text, framing: f, positions: [i] });
      // In flight from now on (this loop yields): a concurrent request joins it instead of translating it again.
      const promise = new Promise<Hop>((resolve, reject) => settle.set(key, { resolve, reject }));
      promise.catch(() => {}); // a failure is the owner's to report; a joiner sees it through its own await
      inFlight.set(key, { promise, joiners: 0 });
    }
    if (!todo.size) {
      await Promise.all(joining);
      return out;
    }

    // A sentence longer than the model's position table is cut at spaces into pieces that fit (rare: the service
    // segments text into sentences first); its translation is the pieces' translations joined by a space.
    const distinct = [...todo.entries()];
    try {
      const limit = maxSourceTokens(model.rules);
      // Encoded a segment at a time with a yield every few milliseconds: 100,000 characters are a few hundred
      // milliseconds of tokenizer, which must not stall the event loop (other requests, GET /health) at once.
      const pieces: ReturnType<typeof fitPieces>[] = [];
      const framingOf: Framing[] = [];
      slice = performance.now();
      for (const [, { text, framing: f }] of distinct) {
        const cut = fitPieces(text, f.encode, limit);
        pieces.push(cut);
        for (let n = 0; n < cut.length; n++) framingOf.push(f);
        if (performance.now() - slice > YIELD_AFTER_MS) {
          await nextTurn();
          slice = performance.now();
        }
      }
      // Identical pieces are generated once (a long run of one repeated letter is cut into many equal pieces).
      const rows: GenerationRow[] = [];
      const rowOf: number[] = [];
      const rowByIds = new Map<string, number>();
      for (const [p, { ids }] of pieces.flat().entries()) {
        const same = ids.join(',');
        let row = rowByIds.get(same);
        if (row === undefined) {
          const max = this.fixedNewTokens ?? framingOf[p]!.newTokens(ids);
          row = rows.push({ ids, maxNewTokens: max, minNewTokens: this.fixedNewTokens ?? 0, forcedFirstId }) - 1;
          rowByIds.set(same, row);
        }
        rowOf.push(row);
      }
      // A client that has gone drops its waiting rows, unless another request waits for one of its sentences.
      const cancel = run.signal && {
        signal: run.signal,
        dropWaiting: () => distinct.every(([key]) => (inFlight.get(key)?.joiners ?? 0) === 0),
      };
      const hypotheses = await batcher.submit(model.info.name, beams, nBest, rows, cancel, run.priority);
      let next = 0;
      slice = performance.now();
      for (const [d, [key, { text, positions }]] of distinct.entries()) {
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
        if (text.length <= MAX_CACHED_CHARS) cache.set(key, result);
        inFlight.delete(key);
        settle.get(key)!.resolve(result);
        for (const i of positions) {
          out.translations[i] = best;
          out.alternatives[i] = others;
        }
      }
    } catch (err) {
      for (const [key] of distinct) {
        inFlight.delete(key);
        settle.get(key)!.reject(err);
      }
      throw err;
    }
    await Promise.all(joining);
    return out;
  }
}
