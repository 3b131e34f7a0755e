// dragoman.json's prompt forms (docs/models.md): a template with names and codes, rules choosing another prompt for
// some pairs (Hy-MT's Chinese prompt), the structured content part TranslateGemma's template reads, extra chat
// template variables, and the problems a wrong declaration is refused with.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { readTranslatorPrompt, userContent } from '../../src/engine/model/translator-prompt.ts';
import { FIXTURES, tempDir } from './helpers.ts';

const HY = {
  prompt: 'Translate the following segment into {target_name}, without additional explanation.\n\n{text}',
  languages: { en: 'English', de: 'German', zh: 'Chinese' },
  prompts: [{ either: ['zh'], prompt: '把下面的文本翻译成{target_name}，不要额外解释。\n\n{text}', languages: { en: '英语', de: '德语', zh: '中文' } }],
};

describe('an LLM translator\'s prompt', () => {
  it('fills names and codes, and a rule\'s prompt and names for the pairs it matches', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', HY);
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A dog.')).toBe('Translate the following segment into German, without additional explanation.\n\nA dog.');
    expect(userContent(prompt, 'eng_Latn', 'zho_Hans', 'A dog.')).toBe('把下面的文本翻译成中文，不要额外解释。\n\nA dog.');
    expect(userContent(prompt, 'zho_Hans', 'deu_Latn', '狗')).toBe('把下面的文本翻译成德语，不要额外解释。\n\n狗');
    const coded = readTranslatorPrompt('dragoman.json', { prompt: '{source_code}>{target_code} ({source_name}): {text}', languages: { en: 'English', 'zh-Hant': 'Chinese (Traditional)' } }).prompt;
    expect(userContent(coded, 'zho_Hant', 'eng_Latn', '狗')).toBe('zh-Hant>en (Chinese (Traditional)): 狗');
  });

  it('fills a structured content part instead of a template', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', {
      content: { type: 'text', source_lang_code: '{source_code}', target_lang_code: '{target_code}', text: '{text}' },
      languages: { en: 'English', de: 'German' },
    });
    expect(userContent(prompt, 'deu_Latn', 'eng_Latn', 'Ein Hund.')).toEqual([{ type: 'text', source_lang_code: 'de', target_lang_code: 'en', text: 'Ein Hund.' }]);
  });

  it('passes chatTemplateOptions to the tokenizer\'s chat template (Qwen3\'s enable_thinking)', async () => {
    // tiny-qwen3-mt's tokenizer with Qwen3's own ending of the template: an empty thinking block when told not to think
    const dir = tempDir();
    try {
      const config = JSON.parse(readFileSync(join(FIXTURES, 'tiny-qwen3-mt', 'tokenizer_config.json'), 'utf8')) as { chat_template: string };
      config.chat_template = config.chat_template.replace(/\{%- endif %\}$/,
        "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}");
      writeFileSync(join(dir.path, 'tokenizer_config.json'), JSON.stringify(config));
      symlinkSync(join(FIXTURES, 'tiny-qwen3-mt', 'tokenizer.json'), join(dir.path, 'tokenizer.json'));
      const tokenizer = await ModelTokenizer.load(dir.path);
      const { prompt } = readTranslatorPrompt('dragoman.json', { prompt: '{text}', languages: { en: 'English' }, chatTemplateOptions: { enable_thinking: false } });
      const plain = tokenizer.chat('Hi');
      const told = tokenizer.chat('Hi', prompt.options);
      expect(told.slice(0, plain.length)).toEqual(plain);
      expect(tokenizer.decode(told.slice(plain.length))).toMatch(/think/);
    } finally {
      dir.remove();
    }
  });

  it('refuses a declaration it cannot use, saying why', () => {
    const refused = (d: Record<string, unknown>) => {
      try {
        readTranslatorPrompt('dragoman.json', d);
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refused({ languages: { en: 'English' } })).toMatch(/"prompt" \(or "content"\) is missing/);
    expect(refused({ prompt: 'no text here', languages: { en: 'English' } })).toMatch(/\{text\}/);
    expect(refused({ prompt: '{text}', languages: { xx: 'Nowhere' } })).toMatch(/"xx" is not in the language catalog/);
    expect(refused({ ...HY, prompts: [{ either: ['qq'], prompt: '{text}' }] })).toMatch(/"qq" is not a language/);
    expect(refused({ ...HY, chatTemplateOptions: ['x'] })).toMatch(/chatTemplateOptions/);
  });
});
