// The prompts of the decoder-only translators people pull, taken from their model cards, so that `models pull` can
// write the folder's dragoman.json (an LLM translator without one is refused: its files do not say how to ask it).
// docs/models.md ("LLM translators") shows the same entries and where each came from.

/** One prompt for some pairs; the first rule that matches wins, else `prompt`. A rule's missing fields match any pair. */
export interface PromptRule {
  source?: string | string[];
  target?: string | string[];
  /** Matches when the source or the target is one of these. */
  either?: string | string[];
  prompt: string;
  /** The names this prompt writes (a Chinese prompt names languages in Chinese). */
  languages?: Record<string, string>;
}

/** What dragoman.json holds for an LLM translator (docs/models.md, "The prompt: dragoman.json"). */
export interface TranslatorDeclaration {
  /** The user message: `{source_name}`, `{target_name}`, `{source_code}`, `{target_code}`, `{text}`. */
  prompt?: string;
  /** Instead of `prompt`: the one content part of the user message, each string value filled the same way. */
  content?: Record<string, string>;
  /** The model's own language code → the name its prompt uses. */
  languages: Record<string, string>;
  pairs?: [string, string][];
  prompts?: PromptRule[];
  /** Extra variables for the chat template (`enable_thinking: false` for Qwen3). */
  chatTemplateOptions?: Record<string, unknown>;
}

export interface KnownTranslator {
  /** Said in the pull's log. */
  name: string;
  /** Matched against `owner/name` of the repository (community exports keep the base model's name). */
  matches: RegExp;
  /** The declaration; some depend on the chat template the repository ships. */
  declaration(chatTemplate: string | undefined): TranslatorDeclaration;
}

// Hunyuan's cards (Hunyuan-MT-7B, HY-MT1.5, Hy-MT2) list these codes with an English and a Chinese name.
const HY_LANGUAGES: [code: string, english: string, chinese: string][] = [
  ['zh', 'Chinese', '中文'], ['en', 'English', '英语'], ['fr', 'French', '法语'], ['pt', 'Portuguese', '葡萄牙语'],
  ['es', 'Spanish', '西班牙语'], ['ja', 'Japanese', '日语'], ['tr', 'Turkish', '土耳其语'], ['ru', 'Russian', '俄语'],
  ['ar', 'Arabic', '阿拉伯语'], ['ko', 'Korean', '韩语'], ['th', 'Thai', '泰语'], ['it', 'Italian', '意大利语'],
  ['de', 'German', '德语'], ['vi', 'Vietnamese', '越南语'], ['ms', 'Malay', '马来语'], ['id', 'Indonesian', '印尼语'],
  ['tl', 'Filipino', '菲律宾语'], ['hi', 'Hindi', '印地语'], ['zh-Hant', 'Traditional Chinese', '繁体中文'],
  ['pl', 'Polish', '波兰语'], ['cs', 'Czech', '捷克语'], ['nl', 'Dutch', '荷兰语'], ['km', 'Khmer', '高棉语'],
  ['my', 'Burmese', '缅甸语'], ['fa', 'Persian', '波斯语'], ['gu', 'Gujarati', '古吉拉特语'], ['ur', 'Urdu', '乌尔都语'],
  ['te', 'Telugu', '泰卢固语'], ['mr', 'Marathi', '马拉地语'], ['he', 'Hebrew', '希伯来语'], ['bn', 'Bengali', '孟加拉语'],
  ['ta', 'Tamil', '泰米尔语'], ['uk', 'Ukrainian', '乌克兰语'], ['bo', 'Tibetan', '藏语'], ['kk', 'Kazakh', '哈萨克语'],
  ['mn', 'Mongolian', '蒙古语'], ['ug', 'Uyghur', '维吾尔语'], ['yue', 'Cantonese', '粤语'],
];
/** Hunyuan-MT-7B's card lists all but Traditional Chinese and Cantonese. */
const HY_MT_7B_CODES = HY_LANGUAGES.map(([c]) => c).filter((c) => c !== 'zh-Hant' && c !== 'yue');
/** The cards' "ZH<=>XX" rule: the Chinese prompt when Chinese is on either side. */
const CHINESE = ['zh', 'zh-Hant', 'yue'];

function hunyuan(codes: string[], english: string, chinese: string): TranslatorDeclaration {
  const rows = HY_LANGUAGES.filter(([c]) => codes.includes(c));
  const zhNames = Object.fromEntries(rows.map(([c, , zh]) => [c, zh]));
  return {
    prompt: english,
    languages: Object.fromEntries(rows.map(([c, en]) => [c, en])),
    prompts: [{ either: CHINESE.filter((c) => codes.includes(c)), prompt: chinese, languages: zhNames }],
  };
}

const HY_EN_SEGMENT = 'Translate the following segment into {target_name}, without additional explanation.\n\n{text}';
const HY_ZH_V15 = '将以下文本翻译为{target_name}，注意只需要输出翻译后的结果，不要额外解释：\n\n{text}';

// TranslateGemma's card: WMT24++'s 55 locales, one code per language here (Dragoman has one variety per language).
const TRANSLATEGEMMA_LANGUAGES: Record<string, string> = {
  ar: 'Arabic', bg: 'Bulgarian', bn: 'Bengali', ca: 'Catalan', cs: 'Czech', da: 'Danish', de: 'German', el: 'Greek',
  en: 'English', es: 'Spanish', et: 'Estonian', fa: 'Persian', fi: 'Finnish', fil: 'Filipino', fr: 'French',
  gu: 'Gujarati', he: 'Hebrew', hi: 'Hindi', hr: 'Croatian', hu: 'Hungarian', id: 'Indonesian', it: 'Italian',
  ja: 'Japanese', kn: 'Kannada', ko: 'Korean', lt: 'Lithuanian', lv: 'Latvian', ml: 'Malayalam', mr: 'Marathi',
  nl: 'Dutch', no: 'Norwegian', pa: 'Punjabi', pl: 'Polish', pt: 'Portuguese', ro: 'Romanian', ru: 'Russian',
  sk: 'Slovak', sl: 'Slovenian', sr: 'Serbian', sv: 'Swedish', sw: 'Swahili', ta: 'Tamil', te: 'Telugu', th: 'Thai',
  tr: 'Turkish', uk: 'Ukrainian', ur: 'Urdu', vi: 'Vietnamese', zh: 'Chinese', 'zh-Hant': 'Traditional Chinese',
  zu: 'Zulu',
};
/** The user message TranslateGemma's own chat template builds from the two codes and the text. */
const TRANSLATEGEMMA_PROMPT =
  'You are a professional {source_name} ({source_code}) to {target_name} ({target_code}) translator. Your goal is to ' +
  'accurately convey the meaning and nuances of the original {source_name} text while adhering to {target_name} ' +
  'grammar, vocabulary, and cultural sensitivities.\nProduce only the {target_name} translation, without any ' +
  'additional explanations or commentary. Please translate the following {source_name} text into {target_name}:\n\n\n{text}';

/** Instruction models without a translation card: one plain request, answer only. */
const GENERIC_PROMPT = 'Translate the following {source_name} text into {target_name}. Output only the translation.\n\n{text}';
const GENERIC_LANGUAGES: Record<string, string> = {
  en: 'English', de: 'German', fr: 'French', es: 'Spanish', it: 'Italian', pt: 'Portuguese', nl: 'Dutch',
  pl: 'Polish', cs: 'Czech', ru: 'Russian', uk: 'Ukrainian', tr: 'Turkish', ar: 'Arabic', hi: 'Hindi', th: 'Thai',
  vi: 'Vietnamese', id: 'Indonesian', ja: 'Japanese', ko: 'Korean', zh: 'Simplified Chinese',
  'zh-Hant': 'Traditional Chinese',
};
/** Llama 3.2's card names eight officially supported languages. */
const LLAMA32_LANGUAGES: Record<string, string> = {
  en: 'English', de: 'German', fr: 'French', it: 'Italian', pt: 'Portuguese', hi: 'Hindi', es: 'Spanish', th: 'Thai',
};

export const KNOWN_TRANSLATORS: KnownTranslator[] = [
  {
    name: 'Hy-MT2 (model card: github.com/Tencent-Hunyuan/Hy-MT2, "Default Translation")',
    matches: /hy-mt2/i,
    declaration: () =>
      hunyuan(
        HY_LANGUAGES.map(([c]) => c),
        'Translate the following text into {target_name}. Note that you should only output the translated result without any additional explanation:\n\n{text}',
        HY_ZH_V15,
      ),
  },
  {
    name: 'HY-MT1.5 (model card: tencent/HY-MT1.5-1.8B)',
    matches: /hy-mt1\.5/i,
    declaration: () => hunyuan(HY_LANGUAGES.map(([c]) => c), HY_EN_SEGMENT, HY_ZH_V15),
  },
  {
    name: 'Hunyuan-MT-7B (model card: tencent/Hunyuan-MT-7B)',
    // The Chimera model merges several translations; it is no translator by itself.
    matches: /hunyuan-mt-7b/i,
    declaration: () => hunyuan(HY_MT_7B_CODES, HY_EN_SEGMENT, '把下面的文本翻译成{target_name}，不要额外解释。\n\n{text}'),
  },
  {
    name: 'TranslateGemma (model card: google/translategemma-4b-it)',
    matches: /translategemma/i,
    // Its own chat template takes the two codes and the text as one structured content part and raises on plain
    // text; an export that ships Gemma 3's plain template gets the message that template would have built.
    declaration: (chatTemplate) =>
      chatTemplate?.includes('source_lang_code')
        ? {
            content: { type: 'text', source_lang_code: '{source_code}', target_lang_code: '{target_code}', text: '{text}' },
            languages: TRANSLATEGEMMA_LANGUAGES,
          }
        : { prompt: TRANSLATEGEMMA_PROMPT, languages: TRANSLATEGEMMA_LANGUAGES },
  },
  {
    name: 'Qwen3 (instruction model, generic translation prompt)',
    matches: /(^|\/)qwen3-[\d.]+b/i,
    // Without it Qwen3 thinks aloud (<think>…</think>) before answering.
    declaration: () => ({ prompt: GENERIC_PROMPT, languages: GENERIC_LANGUAGES, chatTemplateOptions: { enable_thinking: false } }),
  },
  {
    name: 'Gemma 3 (instruction model, generic translation prompt)',
    matches: /(^|\/)gemma-3-[\d.]+b-it/i,
    declaration: () => ({ prompt: GENERIC_PROMPT, languages: GENERIC_LANGUAGES }),
  },
  {
    name: 'Llama 3.2 Instruct (generic translation prompt, the card\'s eight languages)',
    matches: /(^|\/)llama-3\.2-[\d.]+b-instruct/i,
    declaration: () => ({ prompt: GENERIC_PROMPT, languages: LLAMA32_LANGUAGES }),
  },
];

/** The translator a repository (`owner/name`) is an export of, if Dragoman knows its prompt. */
export function knownTranslator(repo: string): KnownTranslator | undefined {
  if (/chimera/i.test(repo)) return undefined;
  return KNOWN_TRANSLATORS.find((t) => t.matches.test(repo));
}
