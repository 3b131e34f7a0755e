// A searchable language picker built from two native controls: a search field that narrows a <select>.
// Native controls keep keyboard use, screen readers and phones working without custom widget code.
import type { LanguageEntry } from './api.ts';

/** Lower case without accents, so "francais" finds "Français". */
function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export class LanguagePicker {
  private languages: LanguageEntry[] = [];

  constructor(
    private readonly select: HTMLSelectElement,
    private readonly filter: HTMLInputElement,
    /** Label of an extra first option with value "" (auto-detect), kept whatever the search. */
    private readonly autoLabel: string | null,
  ) {
    filter.addEventListener('input', () => this.render());
    // Enter in the search field picks the first match and moves on to the list.
    filter.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        select.focus();
      }
    });
  }

  setLanguages(languages: LanguageEntry[]): void {
    this.languages = languages;
    this.render();
  }

  get value(): string {
    return this.select.value;
  }

  set value(code: string) {
    if (!Array.from(this.select.options).some((o) => o.value === code)) {
      this.filter.value = '';
      this.render();
    }
    this.select.value = code;
  }

  nameOf(code: string): string {
    return this.languages.find((l) => l.language === code)?.name ?? code;
  }

  has(code: string): boolean {
    return this.languages.some((l) => l.language === code);
  }

  /**
   * The listed code a browser language tag means: itself (any case), else the language whose Google code it is
   * (`fa-AF` → `prs`, as the API reads it), else a listed variant of its base in the same script (`zh-HK` →
   * `zh-TW`, both Traditional; `de-AT` → `de`), else the first variant of the base. Undefined when none is listed.
   */
  match(tag: string): string | undefined {
    const lower = tag.toLowerCase();
    const base = lower.split('-')[0]!;
    const codes = this.languages.map((l) => l.language);
    const exact =
      codes.find((c) => c.toLowerCase() === lower) ??
      this.languages.find((l) => l.google?.toLowerCase() === lower)?.language;
    if (exact) return exact;
    const variants = codes.filter((c) => c.toLowerCase() === base || c.toLowerCase().startsWith(`${base}-`));
    const script = scriptOf(tag);
    return variants.find((c) => script !== undefined && scriptOf(c) === script) ?? variants[0];
  }

  private render(): void {
    const query = fold(this.filter.value.trim());
    const previous = this.select.value;
    const matches = this.languages.filter(
      (l) => query === '' || fold(l.name).includes(query) || l.language.toLowerCase().startsWith(query),
    );
    const options: HTMLOptionElement[] = [];
    if (this.autoLabel !== null) options.push(new Option(this.autoLabel, ''));
    for (const l of matches) options.push(new Option(`${l.name} (${l.language})`, l.language));
    this.select.replaceChildren(...options);
    if (options.some((o) => o.value === previous)) this.select.value = previous;
    else if (query !== '' && matches.length > 0) this.select.value = matches[0]!.language;
    this.select.dispatchEvent(new Event('change'));
  }
}

/** The likely script of a language tag (`zh-HK` → Hant), from the browser's CLDR data. */
function scriptOf(tag: string): string | undefined {
  try {
    return new Intl.Locale(tag).maximize().script;
  } catch {
    return undefined;
  }
}
