// HTTPS (DRAGOMAN_TLS_CERT, DRAGOMAN_TLS_KEY): the PEM files read once at start and checked to make a TLS context
// together, so a wrong path, a key that is not the certificate's, or a file that is not PEM is one line at start
// naming the setting, never a failure at the first connection.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { type Config, ConfigError } from '../config/env.ts';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

export function readTlsFiles(tls: NonNullable<Config['tls']>): TlsFiles {
  const read = (setting: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new ConfigError(`${setting} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const files = { cert: read('DRAGOMAN_TLS_CERT', tls.certFile), key: read('DRAGOMAN_TLS_KEY', tls.keyFile) };
  try {
    createSecureContext(files);
  } catch (err) {
    throw new ConfigError(
      `DRAGOMAN_TLS_CERT and DRAGOMAN_TLS_KEY must be a PEM certificate and its PEM private key: ${(err as Error).message}`,
    );
  }
  return files;
}
