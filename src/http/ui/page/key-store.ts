// Where the API key lives in the browser: sessionStorage (this tab only) by default, localStorage only when the
// person ticks "remember". It is never written to the URL, a cookie or the page's markup.
const SLOT = 'dragoman.apiKey';

export function loadKey(): { key: string | null; remembered: boolean } {
  const remembered = safe(() => localStorage.getItem(SLOT));
  if (remembered) return { key: remembered, remembered: true };
  return { key: safe(() => sessionStorage.getItem(SLOT)), remembered: false };
}

export function saveKey(key: string, remember: boolean): void {
  if (remember) {
    safe(() => localStorage.setItem(SLOT, key));
    safe(() => sessionStorage.removeItem(SLOT));
  } else {
    safe(() => sessionStorage.setItem(SLOT, key));
    safe(() => localStorage.removeItem(SLOT));
  }
}

export function forgetKey(): void {
  safe(() => localStorage.removeItem(SLOT));
  safe(() => sessionStorage.removeItem(SLOT));
}

// Storage throws in some private modes or when disabled: the page still works for this visit.
function safe<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}
