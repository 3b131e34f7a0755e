// What the page says while it works: the busy state, the error box (with "Try again"), and the countdown after a
// 429. `run` wraps every action that sends a request: one at a time, none while a countdown runs.
import { ApiFailure } from './api.ts';
import { ui } from './dom.ts';
import { usingSharedKey } from './key-field.ts';
import { explain, RATE_AFTER, RATE_BEFORE, TRY_AGAIN_NOW } from './messages.ts';

let busy = false;
/** Date.now() until which a 429 told us to wait; 0 when not waiting. */
let blockedUntil = 0;
let countdown: ReturnType<typeof setInterval> | undefined;
let lastAction: (() => Promise<void>) | null = null;
/** Where a refused key is reported (by the key field: key-field.ts). */
let onRefusedKey: (message: string) => void = () => undefined;
const idleListeners: (() => void)[] = [];

export function isBusy(): boolean {
  return busy;
}

export function isWaiting(): boolean {
  return blockedUntil > Date.now();
}

export function whenRefusedKey(handler: (message: string) => void): void {
  onRefusedKey = handler;
}

/** Called after every action, when the page can send a request again (translate-as-you-type waits for it). */
export function whenIdle(listener: () => void): void {
  idleListeners.push(listener);
}

export function clearError(): void {
  ui.error.hidden = true;
  ui.errorText.textContent = '';
  ui.retry.hidden = true;
}

export function showError(text: string, retry = false): void {
  ui.errorText.textContent = text;
  ui.retry.hidden = !retry;
  ui.error.hidden = false;
}

export function say(text: string): void {
  ui.progressText.textContent = text;
}

function updateButtons(): void {
  const waiting = isWaiting();
  ui.translate.disabled = busy || waiting;
  ui.detect.disabled = busy || waiting;
  ui.translate.setAttribute('aria-busy', String(busy));
  ui.busy.hidden = !busy;
}

function setBusy(on: boolean, what = ''): void {
  busy = on;
  say(on ? what : '');
  updateButtons();
}

function secondsUntil(until: number): number {
  return Math.max(0, Math.ceil((until - Date.now()) / 1000));
}

/** 429: count down from Retry-After, then let the buttons work again. */
function startCountdown(seconds: number): void {
  blockedUntil = Date.now() + seconds * 1000;
  if (countdown !== undefined) clearInterval(countdown);
  // The sentence is announced once (role=alert); the seconds change inside a part marked aria-live=off so a
  // screen reader is not interrupted every second. At zero the "try again now" sentence is announced.
  const counter = document.createElement('span');
  counter.setAttribute('aria-live', 'off');
  counter.textContent = String(secondsUntil(blockedUntil));
  showError('');
  ui.errorText.replaceChildren(RATE_BEFORE, counter, RATE_AFTER);
  const tick = (): void => {
    const left = secondsUntil(blockedUntil);
    counter.textContent = String(left);
    if (left === 0) {
      clearInterval(countdown);
      countdown = undefined;
      blockedUntil = 0;
      showError(TRY_AGAIN_NOW);
    }
    updateButtons();
  };
  tick();
  countdown = setInterval(tick, 1000);
}

function fail(err: unknown): void {
  const failure = err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0);
  if (failure.kind === 'rate') {
    startCountdown(failure.retryAfter);
    return;
  }
  // A refused key is said by the key field, where it can be fixed (the server's own words: unknown, revoked…).
  if (failure.kind === 'auth') {
    onRefusedKey(failure.message);
    return;
  }
  // Everyone on the page shares the server's key: its month being used up is not "your plan".
  if (failure.kind === 'quota' && usingSharedKey()) {
    showError('This month’s characters of the server’s shared key are used up: enter your own API key to translate more.');
    return;
  }
  const { text, retry } = explain(failure);
  showError(text, retry);
}

/** Run one action that sends a request; false when it could not start (busy, or waiting out a 429). */
export async function run(what: string, action: () => Promise<void>): Promise<boolean> {
  if (busy || isWaiting()) return false;
  lastAction = action;
  clearError();
  // Disabling the focused button drops the focus to <body>; give it back afterwards (unless an error moved it on
  // purpose, e.g. to the key field, or the button stays disabled for a countdown).
  const focused = document.activeElement;
  setBusy(true, what);
  try {
    await action();
  } catch (err) {
    fail(err);
  } finally {
    setBusy(false);
    if (focused instanceof HTMLButtonElement && !focused.disabled && document.activeElement === document.body) focused.focus();
  }
  for (const listener of idleListeners) listener();
  return true;
}

export function retryLast(): void {
  if (lastAction) void run('Trying again…', lastAction);
}
