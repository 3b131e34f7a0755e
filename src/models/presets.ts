// Short names for the repositories people actually want, so `dragoman models pull nllb` just works.

export interface RepoChoice {
  repo: string;
  /** Folder name under DRAGOMAN_MODELS_DIR: the repository's own name, which the engine reads languages from. */
  name: string;
}

const NAMED: Record<string, string> = {
  nllb: 'Xenova/nllb-200-distilled-600M',
  'nllb-200': 'Xenova/nllb-200-distilled-600M',
  'nllb-200-distilled-600M': 'Xenova/nllb-200-distilled-600M',
  m2m100: 'Xenova/m2m100_418M',
  m2m100_418M: 'Xenova/m2m100_418M',
  mbart50: 'Xenova/mbart-large-50-many-to-many-mmt',
  'mbart-large-50-many-to-many-mmt': 'Xenova/mbart-large-50-many-to-many-mmt',
  // LLM translators (docs/models.md, "LLM translators"): ONNX exports whose prompt known-translators.ts holds.
  'hy-mt2': 'ModaLeap/hy-mt2-1.8b-onnx',
  translategemma: 'Menterium/translategemma-4b-it-onnx-int4-cpu',
  qwen3: 'onnx-community/Qwen3-0.6B-ONNX',
  gemma3: 'onnx-community/gemma-3-1b-it-ONNX',
  'llama3.2': 'onnx-community/Llama-3.2-1B-Instruct',
};

/** `opus-mt-en-de` → `Xenova/opus-mt-en-de`; `nllb`, `m2m100`, `mbart50`, `hy-mt2`, ... → the repositories above; `owner/repo` as is. */
export function resolveRepo(spec: string): RepoChoice {
  const trimmed = spec.trim().replace(/^https?:\/\/[^/]+\//, '').replace(/\/+$/, '');
  let repo: string;
  if (trimmed.includes('/')) repo = trimmed;
  else if (NAMED[trimmed]) repo = NAMED[trimmed];
  // Every OPUS-MT conversion Xenova publishes keeps Helsinki-NLP's name (opus-mt-en-de, opus-mt-tc-big-en-fr, ...).
  else if (/^opus-mt-[\w.-]+$/.test(trimmed)) repo = `Xenova/${trimmed}`;
  else {
    throw new Error(
      `unknown model "${spec}": give a Hugging Face repository (owner/name, e.g. Xenova/opus-mt-en-de) ` +
        `or a preset (opus-mt-xx-yy, nllb, m2m100, mbart50, hy-mt2, translategemma, qwen3, gemma3, llama3.2)`,
    );
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new Error(`"${spec}" is not a repository name of the form owner/name`);
  return { repo, name: repo.split('/')[1]! };
}
