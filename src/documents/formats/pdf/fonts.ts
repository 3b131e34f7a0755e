// The fonts translated text is set in: Noto faces carried by npm packages (nothing is downloaded at run time),
// one family per script, tried in order for each character: Noto Sans (Latin, Greek, Cyrillic; regular, bold,
// italic, bold italic), Noto Naskh Arabic, Noto Sans Hebrew, Noto Sans Devanagari, Noto Sans SC (CJK ideographs
// and kana), Noto Sans KR (Hangul). Bold has its own face in every family but SC (set in the regular face: a bold
// CJK face would add its 10 MB to the container image); italic only in Noto Sans. Every face has TrueType (glyf)
// outlines (fontkit's subsets of CFF-outline faces are files PDF readers refuse), so the PDF embeds the subset of
// each face it uses. Fonts are read from disk and parsed once per thread.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';

const require = createRequire(import.meta.url);

/** The folder a font package's files are in. */
function packageDir(name: string): string {
  return dirname(require.resolve(name));
}

export type Family = 'latin' | 'arabic' | 'hebrew' | 'devanagari' | 'cjk' | 'korean';
export const FAMILIES: readonly Family[] = ['latin', 'arabic', 'hebrew', 'devanagari', 'cjk', 'korean'];

export interface Face {
  family: Family;
  bold: boolean;
  italic: boolean;
}

export const faceKey = (f: Face): string => `${f.family}${f.bold ? '-bold' : ''}${f.italic ? '-italic' : ''}`;

let known: Record<string, string> | undefined;

/** The face files by key, resolved once. */
function files(): Record<string, string> {
  if (known) return known;
  const latin = join(packageDir('@embedpdf/fonts-latin'), '..', 'fonts');
  const arabic = join(packageDir('@embedpdf/fonts-arabic'), '..', 'fonts');
  const hebrew = join(packageDir('@embedpdf/fonts-hebrew'), '..', 'fonts');
  const cjk = packageDir('@expo-google-fonts/noto-sans-sc');
  const deva = packageDir('@expo-google-fonts/noto-sans-devanagari');
  const korean = packageDir('@expo-google-fonts/noto-sans-kr');
  known = {
    latin: join(latin, 'NotoSans-Regular.ttf'),
    'latin-bold': join(latin, 'NotoSans-Bold.ttf'),
    'latin-italic': join(latin, 'NotoSans-Italic.ttf'),
    'latin-bold-italic': join(latin, 'NotoSans-BoldItalic.ttf'),
    arabic: join(arabic, 'NotoNaskhArabic-Regular.ttf'),
    'arabic-bold': join(arabic, 'NotoNaskhArabic-Bold.ttf'),
    hebrew: join(hebrew, 'NotoSansHebrew-Regular.ttf'),
    'hebrew-bold': join(hebrew, 'NotoSansHebrew-Bold.ttf'),
    devanagari: join(deva, '400Regular', 'NotoSansDevanagari_400Regular.ttf'),
    'devanagari-bold': join(deva, '700Bold', 'NotoSansDevanagari_700Bold.ttf'),
    cjk: join(cjk, '400Regular', 'NotoSansSC_400Regular.ttf'),
    korean: join(korean, '400Regular', 'NotoSansKR_400Regular.ttf'),
    'korean-bold': join(korean, '700Bold', 'NotoSansKR_700Bold.ttf'),
  };
  return known;
}

/** Every face file the PDF format may read (the container image keeps these and no other weights). */
export function fontFiles(): string[] {
  return Object.values(files());
}

interface FontkitFont {
  unitsPerEm: number;
  postscriptName?: string;
  hasGlyphForCodePoint(cp: number): boolean;
  layout(text: string, features?: unknown): { advanceWidth: number };
  createSubset(): unknown;
  glyphsForString(text: string): { advanceWidth: number }[];
}

interface GlyfSubset {
  glyf: Uint8Array[];
  offset: number;
  _addGlyph(gid: number): number;
}

/**
 * Subsets whose glyphs each take an even number of bytes. fontkit writes a small subset's `loca` in the short
 * format (offsets halved) but copies glyph data of odd length as it is, so every glyph after an odd one starts a
 * byte off and draws blank; padding each glyph to an even length keeps the offsets true.
 */
function withEvenGlyphs(font: FontkitFont): FontkitFont {
  const create = font.createSubset.bind(font);
  font.createSubset = () => {
    const subset = create() as GlyfSubset;
    const add = subset._addGlyph.bind(subset);
    subset._addGlyph = (gid) => {
      const id = add(gid);
      const last = subset.glyf[subset.glyf.length - 1];
      if (last && last.length % 2 === 1) {
        // In fontkit's own Buffer type: its stream takes no other chunk.
        const padded = (last.constructor as unknown as { alloc(n: number): Uint8Array }).alloc(last.length + 1);
        padded.set(last);
        subset.glyf[subset.glyf.length - 1] = padded;
        subset.offset += 1;
      }
      return id;
    };
    return subset;
  };
  return font;
}

/** The faces whose scripts need no shaping: set glyph by glyph. */
const SIMPLE = /^(latin|cjk|korean)\b/;
const loaded = new Map<string, { bytes: Uint8Array; font: FontkitFont }>();
/** The parsed face of each loaded file, by its bytes (what pdf-lib hands to fontkit.create). */
const byBytes = new WeakMap<Uint8Array, FontkitFont>();
/** Most distinct texts a face keeps the layout of. */
const MAX_LAYOUTS = 20_000;

/**
 * A face whose layouts are kept: words repeat across blocks, pages and documents, and a layout through the
 * OpenType tables (GSUB, GPOS) is the costly part of setting text, asked for twice per word (measuring and drawing).
 */
function withLayoutCache(font: FontkitFont, simple: boolean): FontkitFont {
  const layout = font.layout.bind(font);
  const kept = new Map<string, ReturnType<FontkitFont['layout']>>();
  if (simple) {
    // Latin, Greek, Cyrillic, CJK and Hangul (precomposed syllables): one glyph per character from the character map, no OpenType features. A
    // PDF reader spaces glyphs by the font's widths alone (kerning is not drawn), so these advances are the ones
    // the page shows; only ligatures (fi) are given up, at a tenth of a full layout's cost.
    font.layout = (text, features) => {
      if (features !== undefined) return layout(text, features);
      const glyphs = font.glyphsForString(text.normalize('NFC'));
      let advanceWidth = 0;
      for (const g of glyphs) advanceWidth += g.advanceWidth;
      return { glyphs, advanceWidth } as ReturnType<FontkitFont['layout']>;
    };
    return font;
  }
  // fontkit's Indic shaper (Devanagari) needs a generator runtime its build does not carry and throws: such text
  // is set glyph by glyph from the font's character map, unshaped (conjuncts and reordered vowel signs not formed).
  const shaped = (text: string): ReturnType<FontkitFont['layout']> => {
    try {
      return layout(text);
    } catch {
      const glyphs = font.glyphsForString(text);
      return { glyphs, advanceWidth: glyphs.reduce((w, g) => w + g.advanceWidth, 0) } as ReturnType<FontkitFont['layout']>;
    }
  };
  font.layout = (text, features) => {
    if (features !== undefined) return layout(text, features);
    let run = kept.get(text);
    if (!run) {
      run = shaped(text);
      if (kept.size >= MAX_LAYOUTS) kept.clear();
      kept.set(text, run);
    }
    return run;
  };
  return font;
}

/**
 * The fontkit pdf-lib embeds with: the faces this module loaded are handed back parsed and with their layouts
 * kept (no face is parsed again for each document); other bytes go to fontkit.
 */
export const sharedFontkit = {
  create(bytes: Uint8Array): unknown {
    return byBytes.get(bytes) ?? (fontkit as unknown as { create(b: Uint8Array): unknown }).create(bytes);
  },
};

/** A face's file and its fontkit reading, loaded once. `key` as faceKey gives it; a missing style falls back. */
export function face(key: string): { key: string; name: string; bytes: Uint8Array; font: FontkitFont } {
  const all = files();
  let k = key;
  if (!(k in all)) k = k.replace('-italic', '');
  if (!(k in all)) k = k.replace('-bold', '');
  let got = loaded.get(k);
  if (!got) {
    const bytes = new Uint8Array(readFileSync(all[k]!));
    got = { bytes, font: withEvenGlyphs(withLayoutCache((fontkit as unknown as { create(b: Uint8Array): FontkitFont }).create(bytes), SIMPLE.test(k))) };
    byBytes.set(bytes, got.font);
    loaded.set(k, got);
  }
  return { key: k, name: (got.font.postscriptName ?? k).replace(/[^\x21-\x7e]|[()<>[\]{}/%#]/g, ''), ...got };
}

/** The first family whose regular face has a glyph for `cp` (undefined: none of them). */
export function familyOf(cp: number): Family | undefined {
  return FAMILIES.find((f) => face(f).font.hasGlyphForCodePoint(cp));
}
