// One control per language side: a text field that is a WAI-ARIA combobox (role=combobox, aria-expanded,
// aria-controls, aria-activedescendant) over a listbox of the languages. Typing filters the list; arrows move
// through it, Enter or Tab takes the highlighted language, Escape puts back the chosen one. When the list is closed
// the field always shows the chosen language, so what is chosen is always what is seen.
import type { LanguageEntry } from './api.ts';

/** Lower case without accents, so "francais" finds "Français". */
function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

interface Choice {
  code: string;
  label: string;
}

export class LanguagePicker {
  private languages: LanguageEntry[] = [];
  private chosen = '';
  /** What the list shows now (filtered), and which of them is highlighted (-1: none). */
  private shown: Choice[] = [];
  private active = -1;
  private typed = false;
  private readonly listeners: ((code: string) => void)[] = [];
  private readonly pickListeners: ((code: string) => void)[] = [];

  constructor(
    private readonly input: HTMLInputElement,
    private readonly list: HTMLElement,
    /** Label of an extra first choice with code "" (auto-detect), kept whatever the filter. */
    private readonly autoLabel: string | null,
  ) {
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', list.id);
    list.setAttribute('role', 'listbox');
    input.addEventListener('focus', () => input.select());
    input.addEventListener('click', () => (this.isOpen ? this.close() : this.open('')));
    input.addEventListener('input', () => {
      this.typed = true;
      this.open(input.value);
    });
    input.addEventListener('keydown', (event) => this.onKey(event));
    // Leaving the field with a filter typed takes the highlighted language (as Tab does); otherwise nothing changes.
    input.addEventListener('blur', () => {
      if (this.isOpen && this.typed && this.active >= 0) this.choose(this.shown[this.active]!.code);
      else this.close();
    });
    // mousedown would move the focus out of the field (and close the list) before the click lands.
    list.addEventListener('mousedown', (event) => event.preventDefault());
    list.addEventListener('click', (event) => {
      const option = (event.target as HTMLElement).closest<HTMLElement>('[role="option"]');
      if (option?.dataset.code !== undefined) this.choose(option.dataset.code);
    });
    if (autoLabel !== null) this.show();
  }

  setLanguages(languages: LanguageEntry[]): void {
    this.languages = languages;
    if (!this.has(this.chosen) && !(this.chosen === '' && this.autoLabel !== null)) this.chosen = '';
    this.show();
  }

  /** The chosen language's code ("" = auto-detect on the source side, or nothing chosen yet). */
  get value(): string {
    return this.chosen;
  }

  /** Choose `code` without telling the listeners (the page setting its own state). */
  set value(code: string) {
    this.chosen = code;
    this.show();
  }

  onChange(listener: (code: string) => void): void {
    this.listeners.push(listener);
  }

  /** Called on every choice the user makes, also of the language already chosen (it is theirs from then on). */
  onPick(listener: (code: string) => void): void {
    this.pickListeners.push(listener);
  }

  focus(): void {
    this.input.focus();
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

  private get isOpen(): boolean {
    return !this.list.hidden;
  }

  private labelOf(code: string): string {
    if (code === '' && this.autoLabel !== null) return this.autoLabel;
    return code === '' ? '' : `${this.nameOf(code)} (${code})`;
  }

  /** Closed: the field shows the chosen language. */
  private show(): void {
    this.input.value = this.labelOf(this.chosen);
  }

  private choose(code: string): void {
    const changed = code !== this.chosen;
    this.chosen = code;
    this.close();
    // Still in the field (Enter, a click on the list): typing again starts a new filter instead of adding to the name.
    if (document.activeElement === this.input) this.input.select();
    for (const listener of this.pickListeners) listener(code);
    if (changed) for (const listener of this.listeners) listener(code);
  }

  private close(): void {
    this.list.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
    this.typed = false;
    this.show();
  }

  /** Open the list filtered by `query` ("" = all), the first match (or the chosen language) highlighted. */
  private open(query: string): void {
    const q = fold(query.trim());
    // Best first: the code itself ("de"), then names that start with the text, then the rest of the matches.
    const rank = (l: LanguageEntry): number =>
      q === '' ? 0 : l.language.toLowerCase() === q ? 1 : fold(l.name).startsWith(q) ? 2 : fold(l.name).includes(q) || l.language.toLowerCase().startsWith(q) ? 3 : 0;
    const matches = this.languages
      .map((l) => ({ l, r: rank(l) }))
      .filter(({ r }) => q === '' || r > 0)
      .sort((a, b) => a.r - b.r)
      .map(({ l }) => l);
    this.shown = matches.map((l) => ({ code: l.language, label: `${l.name} (${l.language})` }));
    if (this.autoLabel !== null && (q === '' || fold(this.autoLabel).includes(q))) this.shown.unshift({ code: '', label: this.autoLabel });
    const options = this.shown.map((c, i) => {
      const li = document.createElement('li');
      li.id = `${this.list.id}-${i}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(c.code === this.chosen));
      li.dataset.code = c.code;
      li.textContent = c.label;
      return li;
    });
    if (options.length === 0) {
      const none = document.createElement('li');
      none.className = 'none';
      none.textContent = 'No language matches';
      options.push(none);
    }
    this.list.replaceChildren(...options);
    this.list.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    const chosenAt = this.shown.findIndex((c) => c.code === this.chosen);
    this.highlight(q === '' ? Math.max(0, chosenAt) : this.shown.length > 0 ? 0 : -1);
  }

  private highlight(index: number): void {
    this.active = index;
    for (const li of Array.from(this.list.children)) li.classList.remove('active');
    const li = index >= 0 ? this.list.children[index] : undefined;
    if (!li) {
      this.input.removeAttribute('aria-activedescendant');
      return;
    }
    li.classList.add('active');
    this.input.setAttribute('aria-activedescendant', li.id);
    li.scrollIntoView({ block: 'nearest' });
  }

  private onKey(event: KeyboardEvent): void {
    const n = this.shown.length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        event.preventDefault();
        if (!this.isOpen) {
          this.open('');
          return;
        }
        if (n === 0 || event.altKey) return;
        const step = event.key === 'ArrowDown' ? 1 : -1;
        this.highlight(this.active < 0 ? 0 : (this.active + step + n) % n);
        return;
      }
      case 'PageDown':
      case 'PageUp':
        if (!this.isOpen || n === 0) return;
        event.preventDefault();
        this.highlight(Math.min(n - 1, Math.max(0, this.active + (event.key === 'PageDown' ? 10 : -10))));
        return;
      case 'Enter':
        // Ctrl+Enter is the page's translate shortcut: leave it to the page.
        if (!this.isOpen || event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        if (this.active >= 0) this.choose(this.shown[this.active]!.code);
        return;
      case 'Tab':
        if (this.isOpen && this.typed && this.active >= 0) this.choose(this.shown[this.active]!.code);
        return;
      case 'Escape':
        if (!this.isOpen) return;
        event.preventDefault();
        this.close();
        this.input.select();
        return;
    }
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
