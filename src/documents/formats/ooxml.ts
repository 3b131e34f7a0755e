// What Word, PowerPoint and Excel files share: the package's [Content_Types].xml, which names each part's
// type. Sniffing reads it without unpacking the archive; opening uses it to find the parts to translate.
import type { Entries } from './package.ts';
import { findAll } from './xml.ts';
import { peekZip } from './zip.ts';

/** Whether the bytes are an OOXML package whose main part has one of these content types. */
export function sniffOoxml(bytes: Uint8Array, mainTypes: readonly string[]): boolean {
  const types = peekZip(bytes)?.text('[Content_Types].xml');
  if (types === undefined) return false;
  return [...types.matchAll(/ContentType\s*=\s*["']([^"']+)["']/g)].some((m) => mainTypes.includes(m[1]!));
}

/** Content type of every entry (an Override for the part, else the Default for its extension). */
export function partTypes(zip: Entries): Map<string, string> {
  const root = zip.xml('[Content_Types].xml').root;
  const defaults = new Map<string, string>();
  const overrides = new Map<string, string>();
  for (const el of findAll(root, (e) => e.local === 'Default' || e.local === 'Override')) {
    const type = el.attrs.get('ContentType')?.value ?? '';
    if (el.local === 'Default') defaults.set((el.attrs.get('Extension')?.value ?? '').toLowerCase(), type);
    else overrides.set((el.attrs.get('PartName')?.value ?? '').replace(/^\//, ''), type);
  }
  const out = new Map<string, string>();
  for (const e of zip.entries) {
    const ext = e.name.slice(e.name.lastIndexOf('.') + 1).toLowerCase();
    const type = overrides.get(e.name) ?? defaults.get(ext);
    if (type !== undefined) out.set(e.name, type);
  }
  return out;
}

/** Entries whose content type is one of `types`, in archive order. */
export function partsOfType(zip: Entries, types: readonly string[]): string[] {
  return [...partTypes(zip)].filter(([, t]) => types.includes(t)).map(([name]) => name);
}

export const OFFICE = 'application/vnd.openxmlformats-officedocument.';
