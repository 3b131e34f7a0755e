import { describe, expect, it } from 'vitest';
import { acceptedCodes, LANGUAGES, languageByFlores, languageByNllb, resolveLanguage } from '../../src/languages/catalog.ts';
import { ALIASES } from '../../src/languages/decisions.ts';
import { isDisplayLocale, localizedName } from '../../src/languages/names.ts';

describe('catalog', () => {
  it('has one entry per FLORES-200 variety, with unique codes', () => {
    expect(LANGUAGES).toHaveLength(204);
    expect(new Set(LANGUAGES.map((l) => l.flores)).size).toBe(204);
    expect(new Set(LANGUAGES.map((l) => l.code.toLowerCase())).size).toBe(204);
    expect(new Set(LANGUAGES.map((l) => l.name)).size).toBe(204);
    expect(LANGUAGES.filter((l) => l.nllb)).toHaveLength(202);
  });

  it('uses ISO 639-1 where it exists, else ISO 639-3, script subtags only for two-script languages', () => {
    const code = (flores: string) => languageByFlores(flores)?.code;
    expect(code('deu_Latn')).toBe('de');
    expect(code('ast_Latn')).toBe('ast');
    expect(code('arb_Arab')).toBe('ar');
    expect(code('arb_Latn')).toBe('ar-Latn');
    expect(code('kas_Arab')).toBe('ks');
    expect(code('kas_Deva')).toBe('ks-Deva');
    expect(code('zho_Hans')).toBe('zh-CN');
    expect(code('zho_Hant')).toBe('zh-TW');
    expect(code('yue_Hant')).toBe('yue');
    for (const l of LANGUAGES) {
      const twoScripts = LANGUAGES.filter((o) => o.iso639_3 === l.iso639_3).length > 1;
      if (!twoScripts) expect(l.code, l.flores).toMatch(/^[a-z]{2,3}$/);
    }
  });

  it('resolves every public code, FLORES code, NLLB token, ISO 639-3 code and alias, case- and _/- insensitively', () => {
    for (const l of LANGUAGES) {
      expect(resolveLanguage(l.code)).toBe(l);
      expect(resolveLanguage(l.code.toUpperCase())).toBe(l);
      expect(resolveLanguage(l.flores)).toBe(l);
      expect(resolveLanguage(l.flores.replace('_', '-').toLowerCase())).toBe(l);
      if (l.nllb) expect(resolveLanguage(l.nllb)).toBe(l);
      expect(resolveLanguage(l.iso639_3)?.iso639_3).toBe(l.iso639_3);
    }
    for (const [alias, flores] of ALIASES) expect(resolveLanguage(alias)?.flores, alias).toBe(flores);
    for (const k of acceptedCodes()) expect(resolveLanguage(k), k).toBeDefined();
  });

  it('maps the Google and legacy aliases', () => {
    const f = (c: string) => resolveLanguage(c)?.flores;
    expect(f('zh')).toBe('zho_Hans');
    expect(f('zh-Hans')).toBe('zho_Hans');
    expect(f('zh_hant')).toBe('zho_Hant');
    expect(f('iw')).toBe('heb_Hebr');
    expect(f('jw')).toBe('jav_Latn');
    expect(f('tl')).toBe('tgl_Latn');
    expect(f('fil')).toBe('tgl_Latn');
    expect(f('no')).toBe('nob_Latn');
    expect(f('sat_Beng')).toBe('sat_Olck');
    expect(languageByNllb('sat_Beng')?.flores).toBe('sat_Olck');
    expect(f('ak')).toBe('aka_Latn'); // a public code beats Google's use of ak for Twi
    expect(f('ger')).toBe('deu_Latn'); // CLDR canonicalisation
    expect(f('pt-BR')).toBe('por_Latn');
    expect(f('zh-HK')).toBe('zho_Hant');
  });

  it('rejects codes that name no catalog variety', () => {
    for (const c of ['', 'xx', 'sr-Latn', 'klingon', '123', 'en-Cyrl', 'und', 'UND', 'und-Latn', 'auto']) expect(resolveLanguage(c), c).toBeUndefined();
  });
});

describe('names', () => {
  it('localizes names through CLDR, falling back to English', () => {
    const de = resolveLanguage('de')!;
    expect(localizedName(de, 'de')).toBe('Deutsch');
    expect(localizedName(de, 'fr')).toBe('allemand');
    expect(localizedName(resolveLanguage('fr')!, 'de')).toBe('Französisch');
    expect(localizedName(resolveLanguage('zh-TW')!, 'en')).toBe('Chinese (Traditional)');
    expect(localizedName(resolveLanguage('acm')!, 'de')).toBe('Mesopotamian Arabic');
    expect(localizedName(resolveLanguage('tw')!, 'de')).toBe('Twi');
    // CLDR reads prs as fa-AF ("Persian (Afghanistan)"): the language keeps its own name, as FLORES calls it.
    const dari = resolveLanguage('prs')!;
    expect(dari.name).toBe('Dari');
    expect([localizedName(dari, 'en'), localizedName(dari, 'de'), localizedName(dari, 'fr')]).toEqual(['Dari', 'Dari', 'dari']);
    expect(localizedName(resolveLanguage('fa')!, 'en')).toBe('Persian');
  });

  it('leaves out what CLDR data carries beside a name: translator notes, a second name, a trailing colon', () => {
    const zhCN = resolveLanguage('zh-CN')!;
    // CLDR's ks data: "चीनी (तरजुम इशार: खास तोर, मैन्डरिन चीनी।) (आसान [तरजुम इशार: …])" — "translation hint: …".
    expect(localizedName(zhCN, 'ks-Deva')).toBe('चीनी (आसान)');
    expect(localizedName(resolveLanguage('crh')!, 'ko')).toBe('크리민 터키어');
    expect(localizedName(resolveLanguage('de')!, 'sa')).toBe('जर्मनभाषा');
    // Over every display language of the catalog, no name keeps a note, a ";" or a dangling colon.
    for (const display of LANGUAGES) {
      for (const lang of LANGUAGES) {
        expect(localizedName(lang, display.code), `${lang.code} in ${display.code}`).not.toMatch(/[:：;；]/);
      }
    }
  });

  it('accepts catalog codes and aliases as display locales', () => {
    expect(isDisplayLocale('de')).toBe(true);
    expect(isDisplayLocale('zh')).toBe(true);
    expect(isDisplayLocale('iw')).toBe(true);
    expect(isDisplayLocale('xx')).toBe(false);
  });
});
