// dragoman.json's prompt forms (docs/models.md): a template with names and codes, rules choosing another prompt for
// some pairs (Hy-MT's Chinese prompt), the structured content part TranslateGemma's template reads, extra chat
// template variables, what a request adds (context, instructions, a register) and a segment's glossary terms in the
// declared wording, and the problems a wrong declaration is refused with.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { PromptPartUnsupported } from '../../src/engine/errors.ts';
import { promptAbilities, readTranslatorPrompt, userContent, type SegmentPrompt } from '../../src/engine/model/translator-prompt.ts';
import { FIXTURES, tempDir } from './helpers.ts';

/** The token ids tiny-qwen3-mt reads for `text` (English into German) with `additions`, in its chat template, and their text. */
async function qwenReads(text: string, additions?: SegmentPrompt): Promise<{ ids: number[]; read: string }> {
  const declared = JSON.parse(readFileSync(join(FIXTURES, 'tiny-qwen3-mt', 'dragoman.json'), 'utf8')) as Record<string, unknown>;
  const { prompt } = readTranslatorPrompt('dragoman.json', declared);
  const tokenizer = await ModelTokenizer.load(join(FIXTURES, 'tiny-qwen3-mt'));
  const ids = tokenizer.chat(userContent(prompt, 'eng_Latn', 'deu_Latn', text, additions), prompt.options);
  return { ids, read: tokenizer.decode(ids) };
}

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
    expect(refused({ ...HY, contextPrompt: 'Context:' })).toMatch(/"contextPrompt" must be a string with \{context\}/);
    expect(refused({ ...HY, instructionsPrompt: 3 })).toMatch(/"instructionsPrompt" must be a string with \{instructions\}/);
    expect(refused({ ...HY, formalityPrompts: { polite: 'Be polite.' } })).toMatch(/"formalityPrompts" must map "more" and\/or "less"/);
    expect(refused({ ...HY, terminologyPrompt: 'Terms:\n{terms}\n' })).toMatch(/"terminologyPrompt" \(with \{terms\}\) and "termPrompt" .* go together/);
    expect(refused({ ...HY, terminologyPrompt: 'Terms:\n{terms}\n', termPrompt: '{source_term}' })).toMatch(/"termPrompt" must be a string with \{source_term\} and \{target_term\}/);
    expect(refused({ ...HY, terminologyPrompt: 'Terms:', termPrompt: '{source_term} = {target_term}' })).toMatch(/"terminologyPrompt" must be a string with \{terms\}/);
    expect(refused({ ...HY, examplePrompt: '{source_example} = {target_example}' })).toMatch(/"examplesPrompt" \(with \{examples\}\) and "examplePrompt" .* go together/);
    expect(refused({ ...HY, examplesPrompt: 'Examples:\n{examples}\n', examplePrompt: '{target_example}' })).toMatch(/"examplePrompt" must be a string with \{source_example\}/);
    expect(refused({ ...HY, examplesPrompt: 'Examples:\n{examples}\n', examplePrompt: '{source_example}' })).toMatch(/"examplePrompt" must be a string with \{source_example\} and \{target_example\}/);
    expect(refused({ ...HY, examplesPrompt: 'Examples:', examplePrompt: '{source_example} = {target_example}' })).toMatch(/"examplesPrompt" must be a string with \{examples\}/);
  });
});

describe('what a request adds to an LLM translator\'s prompt', () => {
  const WORDED = {
    ...HY,
    contextPrompt: 'Context, not to be translated: {context}\n',
    instructionsPrompt: 'Follow these rules in {target_name}:\n{instructions}\n',
    formalityPrompts: { more: 'Address the reader formally.\n' },
  };

  it('puts context, instructions and a register before a template that does not place them, in its wording', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', WORDED);
    expect(promptAbilities(prompt)).toEqual({ context: true, instructions: true, formality: ['more'], terminology: false, examples: false });
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A dog.', { context: 'At the park.', instructions: ['Be brief.', 'Say Hund.'], formality: 'more' }))
      .toBe('Context, not to be translated: At the park.\nFollow these rules in German:\nBe brief.\nSay Hund.\nAddress the reader formally.\n'
        + 'Translate the following segment into German, without additional explanation.\n\nA dog.');
    // Nothing added: the prompt is the template alone, as a model without the wordings has it.
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A dog.')).toBe(userContent(readTranslatorPrompt('dragoman.json', HY).prompt, 'eng_Latn', 'deu_Latn', 'A dog.'));
  });

  it('fills placeholders the template places itself, once: a value that looks like a placeholder stays as sent', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', { ...WORDED, prompt: '{formality}Into {target_name}:\n{text}\n{context}' });
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'Say {context}.', { context: '{text}', formality: 'more' }))
      .toBe('Address the reader formally.\nInto German:\nSay {context}.\nContext, not to be translated: {text}\n');
  });

  it('refuses a part the model declares no wording for, naming the model', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', HY);
    expect(promptAbilities(prompt)).toEqual({ context: false, instructions: false, formality: [], terminology: false, examples: false });
    expect(() => userContent(prompt, 'eng_Latn', 'deu_Latn', 'A dog.', { context: 'At the park.' }, 'hy-mt')).toThrow(PromptPartUnsupported);
    expect(() => userContent(readTranslatorPrompt('dragoman.json', WORDED).prompt, 'eng_Latn', 'deu_Latn', 'A dog.', { formality: 'less' }, 'hy-mt'))
      .toThrow('Model hy-mt takes no formality less in its prompt');
  });
});

describe('a segment\'s glossary terms in an LLM translator\'s prompt', () => {
  // HY-MT1.5's card, terminology intervention: 参考下面的翻译：\n{source_term} 翻译成 {target_term}\n\n将以下文本翻译为…
  const TERMED = { ...HY, terminologyPrompt: '参考下面的翻译：\n{terms}\n\n', termPrompt: '{source_term} 翻译成 {target_term}' };
  const TERMS = [{ source: 'contract', target: '合同' }, { source: 'party', target: '当事方' }];

  it('puts the terms in the declared wording, a line each, after the context and before the instructions', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', { ...TERMED, contextPrompt: '{context}\n', instructionsPrompt: '{instructions}\n' });
    expect(promptAbilities(prompt).terminology).toBe(true);
    expect(userContent(prompt, 'eng_Latn', 'zho_Hans', 'The contract binds each party.', { terms: TERMS }))
      .toBe('参考下面的翻译：\ncontract 翻译成 合同\nparty 翻译成 当事方\n\n把下面的文本翻译成中文，不要额外解释。\n\nThe contract binds each party.');
    expect(userContent(prompt, 'eng_Latn', 'zho_Hans', 'It binds.', { context: 'A contract.', terms: TERMS.slice(0, 1), instructions: ['Be brief.'] }))
      .toBe('A contract.\n参考下面的翻译：\ncontract 翻译成 合同\n\nBe brief.\n把下面的文本翻译成中文，不要额外解释。\n\nIt binds.');
    // A term that looks like a placeholder stays as it is.
    expect(userContent(prompt, 'eng_Latn', 'zho_Hans', 'x', { terms: [{ source: '{text}', target: '{target_term}' }] }))
      .toBe('参考下面的翻译：\n{text} 翻译成 {target_term}\n\n把下面的文本翻译成中文，不要额外解释。\n\nx');
  });

  it('leaves the prompt as it is for a model without the wording (its glossary is kept by constrained decoding)', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', HY);
    expect(promptAbilities(prompt).terminology).toBe(false);
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A contract.', { terms: TERMS })).toBe(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A contract.'));
  });

  it('reaches the token ids tiny-qwen3-mt reads, in its chat template', async () => {
    const text = 'A man rides a horse.';
    const withTerms = await qwenReads(text, { terms: [{ source: 'horse', target: 'Pferd' }] });
    expect(withTerms.ids.length).toBeGreaterThan((await qwenReads(text)).ids.length);
    const { read } = withTerms;
    expect(read).toContain('Terms: horse = Pferd;');
    expect(read.indexOf('horse = Pferd')).toBeLessThan(read.indexOf(text));
  });
});

describe('a segment\'s translation memory matches as examples in an LLM translator\'s prompt', () => {
  const SHOWN = { ...HY, examplesPrompt: 'Earlier translations:\n{examples}\n\n', examplePrompt: '{source_example} => {target_example}' };
  const EXAMPLES = [{ source: 'The contract binds both parties.', target: 'Der Vertrag bindet beide Parteien.' }, { source: 'The contract ends.', target: 'Der Vertrag endet.' }];

  it('puts the examples in the declared wording, a line each in the order given, after the context and before the terms', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', { ...SHOWN, contextPrompt: '{context}\n', terminologyPrompt: 'Terms: {terms}\n', termPrompt: '{source_term} = {target_term}' });
    expect(promptAbilities(prompt).examples).toBe(true);
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'The contract binds each party.', { examples: EXAMPLES }))
      .toBe('Earlier translations:\nThe contract binds both parties. => Der Vertrag bindet beide Parteien.\nThe contract ends. => Der Vertrag endet.\n\n'
        + 'Translate the following segment into German, without additional explanation.\n\nThe contract binds each party.');
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'It binds.', { context: 'A contract.', examples: EXAMPLES.slice(1), terms: [{ source: 'binds', target: 'bindet' }] }))
      .toBe('A contract.\nEarlier translations:\nThe contract ends. => Der Vertrag endet.\n\nTerms: binds = bindet\n'
        + 'Translate the following segment into German, without additional explanation.\n\nIt binds.');
    // An example that looks like a placeholder stays as it is.
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'x', { examples: [{ source: '{text}', target: '{target_example}' }] }))
      .toContain('{text} => {target_example}\n');
  });

  it('leaves the prompt as it is for a model without the wording', () => {
    const { prompt } = readTranslatorPrompt('dragoman.json', HY);
    expect(promptAbilities(prompt).examples).toBe(false);
    expect(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A contract.', { examples: EXAMPLES })).toBe(userContent(prompt, 'eng_Latn', 'deu_Latn', 'A contract.'));
  });

  it('reaches the token ids tiny-qwen3-mt reads, in its chat template', async () => {
    const text = 'A man rides a horse.';
    const { read } = await qwenReads(text, { examples: [{ source: 'A man rides a bike.', target: 'Ein Mann fährt Fahrrad.' }] });
    expect(read).toContain('Examples:\nA man rides a bike. = Ein Mann fährt Fahrrad.\n');
    expect(read.indexOf('Ein Mann fährt Fahrrad.')).toBeLessThan(read.indexOf(text));
  });
});
