// The fonts translated text is set in: Noto faces carried by npm packages (nothing is downloaded at run time),
// one family per script, tried in order for each character: Noto Sans (Latin, Greek, Cyrillic; regular, bold,
// italic, bold italic), Noto Naskh Arabic, Noto Sans Hebrew, Noto Sans Devanagari, Noto Sans Hans (CJK ideographs
// and kana). Bold has its own face in every family but CJK (set in the regular face); italic only in Noto Sans. Fonts are read from disk once per
// worker; the PDF embeds each face it uses whole (fontkit's subsets of these faces lose glyph outlines).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';

const require = createRequire(import.meta.url);

/** The folder a font package's files are in. */
function packageDir(name: string): string {
  return dirname(require.resolve(name));
}

export type Family = 'latin' | 'arabic' | 'hebrew' | 'devanagari' | 'cjk';
export const FAMILIES: readonly Family[] = ['latin', 'arabic', 'hebrew', 'devanagari', 'cjk'];

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
  const cjk = join(packageDir('@embedpdf/fonts-sc'), '..', 'fonts');
  const deva = packageDir('@expo-google-fonts/noto-sans-devanagari');
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
    cjk: join(cjk, 'NotoSansHans-Regular.otf'),
  };
  return known;
}

/** Every face file the PDF format may read (the container image keeps these and no other weights). */
export function fontFiles(): string[] {
  return Object.values(files());
}

interface FontkitFont {
  unitsPerEm: number;
  hasGlyphForCodePoint(cp: number): boolean;
  layout(text: string): { advanceWidth: number };
}

const loaded = new Map<string, { bytes: Uint8Array; font: FontkitFont }>();

/** A face's file and its fontkit reading, loaded once. `key` as faceKey gives it; a missing style falls back. */
export function face(key: string): { key: string; bytes: Uint8Array; font: FontkitFont } {
  const all = files();
  let k = key;
  if (!(k in all)) k = k.replace('-italic', '');
  if (!(k in all)) k = k.replace('-bold', '');
  let got = loaded.get(k);
  if (!got) {
    const bytes = new Uint8Array(readFileSync(all[k]!));
    got = { bytes, font: (fontkit as unknown as { create(b: Uint8Array): FontkitFont }).create(bytes) };
    loaded.set(k, got);
  }
  return { key: k, ...got };
}

/** The first family whose regular face has a glyph for `cp` (undefined: none of them). */
export function familyOf(cp: number): Family | undefined {
  return FAMILIES.find((f) => face(f).font.hasGlyphForCodePoint(cp));
}
