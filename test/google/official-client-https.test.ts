// The official @google-cloud/translate v2 client over HTTPS, set up exactly as docs/compatibility.md shows:
// a self-signed certificate made by its openssl command, the server started with DRAGOMAN_TLS_CERT and
// DRAGOMAN_TLS_KEY, the client given `apiEndpoint` (it always speaks https) and the key (sent as ?key=, accepted by
// default), and the certificate trusted through NODE_EXTRA_CA_CERTS. The client runs as a process of its own, as a
// user's program would: NODE_EXTRA_CA_CERTS is read when Node starts.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { loadConfig } from '../../src/config/env.ts';
import { oneModelDir } from '../fixture-models.ts';
import { listening } from '../server-process.ts';
import { everyTestNeeds } from '../tools.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'dragoman-https-'));
const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
const env: Record<string, string> = {
  DRAGOMAN_PORT: '0',
  DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de'),
  DRAGOMAN_DATA_DIR: join(dir, 'data'),
  DRAGOMAN_WORKERS: '1',
  DRAGOMAN_INTRA_OP_THREADS: '1',
  DRAGOMAN_TLS_CERT: cert,
  DRAGOMAN_TLS_KEY: key,
};
const noOpenssl = everyTestNeeds('openssl');

let server: ChildProcess | undefined;
let url: string;
let secret: string;

beforeAll(async () => {
  if (noOpenssl) return;
  // docs/compatibility.md's command.
  await exec('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '365',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
  const out: string[] = [];
  expect(await main(['keys', 'create', '--plan', 'pro', '--json'], { env, out: (l) => void out.push(l), err: () => undefined })).toBe(0);
  secret = (JSON.parse(out.join('\n')) as { key: string }).key;
  server = spawn(process.execPath, [join(ROOT, 'bin', 'dragoman.js'), 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  url = (await listening(server)).url;
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
});

/** docs/compatibility.md's client code, run by Node with its environment; prints what the calls answered. */
async function googleClient(code: string, extraEnv: Record<string, string> = {}): Promise<unknown> {
  const port = new URL(url).port;
  const program = `import { v2 } from '@google-cloud/translate';
const translate = new v2.Translate({ key: process.env.DRAGOMAN_KEY, apiEndpoint: 'localhost:${port}' });
${code}`;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', program], {
    cwd: ROOT,
    env: { ...process.env, NODE_EXTRA_CA_CERTS: cert, DRAGOMAN_KEY: secret, ...extraEnv },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as unknown;
}

describe('@google-cloud/translate v2 over HTTPS, as docs/compatibility.md sets it up', () => {
  it('serves https:// and says so in the listening line', () => {
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('translates and detects through apiEndpoint, the key in the query and the certificate in NODE_EXTRA_CA_CERTS', async () => {
    const answered = (await googleClient(`const [text] = await translate.translate('The cat sleeps.', 'de');
const [detection] = await translate.detect('The weather is very nice today and we are going to the park.');
console.log(JSON.stringify({ text, language: detection.language }));`)) as { text: string; language: string };
    expect(answered.language).toBe('en');
    // The same words /v1 gives over the same connection kind.
    const v1 = await exec(process.execPath, ['--input-type=module', '-e', `const r = await fetch('${url.replace('127.0.0.1', 'localhost')}/v1/translate', { method: 'POST',
  headers: { 'x-api-key': process.env.DRAGOMAN_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ q: 'The cat sleeps.', target: 'de' }) });
console.log(JSON.stringify(await r.json()));`], { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: cert, DRAGOMAN_KEY: secret } });
    const expected = (JSON.parse(v1.stdout) as { data: { translations: { translatedText: string }[] } }).data.translations[0]!.translatedText;
    expect(answered.text).toBe(expected);
    expect(answered.text).not.toBe('The cat sleeps.');
  });

  it('without the certificate trusted, the client refuses the server (it is the CA setting that makes it work)', async () => {
    // autoRetry off: the client would otherwise retry what cannot succeed for a quarter of a minute.
    const failed = await googleClient(`const once = new v2.Translate({ key: process.env.DRAGOMAN_KEY, apiEndpoint: translate.options.apiEndpoint, autoRetry: false });
try { await once.translate('The cat sleeps.', 'de'); console.log(JSON.stringify('translated')); }
catch (err) { console.log(JSON.stringify(String(err.code ?? err.message))); }`, { NODE_EXTRA_CA_CERTS: '' });
    expect(failed).toMatch(/SELF_SIGNED|self.signed|UNABLE_TO_VERIFY|certificate/i);
  });

  it('one of DRAGOMAN_TLS_CERT and DRAGOMAN_TLS_KEY alone is a configuration error naming the other', () => {
    expect(() => loadConfig({ DRAGOMAN_TLS_CERT: cert })).toThrow(/both DRAGOMAN_TLS_CERT and DRAGOMAN_TLS_KEY/);
    expect(() => loadConfig({ DRAGOMAN_TLS_KEY: key })).toThrow(/only DRAGOMAN_TLS_KEY is set/);
  });
});
