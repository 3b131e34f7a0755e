// API failures in words a person understands, and what the page should offer next.
import type { ApiFailure } from './api.ts';

export interface Explained {
  text: string;
  /** Offer a "Try again" button (network trouble, server errors). */
  retry: boolean;
}

export function explain(failure: ApiFailure): Explained {
  switch (failure.kind) {
    case 'auth':
      // The page says this by the key field instead (key-field.ts refuse), in the server's words.
      return {
        text: 'This API key was not accepted. Enter a valid key above (keys start with “dk_”), or get a free one.',
        retry: false,
      };
    case 'rate':
      return { text: rateText(failure.retryAfter), retry: false };
    case 'quota':
      return {
        text: 'The monthly characters of your plan are used up. Upgrade the plan to translate more this month.',
        retry: false,
      };
    case 'invalid':
      return { text: failure.message, retry: false };
    case 'disabled':
      return { text: `This server does not offer that: ${failure.message}`, retry: false };
    case 'server':
      return {
        // 503 carries words meant for people (e.g. no model installed yet, how to install one): show them.
        text:
          failure.status === 503
            ? `The server cannot do this right now: ${failure.message} Your text is kept: try again later.`
            : 'The server had a problem with this request. Your text is kept: try again in a moment.',
        retry: true,
      };
    case 'network':
      return {
        text: 'The server could not be reached. Check the connection, then try again.',
        retry: true,
      };
  }
}

// 429 in words: the page puts a live countdown between the two halves.
export const RATE_BEFORE = 'Too many requests in the past minute. You can try again in ';
export const RATE_AFTER = ' s.';
export const TRY_AGAIN_NOW = 'You can try again now.';

export function rateText(seconds: number): string {
  return seconds > 0 ? `${RATE_BEFORE}${seconds}${RATE_AFTER}` : TRY_AGAIN_NOW;
}

export function formatCount(n: number): string {
  return new Intl.NumberFormat(undefined).format(n);
}

export function formatPercent(fraction: number): string {
  const format = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
  // Some use that rounds to 0 % would read as "nothing used".
  return fraction > 0 && fraction < 0.005 ? `< ${format.format(0.01)}` : format.format(fraction);
}
