// Tools outside npm that some suites drive (EPUBCheck, LibreOffice, Chromium, a PostgreSQL server, OpenSSL). On a machine
// without one, its tests are skipped with a note naming the tool and how to install it, and the run's summary counts
// them (test/skipped-tools-reporter.ts); under CI=true a missing tool fails instead, so CI never skips (.ci/run
// installs them all).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { beforeEach, describe, it } from 'vitest';

export type Tool = 'epubcheck' | 'soffice' | 'poppler' | 'chromium' | 'postgresql' | 'openssl';

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;

const TOOLS: Record<Tool, { present: () => boolean; install: string }> = {
  // Debian's epubcheck is a jar run by Java.
  epubcheck: { present: () => has('epubcheck') && has('java'), install: 'apt-get install epubcheck' },
  soffice: {
    present: () => has(process.env.DRAGOMAN_SOFFICE ?? 'soffice'),
    install: 'apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui',
  },
  // pdftotext, pdffonts, pdfimages, pdftoppm read the PDFs back.
  poppler: { present: () => has('pdftotext') && has('pdffonts'), install: 'apt-get install poppler-utils' },
  // Makes the self-signed certificate of the HTTPS tests, as the README shows.
  openssl: { present: () => has('openssl'), install: 'apt-get install openssl' },
  chromium: { present: () => existsSync('/usr/bin/chromium'), install: 'apt-get install chromium' },
  postgresql: {
    present: () => Boolean(process.env.DRAGOMAN_TEST_DATABASE_URL),
    install: 'apt-get install postgresql, then DRAGOMAN_TEST_DATABASE_URL from scripts/pg-test-cluster.sh start',
  },
};

const known = new Map<Tool, boolean>();

/** The skip note for a test that needs `tool` (the reporter groups by it): "needs epubcheck (apt-get install epubcheck)". */
export const needsNote = (tool: Tool) => `needs ${tool} (${TOOLS[tool].install})`;

/**
 * Whether `tool` is missing here. Under CI=true a missing tool throws: the suite that asks fails rather than
 * skips. Probed once per test process.
 */
export function missing(tool: Tool): boolean {
  let present = known.get(tool);
  if (present === undefined) known.set(tool, (present = TOOLS[tool].present()));
  if (!present && process.env.CI === 'true') {
    throw new Error(`CI runs every suite, and this one ${needsNote(tool)}: .ci/run installs it`);
  }
  return !present;
}

/** `describe`, or when a tool is missing a skipped one whose name carries the note (its hooks never run). */
export function describeNeeding(...tools: Tool[]): (name: string, fn: () => void) => void {
  const absent = tools.find((tool) => missing(tool));
  return absent ? (name, fn) => describe.skip(`${name} [${needsNote(absent)}]`, fn) : (name, fn) => describe(name, fn);
}

/** `it`, or when `tool` is missing a skipped one whose name carries the note. */
export function itNeeding(tool: Tool): (name: string, fn: () => Promise<void>, timeout?: number) => void {
  return missing(tool) ? (name, fn, timeout) => it.skip(`${name} [${needsNote(tool)}]`, fn, timeout) : (name, fn, timeout) => it(name, fn, timeout);
}

/**
 * For a file whose every test needs `tool`: each test is skipped with the note when it is missing. Returns whether
 * it is missing, for the file's beforeAll/afterAll to do nothing then.
 */
export function everyTestNeeds(tool: Tool): boolean {
  const absent = missing(tool);
  if (absent) beforeEach((ctx) => ctx.skip(needsNote(tool)));
  return absent;
}
