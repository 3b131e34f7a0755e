// gettext PO: each entry's msgid is a unit written into its msgstr (for plural entries msgid into msgstr[0] and
// msgid_plural into every other msgstr[n]); comments, flags, msgctxt, msgid lines and obsolete entries are kept
// byte for byte. The header entry is kept but for its Language (and, when we know the target's rule,
// Plural-Forms) field. \n in a message is a <br> in the unit, so line breaks stay where they were.
// A document translated with a memory marks each entry for review: `#, fuzzy` when the model translated any of
// its messages, no `fuzzy` flag when the memory gave them all (docs/memories.md).
import { decodeText as decodeFragment, escapeText, tokenizeFragment } from './fragment.ts';
import { PieceWriter, type UnitRef } from './pieces.ts';
import { decodeText, extensionOf, textHead } from './text-file.ts';
import { DocumentError, type DocumentFormat } from './types.ts';

/** Plural rules of common targets (gettext's own table); others keep the file's msgstr[n] lines as they are. */
const PLURAL_FORMS: Record<string, string> = {
  ja: 'nplurals=1; plural=0;', ko: 'nplurals=1; plural=0;', zh: 'nplurals=1; plural=0;', vi: 'nplurals=1; plural=0;',
  th: 'nplurals=1; plural=0;', id: 'nplurals=1; plural=0;', tr: 'nplurals=2; plural=(n != 1);',
  en: 'nplurals=2; plural=(n != 1);', de: 'nplurals=2; plural=(n != 1);', nl: 'nplurals=2; plural=(n != 1);',
  sv: 'nplurals=2; plural=(n != 1);', da: 'nplurals=2; plural=(n != 1);', nb: 'nplurals=2; plural=(n != 1);',
  es: 'nplurals=2; plural=(n != 1);', it: 'nplurals=2; plural=(n != 1);', fi: 'nplurals=2; plural=(n != 1);',
  el: 'nplurals=2; plural=(n != 1);', hu: 'nplurals=2; plural=(n != 1);', et: 'nplurals=2; plural=(n != 1);',
  fr: 'nplurals=2; plural=(n > 1);', pt: 'nplurals=2; plural=(n != 1);',
  ru: 'nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);',
  uk: 'nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);',
  pl: 'nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);',
  cs: 'nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;', sk: 'nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;',
  ar: 'nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);',
};

/** `nplurals` of a Plural-Forms value. */
const nplurals = (forms: string): number => Number(/nplurals\s*=\s*(\d+)/.exec(forms)?.[1] ?? 2);

/** A C-style PO string's content (without quotes) as text. */
function unquote(s: string): string {
  return s.replace(/\\(n|t|r|"|\\|a|b|f|v|[0-7]{1,3})/g, (_a, c: string) =>
    ({ n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v' } as Record<string, string>)[c] ??
    String.fromCharCode(parseInt(c, 8)));
}

function quote(text: string): string {
  return '"' + text.replace(/[\\"\t\r\n]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\t': '\\t', '\r': '\\r', '\n': '\\n' })[c]!) + '"';
}

/** A message as a unit fragment: \n as <br>. */
function messageFragment(text: string): string {
  return text.split('\n').map(escapeText).join('<br>');
}

function fragmentMessage(html: string): string {
  return tokenizeFragment(html).map((t) => (t.kind === 'text' ? decodeFragment(t.text) : t.kind === 'void' && t.name === 'br' ? '\n' : '')).join('');
}

/** msgstr written as one line, or, for a message with line breaks, as "" then one line per break as gettext does. */
function msgstrLines(keyword: string, text: string, nl: string): string {
  if (!text.includes('\n') || text.indexOf('\n') === text.length - 1) return `${keyword} ${quote(text)}`;
  const parts = text.split(/(?<=\n)/);
  return [`${keyword} ""`, ...parts.map(quote)].join(nl);
}

interface Field {
  keyword: string;
  /** Line indexes (keyword line and continuation lines). */
  first: number;
  last: number;
  value: string;
}

export function openPo(text: string, nl: string, maxUnits = Infinity): PieceWriter {
  const lines = text.split(/(?<=\n)/);
  const out = new PieceWriter(maxUnits);
  // Entries: runs of non-blank lines. Fields: a keyword line and its "..." continuation lines.
  let i = 0;
  let headerPlural: number | undefined;
  while (i < lines.length) {
    if (lines[i]!.trim() === '') {
      out.keep(lines[i++]!);
      continue;
    }
    const start = i;
    while (i < lines.length && lines[i]!.trim() !== '') i++;
    entry(out, lines.slice(start, i), start);
  }
  return out;

  function entry(w: PieceWriter, entryLines: string[], at: number): void {
    const fields: Field[] = [];
    for (let k = 0; k < entryLines.length; k++) {
      const line = entryLines[k]!.replace(/\r?\n$/, '');
      const m = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+"((?:[^"\\]|\\.)*)"\s*$/.exec(line);
      if (m) fields.push({ keyword: m[1]!, first: k, last: k, value: unquote(m[2]!) });
      else if (/^\s*"((?:[^"\\]|\\.)*)"\s*$/.test(line) && fields.length > 0 && fields[fields.length - 1]!.last === k - 1) {
        const f = fields[fields.length - 1]!;
        f.last = k;
        f.value += unquote(/"((?:[^"\\]|\\.)*)"/.exec(line)![1]!);
      } else if (!line.startsWith('#')) {
        throw new DocumentError(`The PO file has a line it cannot read at line ${at + k + 1}: expected a comment, a keyword (msgid, msgstr...) or a "string".`);
      }
    }
    const msgid = fields.find((f) => f.keyword === 'msgid');
    const strs = fields.filter((f) => f.keyword.startsWith('msgstr'));
    if (!msgid || strs.length === 0) return w.keep(entryLines.join(''));
    const firstStr = strs[0]!.first;
    const lastStr = strs[strs.length - 1]!.last;
    const head = entryLines.slice(0, firstStr).join('');
    const tail = entryLines.slice(lastStr + 1).join('');
    const lineEnd = /\r?\n$/.exec(entryLines[lastStr]!)?.[0] ?? '';
    if (msgid.value === '') {
      w.keep(head);
      // The header: Language set, Plural-Forms set for a target we know.
      let header = strs[0]!.value;
      headerPlural = nplurals(/Plural-Forms:\s*([^\n]*)/.exec(header)?.[1] ?? '');
      w.unitless((target) => {
        const lang = target.replace(/-/g, '_');
        header = /^Language:.*$/m.test(header) ? header.replace(/^Language:.*$/m, `Language: ${lang}`) : header + `Language: ${lang}\n`;
        const forms = PLURAL_FORMS[target.split('-')[0]!];
        if (forms && /^Plural-Forms:.*$/m.test(header)) header = header.replace(/^Plural-Forms:.*$/m, `Plural-Forms: ${forms}`);
        return msgstrLines('msgstr', header, nl);
      });
      w.keep(lineEnd + tail);
      return;
    }
    const plural = fields.find((f) => f.keyword === 'msgid_plural');
    const refs: UnitRef[] = plural ? [{}, {}] : [{}];
    w.noted(refs, (notes) => (notes && notes.some(Boolean) ? withFuzzy(head, notes.some((n) => n?.origin === 'machine'), nl) : head));
    if (!plural) {
      w.unit(messageFragment(msgid.value), (t) => msgstrLines('msgstr', fragmentMessage(t), nl), refs[0]);
      w.keep(lineEnd + tail);
      return;
    }
    // Plural: msgstr[0] from msgid, msgstr[1..n-1] from msgid_plural; n from the target's rule when known.
    const singular: string[] = [];
    w.unit(messageFragment(msgid.value), (t) => {
      singular[0] = fragmentMessage(t);
      return '';
    }, refs[0]);
    const fileCount = Math.max(strs.length, headerPlural ?? 2);
    w.unit(messageFragment(plural.value), (t, target) => {
      const forms = PLURAL_FORMS[target.split('-')[0]!];
      const n = forms ? nplurals(forms) : fileCount;
      const other = fragmentMessage(t);
      return Array.from({ length: n }, (_x, k) => msgstrLines(`msgstr[${k}]`, k === 0 ? singular[0] ?? other : other, nl)).join(nl);
    }, refs[1]);
    w.keep(lineEnd + tail);
  }
}

/**
 * An entry's comment lines with the `fuzzy` flag set (`fuzzy`) or taken out: added first to its `#,` line, or as a
 * `#, fuzzy` line before the previous-message (`#|`) lines and the keywords, as gettext writes it.
 */
export function withFuzzy(head: string, fuzzy: boolean, nl: string): string {
  const lines = head.split(/(?<=\n)/);
  const flagLine = lines.findIndex((l) => l.startsWith('#,'));
  if (flagLine >= 0) {
    const end = /\r?\n$/.exec(lines[flagLine]!)?.[0] ?? '';
    const flags = lines[flagLine]!.slice(2, lines[flagLine]!.length - end.length).split(',').map((f) => f.trim()).filter((f) => f && f !== 'fuzzy');
    if (fuzzy) flags.unshift('fuzzy');
    lines[flagLine] = flags.length ? `#, ${flags.join(', ')}${end}` : '';
    return lines.join('');
  }
  if (!fuzzy) return head;
  let at = lines.findIndex((l) => l.startsWith('#|') || !l.startsWith('#'));
  if (at < 0) at = lines.length;
  lines.splice(at, 0, `#, fuzzy${nl}`);
  return lines.join('');
}

export const po: DocumentFormat = {
  id: 'po',
  mediaType: 'text/x-gettext-translation; charset=utf-8',
  extension: 'po',
  sniff: (bytes, filename) =>
    ['po', 'pot'].includes(extensionOf(filename)) || (/^msgid\s+"/m.test(textHead(bytes)) && /^msgstr(\[\d+\])?\s+"/m.test(textHead(bytes))),
  async open(bytes, limits) {
    const file = decodeText(bytes, 'PO');
    return openPo(file.text, file.newline, limits.maxUnits).document(file.encoding);
  },
};
