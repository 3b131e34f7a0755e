// Key secrets. A secret is `dk_` + 32 base64url characters (192 random bits): high entropy, so a plain sha256
// is a safe stored form (no salt/KDF needed), and the prefix makes leaked keys easy to grep for.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'dk_';
const SECRET_RE = /^dk_[A-Za-z0-9_-]{32}$/;
/** How much of the secret is kept in clear, to recognise a key in listings. */
const VISIBLE = KEY_PREFIX.length + 6;

export function newSecret(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function newKeyId(): string {
  // 40 bits: public, only needs to be unique among keys (the store refuses duplicates).
  return 'k_' + randomBytes(5).toString('hex');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function visiblePrefix(secret: string): string {
  return secret.slice(0, VISIBLE);
}

export function looksLikeSecret(s: string): boolean {
  return SECRET_RE.test(s);
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
