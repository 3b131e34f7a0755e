// Run by sqlite-collector.test.ts in a process of its own: the SQLite store's whole life (open, migrations, keys,
// charges, the readiness ping, close) several times over, every store then dropped, and then the kind of
// allocation that makes V8 collect with no current context. Prints the major collections that followed.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { join } from 'node:path';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { openDatabase } from '../../src/storage/sqlite/open.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite/store.ts';
import { sqliteAccountStore } from '../stores.ts';

const dir = process.argv[2]!;
for (let round = 0; round < 5; round++) {
  const file = join(dir, `churn-${round}.db`);
  const store = sqliteAccountStore(file, defaultPlanLimits('A'));
  await store.insertKey({ id: `k${round}`, prefix: 'dk_abc', hash: String(round).padEnd(64, 'a'), plan: 'free', overrides: {}, createdAt: 1 });
  for (let i = 0; i < 20; i++) {
    await store.ping();
    await store.charge(`k${round}`, '2026-01', 10);
    await store.hitRateLimit(`k${round}`, 1000, i);
  }
  await store.listKeys();
  await store.close();
  const reader = openDatabase(file, { readonly: true });
  reader.prepare('SELECT COUNT(*) FROM api_keys').pluck().get();
  reader.close();
}

let majors = 0;
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
});
observer.observe({ entryTypes: ['gc'] });
let objects: { i: number }[] | null = [];
for (let i = 0; i < 3e6; i++) objects.push({ i });
objects = null;
let sum = 0;
for (let i = 0; i < 3e6; i++) sum += (JSON.parse(`{"x":${i}}`) as { x: number }).x;
await new Promise((resolve) => setTimeout(resolve, 100)); // the observer hears of collections asynchronously
observer.disconnect();
console.log(JSON.stringify({ survived: true, majors, sum }));
