// The page's Documents part: choose or drop a file, translate it with the languages and the key chosen above
// (POST /v1/documents), follow its progress (GET /v1/documents/{id}), and download the result once it is done
// (fetched with the key, then saved from a blob: URL). Each job keeps the key it was made with: only that key
// sees it. Polling spends the key's requests of the minute, so it is slower for keys with a low limit. The key's
// jobs are listed again after a reload (GET /v1/documents), each with a delete button.
import { usageAfterJob } from './actions.ts';
import { ApiFailure } from './api.ts';
import { $, ui as page } from './dom.ts';
import type { DocumentView } from '../../../documents/job.ts';
import { chosenMemory } from './memory-choice.ts';
import { deleteDocument, fetchResult, listDocuments, readDocument, uploadDocument } from './documents-api.ts';
import { keyForRequest, refuse } from './key-field.ts';
import { sourcePicker, targetPicker } from './language-choice.ts';
import { knownRate, learnRate } from './live-translate.ts';
import { explain, formatCount, formatPercent } from './messages.ts';

const ui = {
  drop: $('drop'),
  file: $<HTMLInputElement>('file'),
  chosen: $('file-chosen'),
  send: $<HTMLButtonElement>('file-translate'),
  status: $('files-status'),
  jobs: $<HTMLUListElement>('jobs'),
  jobsEmpty: $('jobs-empty'),
  jobsRefresh: $<HTMLButtonElement>('jobs-refresh'),
};

/** The rows shown, by job id: a job listed again (a reload, "show") updates its row rather than adding one. */
const rows = new Map<string, JobRow>();

let file: File | null = null;

/** How long between two reads of a job: a second, or two reads a minute's worth of the key's limit. */
function pollDelayMs(): number {
  const rpm = knownRate();
  return rpm === null ? 1000 : Math.max(1000, Math.ceil(120_000 / (rpm ?? 20)));
}

function describe(failure: ApiFailure): string {
  if (failure.kind === 'rate') return `Too many requests in the past minute: try again in ${failure.retryAfter} s.`;
  if (failure.kind === 'disabled') return 'This server does not translate documents.';
  return explain(failure).text;
}

function choose(f: File | null): void {
  file = f;
  ui.chosen.textContent = f ? `${f.name} (${formatCount(f.size)} bytes)` : '';
  ui.send.disabled = f === null;
}

/** One job's row, kept up to date until it is done or failed. */
class JobRow {
  private readonly li = document.createElement('li');
  private readonly state = document.createElement('span');
  private readonly bar = document.createElement('progress');
  private readonly download = document.createElement('button');
  private readonly remove = document.createElement('button');

  constructor(
    private job: DocumentView,
    private readonly key: string,
    /** A new job goes on top; one listed from the server keeps the list's order (newest first). */
    place: 'top' | 'end',
  ) {
    const name = document.createElement('span');
    name.className = 'job-name';
    name.textContent = job.filename;
    this.li.className = 'job';
    this.li.dataset.id = job.id;
    this.bar.max = 1;
    this.bar.setAttribute('aria-label', `Progress of ${job.filename}`);
    this.download.type = 'button';
    // The name the file is saved under: report.de.docx for report.docx (older servers: the uploaded name).
    this.download.textContent = `Download ${job.resultFilename ?? job.filename}`;
    this.download.hidden = true;
    this.download.addEventListener('click', () => void this.save());
    this.remove.type = 'button';
    this.remove.className = 'ghost job-delete';
    this.remove.textContent = 'Delete';
    this.remove.setAttribute('aria-label', `Delete ${job.filename}`);
    this.remove.addEventListener('click', () => void this.delete());
    this.li.append(name, this.state, this.bar, this.download, this.remove);
    if (place === 'top') ui.jobs.prepend(this.li);
    else ui.jobs.append(this.li);
    rows.set(job.id, this);
    ui.jobsEmpty.hidden = true;
    this.render();
    this.poll();
  }

  get ownedBy(): string {
    return this.key;
  }

  /** Off the list (another key's list is shown). */
  drop(): void {
    this.li.remove();
    rows.delete(this.job.id);
    ui.jobsEmpty.hidden = rows.size > 0;
  }

  /** The server's newer view of the job (listed again). */
  update(job: DocumentView): void {
    const wasRunning = this.running;
    this.job = job;
    this.render();
    if (!wasRunning) this.poll();
  }

  private get running(): boolean {
    return this.job.status !== 'done' && this.job.status !== 'error';
  }

  private async delete(): Promise<void> {
    if (!window.confirm(`Delete ${this.job.filename} and its translation from the server?`)) return;
    this.remove.disabled = true;
    try {
      await deleteDocument(this.key, this.job.id);
      this.drop();
      ui.status.textContent = `${this.job.filename} deleted.`;
    } catch (err) {
      ui.status.textContent = describe(err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0));
      this.remove.disabled = false;
    }
  }

  private render(): void {
    const j = this.job;
    const from = j.source ?? (j.detectedSourceLanguage && j.detectedSourceLanguage !== 'und' ? j.detectedSourceLanguage : undefined);
    const pair = `${from ? sourcePicker.nameOf(from) : 'detected language'} → ${targetPicker.nameOf(j.target)}`;
    const what = {
      queued: 'waiting',
      translating: `translating, ${formatPercent(j.progress)}`,
      done: `done, kept until ${new Date(j.expiresAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`,
      error: `failed: ${j.error?.message ?? 'the translation failed.'}`,
    }[j.status];
    this.state.textContent = `${pair}, ${formatCount(j.characters)} characters: ${what}`;
    this.bar.value = j.status === 'done' ? 1 : j.progress;
    this.bar.hidden = j.status === 'error';
    this.download.hidden = j.status !== 'done';
    this.li.dataset.status = j.status;
  }

  private poll(): void {
    if (!this.running) return;
    setTimeout(async () => {
      if (!rows.has(this.job.id)) return; // deleted meanwhile
      try {
        this.job = await readDocument(this.key, this.job.id);
        this.render();
        // Ended: the key's month changed (charged, or refunded on failure), so the usage panel reads it again.
        if (!this.running) void usageAfterJob(this.key);
        this.poll();
      } catch (err) {
        const failure = err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0);
        // A full minute (429) or a dropped connection: read again later; anything else ends the row.
        if (failure.kind === 'rate' || failure.kind === 'network') {
          setTimeout(() => this.poll(), failure.retryAfter * 1000);
          return;
        }
        this.state.textContent = describe(failure);
      }
    }, pollDelayMs());
  }

  private async save(): Promise<void> {
    this.download.disabled = true;
    try {
      const { blob, filename } = await fetchResult(this.key, this.job.id, this.job.resultFilename ?? this.job.filename);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = filename;
      document.body.append(a);
      a.click();
      a.remove();
      // The browser has taken the file once the click's task is over.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      ui.status.textContent = `${filename} downloaded.`;
    } catch (err) {
      ui.status.textContent = describe(err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0));
    } finally {
      this.download.disabled = false;
    }
  }
}

async function send(): Promise<void> {
  if (!file) return;
  const key = keyForRequest();
  if (key === undefined) return;
  if (key === null) {
    // The shared key (DRAGOMAN_UI_KEY) covers text only.
    ui.status.textContent = 'Documents need your own API key (the server’s shared key covers text only): enter one above.';
    return;
  }
  const target = targetPicker.value;
  if (!target) {
    ui.status.textContent = 'Choose the language to translate into (“To” above).';
    return;
  }
  ui.send.disabled = true;
  ui.status.textContent = `Sending ${file.name}…`;
  try {
    const { job, rpm } = await uploadDocument(key, file, target, sourcePicker.value, chosenMemory());
    learnRate(rpm);
    ui.status.textContent = `${job.filename} accepted: ${formatCount(job.characters)} characters.`;
    new JobRow(job, key, 'top');
    choose(null);
    ui.file.value = '';
  } catch (err) {
    const failure = err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0);
    if (failure.kind === 'auth') refuse(failure.message);
    ui.status.textContent = failure.kind === 'auth' ? 'The key was not accepted (see the key field).' : describe(failure);
    ui.send.disabled = file === null;
  }
}

/**
 * The jobs of the key in the field, newest first (one request, GET /v1/documents): after a reload the page shows
 * what the key sent before. Quiet when there is no key yet; a refusal is said by the key field when asked for.
 */
export async function showHistory(asked: boolean): Promise<void> {
  const secret = page.key.value.trim();
  if (!/^[\x21-\x7e]+$/.test(secret)) {
    if (asked) keyForRequest();
    return;
  }
  try {
    const jobs = await listDocuments(secret);
    // Rows of another key go: the list is this key's.
    for (const row of [...rows.values()]) if (row.ownedBy !== secret) row.drop();
    for (const job of jobs) {
      const row = rows.get(job.id);
      if (row) row.update(job);
      else new JobRow(job, secret, 'end');
    }
    if (asked) ui.status.textContent = jobs.length ? '' : 'No documents sent with this key are kept on the server.';
  } catch (err) {
    const failure = err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0);
    if (!asked) return;
    if (failure.kind === 'auth') refuse(failure.message);
    ui.status.textContent = failure.kind === 'auth' ? 'The key was not accepted (see the key field).' : describe(failure);
  }
}

export function setupDocuments(): void {
  choose(null);
  ui.jobsRefresh.addEventListener('click', () => void showHistory(true));
  ui.file.addEventListener('change', () => choose(ui.file.files?.[0] ?? null));
  ui.send.addEventListener('click', () => void send());
  // Drag and drop: the whole area takes the file (the file field stays the keyboard's way in).
  ui.drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    ui.drop.classList.add('over');
  });
  ui.drop.addEventListener('dragleave', () => ui.drop.classList.remove('over'));
  ui.drop.addEventListener('drop', (event) => {
    event.preventDefault();
    ui.drop.classList.remove('over');
    const dropped = event.dataTransfer?.files?.[0];
    if (dropped) choose(dropped);
  });
}
