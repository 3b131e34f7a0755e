// Light/dark theme: follows prefers-color-scheme until the person presses the toggle; the choice is kept in
// localStorage and applied as <html data-theme>, which the stylesheet reads.
const SLOT = 'dragoman.theme';
type Theme = 'light' | 'dark';

function systemTheme(): Theme {
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function chosenTheme(): Theme | null {
  try {
    const v = localStorage.getItem(SLOT);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null;
  }
}

export function setupTheme(toggle: HTMLButtonElement): void {
  const apply = (theme: Theme): void => {
    document.documentElement.dataset.theme = theme;
    toggle.setAttribute('aria-pressed', String(theme === 'dark'));
    toggle.textContent = 'Dark theme';
  };
  apply(chosenTheme() ?? systemTheme());
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    if (!chosenTheme()) apply(systemTheme());
  });
  toggle.addEventListener('click', () => {
    const next: Theme = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(SLOT, next);
    } catch {
      // Not kept across visits; still applied now.
    }
    apply(next);
  });
}
