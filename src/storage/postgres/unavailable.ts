// Which failures mean "the database cannot be reached right now" (as opposed to a bug or a constraint). The stores
// turn them into the one error a request gets for them, AccountsUnavailable (src/accounts/errors.ts), which a client
// may retry: every charge is idempotent by id and a charge whose fate is unknown is cancelled (accounts/postgres/store.ts).

const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

const MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Connection ended unexpectedly',
];

export function isUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  // SQLSTATE 08xxx connection exceptions; 57P01-57P03 shutdown / cannot connect now; 53300 too many
  // connections; 25006 read-only transaction (a standby was promoted away from us).
  if (/^08/.test(code) || /^57P0[123]$/.test(code) || code === '53300' || code === '25006') return true;
  if (NODE_CODES.has(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return MESSAGES.some((m) => message.includes(m));
}
