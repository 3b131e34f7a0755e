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
};

/** `opus-mt-en-de` → `Xenova/opus-mt-en-de`; `nllb`, `m2m100`, `mbart50` → the Xenova conversions; `owner/repo` as is. */
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
        `or a preset (opus-mt-xx-yy, nllb, m2m100, mbart50)`,
    );
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new Error(`"${spec}" is not a repository name of the form owner/name`);
  return { repo, name: repo.split('/')[1]! };
}
