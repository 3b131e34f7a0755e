// The per-day usage report (`dragoman usage report`, GET /admin/usage): rows of the usage_days ledger, which is
// written in the transaction of each charge, so the report adds up to what was charged. As CSV or JSON, and
// optionally signed with an ed25519 key the operator keeps, so a third party holding the public key can check
// that the report was not altered.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { DailyUsageRow } from './types.ts';

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** A calendar day `YYYY-MM-DD` that exists (2026-02-30 does not). */
export function isDay(s: string): boolean {
  return DAY.test(s) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s;
}

export interface UsageReportDocument {
  from: string;
  to: string;
  filter: { key?: string; plan?: string };
  generatedAt: string;
  rows: DailyUsageRow[];
  totals: { characters: number; requests: number; documentCharacters: number; memoryCharacters: number };
}

export function usageDocument(from: string, to: string, filter: { key?: string; plan?: string }, rows: DailyUsageRow[], now: number): UsageReportDocument {
  const totals = { characters: 0, requests: 0, documentCharacters: 0, memoryCharacters: 0 };
  for (const r of rows) {
    totals.characters += r.characters;
    totals.requests += r.requests;
    totals.documentCharacters += r.documentCharacters;
    totals.memoryCharacters += r.memoryCharacters;
  }
  return { from, to, filter, generatedAt: new Date(now).toISOString(), rows, totals };
}

const CSV_HEADER = 'day,key_id,plan,characters,requests,document_characters,memory_characters';

export function usageCsv(rows: DailyUsageRow[]): string {
  // Key ids (k_ + letters and digits) and plan names need no quoting.
  const lines = rows.map((r) => [r.day, r.keyId, r.plan, r.characters, r.requests, r.documentCharacters, r.memoryCharacters].join(','));
  return [CSV_HEADER, ...lines].join('\n') + '\n';
}

/** A signed report: the exact bytes signed (`report`, the JSON text), the signature and the public key that checks it. */
export interface SignedReport {
  report: string;
  algorithm: 'ed25519';
  signature: string;
  publicKey: string;
}

export function signReport(reportText: string, privateKeyPem: string): SignedReport {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the signing key is ${key.asymmetricKeyType ?? 'not an asymmetric key'}, not ed25519`);
  const signature = sign(null, Buffer.from(reportText, 'utf8'), key).toString('base64');
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  return { report: reportText, algorithm: 'ed25519', signature, publicKey };
}

/**
 * Whether `signed` was signed by the holder of the private key of `publicKeyPem` (the key the verifier trusts; the
 * one inside the file only says which key signed, anyone could put theirs there).
 */
export function verifyReport(signed: SignedReport, publicKeyPem: string): boolean {
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem);
  } catch (err) {
    throw new Error(`not a public key: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the public key is ${key.asymmetricKeyType}, not ed25519`);
  if (signed.algorithm !== 'ed25519' || typeof signed.report !== 'string' || typeof signed.signature !== 'string') return false;
  return verify(null, Buffer.from(signed.report, 'utf8'), key, Buffer.from(signed.signature, 'base64'));
}
