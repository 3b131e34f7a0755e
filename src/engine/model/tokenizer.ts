// A model's own tokenizer (tokenizer.json + tokenizer_config.json through @huggingface/transformers, local files
// only), plus the family's framing of source ids. Runs in the main thread so the batcher knows exact lengths.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

type Transformers = typeof import('@huggingface/transformers');
let loaded: Promise<Transformers> | undefined;

/**
 * @huggingface/transformers, imported on the first tokenizer load: its import costs most of a second of CPU, which
 * a process that loads no model (`dragoman keys ...`, a server with an empty models folder) need not pay.
 */
function transformersLibrary(): Promise<Transformers> {
  loaded ??= import('@huggingface/transformers').then((transformers) => {
    transformers.env.allowRemoteModels = false;
    transformers.env.allowLocalModels = true;
    // Its only warning here says MarianTokenizer approximates nmt_nfkc; the parity tests show exact ids on our
    // models, and our logs are JSON lines: keep stray console output out of them.
    transformers.env.logLevel = transformers.LogLevel.ERROR;
    return transformers;
  });
  return loaded;
}

/** Starts that import now (its result is kept): a start with models overlaps it with its threads' start. */
export function warmTokenizerLibrary(): void {
  transformersLibrary().catch(() => undefined); // a failed import is reported by the load that needs it
}

interface HfTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
  convert_tokens_to_ids(tokens: string[]): (number | null | undefined)[];
  get_vocab(): Map<string, number> | Record<string, number>;
  added_tokens?: { id: number }[];
  apply_chat_template(messages: { role: string; content: unknown }[], options: Record<string, unknown>): unknown;
}

type TokenizerClass = new (json: unknown, config: unknown) => HfTokenizer;

export class ModelTokenizer {
  private constructor(
    private readonly tok: HfTokenizer,
    /** `</s>`, which closes an encoder-decoder model's source (a decoder-only model's chat template closes its prompt). */
    private readonly eos: number | undefined,
  ) {}

  get eosId(): number {
    if (this.eos === undefined) throw new Error('this tokenizer has no </s> token to close a source with');
    return this.eos;
  }

  /**
   * Reads the folder's tokenizer files (no network, no cache directory). The server loads each model's tokenizer
   * with this and `dragoman models list | pack | import` check folders with it (load-check.ts), so an error names
   * the file and why it cannot be used: one message in both places.
   */
  static async load(folder: string): Promise<ModelTokenizer> {
    const configPath = join(folder, 'tokenizer_config.json');
    let config: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(await readFile(configPath, 'utf8')) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      config = parsed as Record<string, unknown>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${configPath} cannot be used: ${(err as Error).message}`);
    }
    // Newer repositories keep the chat template beside tokenizer_config.json
    if (config.chat_template === undefined) {
      const template = await readFile(join(folder, 'chat_template.jinja'), 'utf8').catch(() => undefined);
      if (template !== undefined) config.chat_template = template;
    }
    const path = join(folder, 'tokenizer.json');
    const transformers = await transformersLibrary();
    try {
      const json = JSON.parse(await readFile(path, 'utf8')) as unknown;
      const className = String(config.tokenizer_class ?? '').replace(/Fast$/, '');
      const all = transformers as unknown as Record<string, TokenizerClass | undefined>;
      const Cls = all[className] ?? (transformers.PreTrainedTokenizer as unknown as TokenizerClass);
      const tok = new Cls(json, config);
      const eos = tok.convert_tokens_to_ids(['</s>'])[0];
      // A decoder-only model needs its chat template instead (decoder-only-folder.ts reads which kind a folder is).
      if (typeof eos !== 'number' && typeof config.chat_template !== 'string') throw new Error('it has no </s> token');
      return new ModelTokenizer(tok, typeof eos === 'number' ? eos : undefined);
    } catch (err) {
      throw new Error(`${path} cannot be used: ${(err as Error).message}`);
    }
  }

  /**
   * Source ids: `pieces + </s>`, opened by the family's language token when there is one: NLLB's source language
   * (`eng_Latn`), a multi-target Marian model's target (`>>fra<<`, as MarianTokenizer splits it off the text).
   */
  encode(text: string, languageTokenId?: number): number[] {
    const pieces = this.textIds(text);
    return languageTokenId !== undefined ? [languageTokenId, ...pieces, this.eosId] : [...pieces, this.eosId];
  }

  /** The text's pieces alone: no language token, no `</s>`, no chat template. */
  textIds(text: string): number[] {
    return this.tok.encode(text, { add_special_tokens: false });
  }

  /**
   * A decoder-only translator's prompt ids: `content` (dragoman.json's filled prompt, or its structured part) as one
   * user message in the tokenizer's own chat template, the generation prompt added, with the model's extra template
   * variables — what transformers' apply_chat_template gives.
   */
  chat(content: string | Record<string, unknown>[], options: Record<string, unknown> = {}): number[] {
    const out = this.tok.apply_chat_template([{ role: 'user', content }],
      { ...options, add_generation_prompt: true, tokenize: true, return_dict: true, return_tensor: false }) as { input_ids?: unknown };
    if (!Array.isArray(out?.input_ids)) throw new Error('the tokenizer has no chat template to wrap the prompt in');
    return out.input_ids as number[];
  }

  /** Drops special tokens (and NLLB language tokens), joins pieces, applies clean_up_tokenization. */
  decode(ids: number[]): string {
    return this.tok.decode(ids, { skip_special_tokens: true });
  }

  /** Every piece of the vocabulary with its id (lexical constraints need to know which pieces start a word). */
  pieces(): [string, number][] {
    const vocab = this.tok.get_vocab();
    return vocab instanceof Map ? [...vocab.entries()] : Object.entries(vocab);
  }

  /** Ids of the tokens tokenizer.json adds to the model's pieces (`</s>`, `<pad>`, language codes). */
  addedIds(): number[] {
    return (this.tok.added_tokens ?? []).map((t) => t.id);
  }

  tokenId(token: string): number | undefined {
    const id = this.tok.convert_tokens_to_ids([token])[0];
    return typeof id === 'number' ? id : undefined;
  }
}
