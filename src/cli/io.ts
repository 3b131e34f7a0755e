// What a command needs from its surroundings: the environment (for the config) and where to write. Tests pass
// their own, so a command runs in-process with a temp data dir and captured output.
import { escapeOf, UNSAFE_CHARACTERS } from '../accounts/free-text.ts';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
}

export const processIo: CliIo = {
  env: process.env,
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

/**
 * The code of a fault outside the program (a full disk, a port in use, a refused connection: Node's E* codes,
 * SQLite's, PostgreSQL's), said to the user as its message; undefined for a bug (no code, or Node's own ERR_*),
 * which keeps its stack.
 */
export function outsideFaultCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && !code.startsWith('ERR_') ? code : undefined;
}

/** A failure to report as `dragoman: <message>` with this exit code (2 = bad arguments). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, 2);

/** A limit argument: a non-negative integer or `unlimited`. */
export function parseLimit(flag: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.toLowerCase() === 'unlimited') return null;
  const clean = value.replace(/_/g, '');
  if (!/^\d+$/.test(clean)) throw usageError(`${flag} must be a non-negative integer or "unlimited", got "${value}"`);
  // Past 2^53 a number is no longer exact (the counts could never reach it anyway): that is "unlimited".
  if (!Number.isSafeInteger(Number(clean))) throw usageError(`${flag} ${value} is too large (at most ${Number.MAX_SAFE_INTEGER}); use "unlimited"`);
  return Number(clean);
}

export function formatLimit(v: number | null): string {
  return v === null ? 'unlimited' : v.toLocaleString('en-US');
}

/**
 * `text` with every control character (C0, DEL, C1, line separators, bidirectional controls) written as a visible
 * \uXXXX escape: what the CLI prints from the database cannot act on the terminal, whenever it was stored.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, escapeOf);
}

/** JSON for the terminal: JSON.stringify escapes C0 controls only; C1 and bidirectional controls too here. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_CHARACTERS, escapeOf);
}

/** Columns padded to their widest cell, every cell printable. */
export function table(rows: string[][]): string[] {
  const cells = rows.map((r) => r.map((cell) => printable(cell)));
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  return cells.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
}
