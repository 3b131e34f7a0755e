// Cost of the /v1 front half (auth, rolling window, quota charge in SQLite, validation, JSON) without the
// engine: same-language translate (no model call) and detect, N requests at a few concurrencies, over HTTP
// on loopback. Prints a table; not a test. Usage: npm run bench:api [-- --requests 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Accounts } from '../src/accounts/accounts.ts';
import { systemClock } from '../src/accounts/clock.ts';
import { startApp } from '../src/app.ts';
import { loadConfig } from '../src/config/env.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' } } });
const total = Number(values.requests);
const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-bench-api-'));
const config = loadConfig({
  DRAGOMAN_PORT: '0',
  DRAGOMAN_DATA_DIR: dataDir,
  DRAGOMAN_MODELS_DIR: join(dataDir, 'no-models'),
  DRAGOMAN_LOG_LEVEL: 'silent',
  DRAGOMAN_WORKERS: '1',
});
const app = await startApp(config, { logger: false });
const accounts = new Accounts(app.store, systemClock);

async function run(name: string, concurrency: number, body: unknown, path: string, rpmLimited: boolean) {
  // A pro key with an rpm above the load: every request goes through the window bookkeeping.
  const { secret } = await accounts.createKey({ plan: 'pro', rpm: rpmLimited ? 10_000_000 : null });
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const payload = JSON.stringify(body);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const res = await fetch(app.url + path, {
          method: 'POST',
          headers: { 'x-api-key': secret, 'content-type': 'application/json' },
          body: payload,
        });
        await res.arrayBuffer();
        if (res.status !== 200) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
  return { name, concurrency, requests: latencies.length, failures, rps: (latencies.length / seconds).toFixed(0), p50: pct(0.5), p99: pct(0.99) };
}

const rows = [];
for (const concurrency of [1, 16]) {
  rows.push(await run('translate same-lang, rpm-limited key', concurrency, { q: ['Hallo Welt.', 'Wie geht es?'], source: 'de', target: 'de' }, '/v1/translate', true));
  rows.push(await run('translate same-lang, unlimited rpm', concurrency, { q: ['Hallo Welt.', 'Wie geht es?'], source: 'de', target: 'de' }, '/v1/translate', false));
  rows.push(await run('detect, rpm-limited key', concurrency, { q: 'Hallo Welt, wie geht es dir heute?' }, '/v1/detect', true));
}
await app.close();
rmSync(dataDir, { recursive: true, force: true });

console.log('| request | concurrency | requests | non-200 | req/s | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.concurrency} | ${r.requests} | ${r.failures} | ${r.rps} | ${r.p50} | ${r.p99} |`);
