// The elements of index.html the script works with, found once by id.
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing from index.html`);
  return el as T;
}

export const ui = {
  keyForm: $<HTMLFormElement>('key-form'),
  key: $<HTMLInputElement>('key'),
  remember: $<HTMLInputElement>('remember'),
  keyForget: $<HTMLButtonElement>('key-forget'),
  keyStatus: $('key-status'),
  sharedKey: $('shared-key'),
  signup: $<HTMLButtonElement>('signup'),
  source: $<HTMLInputElement>('source'),
  sourceList: $('source-list'),
  target: $<HTMLInputElement>('target'),
  targetList: $('target-list'),
  swap: $<HTMLButtonElement>('swap'),
  detected: $('detected'),
  text: $<HTMLTextAreaElement>('text'),
  result: $<HTMLTextAreaElement>('result'),
  resultNote: $('result-note'),
  charCount: $('char-count'),
  progressText: $('progress-text'),
  translate: $<HTMLButtonElement>('translate'),
  detect: $<HTMLButtonElement>('detect'),
  copy: $<HTMLButtonElement>('copy'),
  live: $<HTMLInputElement>('live'),
  liveHint: $('live-hint'),
  busy: $('busy'),
  error: $('error'),
  errorText: $('error-text'),
  retry: $<HTMLButtonElement>('retry'),
  detections: $('detections'),
  detectionsBody: $('detections-body'),
  modelKind: $('model-kind'),
  modelUsed: $('model-used'),
  memory: $<HTMLSelectElement>('memory'),
  memoriesRefresh: $<HTMLButtonElement>('memories-refresh'),
  memoryStatus: $('memory-status'),
  usage: $('usage'),
  usageRefresh: $<HTMLButtonElement>('usage-refresh'),
  themeToggle: $<HTMLButtonElement>('theme-toggle'),
};
