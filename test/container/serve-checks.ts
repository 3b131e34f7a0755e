// The built image at work: models imported through its entrypoint, then served with compose.yaml's options
// (environment, volumes, stop grace period, restart policy) given to podman run, then again with no network at
// all and a read-only root file system (as the Kubernetes manifest runs it).
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { check, expectThat } from './report.ts';
import { must, podman, run } from './shell.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const READY_TIMEOUT_MS = 240_000;

interface Setup {
  image: string;
  packs: string;
  reference: { src: string; beam4: string }[];
  ulimits: string[];
  runId: string;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on('error', fail);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function running(name: string): Promise<boolean> {
  const r = await run('podman', ['inspect', '--format', '{{.State.Running}}', name]);
  return r.stdout.trim() === 'true';
}

/** Polls `probe` until it is true, failing early with the container's log when the container stops. */
async function waitFor(name: string, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < READY_TIMEOUT_MS) {
    if (await probe()) return Date.now() - started;
    if (!(await running(name))) {
      const logs = await run('podman', ['logs', '--tail', '30', name]);
      const state = await run('podman', ['inspect', '--format', '{{.State.ExitCode}}', name]);
      throw new Error(`the container stopped (exit ${state.stdout.trim()}):\n${logs.stdout}${logs.stderr}`);
    }
    await sleep(1000);
  }
  throw new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s`);
}

const inside = (name: string, script: string, env: string[] = []) =>
  run('podman', ['exec', ...env.flatMap((e) => ['-e', e]), name, 'node', '-e', script]);

/** A translation request from inside the container, to its own loopback. */
const TRANSLATE_INSIDE = `fetch('http://127.0.0.1:'+process.env.DRAGOMAN_PORT+'/v1/translate',{method:'POST',
  headers:{'content-type':'application/json','x-api-key':process.env.KEY},body:process.env.BODY})
  .then(async r=>{console.log(JSON.stringify({status:r.status,body:await r.json()}))},e=>{console.error(e);process.exit(1)})`;

function compareTranslations(body: unknown, reference: Setup['reference']): string {
  const got = (body as { data?: { translations?: { translatedText: string }[] } }).data?.translations?.map((t) => t.translatedText);
  expectThat(Array.isArray(got), `no translations in ${JSON.stringify(body).slice(0, 200)}`);
  reference.forEach((row, i) => expectThat(got![i] === row.beam4, `"${row.src}" gave "${got![i]}", the model's reference is "${row.beam4}"`));
  return `${got!.length} sentences equal dev.jsonl's beam-4 reference, e.g. "${got![0]}"`;
}

export async function runServerChecks(s: Setup) {
  const [data, models] = [`${s.runId}-data`, `${s.runId}-models`];
  const common = ['--runtime', 'runc', ...s.ulimits, '--health-interval', 'disable'];
  const names: string[] = [];
  try {
    await must('podman', ['volume', 'create', data]);
    await must('podman', ['volume', 'create', models]);

    await check('models import of a pack through the image entrypoint installs into the /models volume', async () => {
      const r = await podman('run', '--rm', ...common, '--network', 'none', '-v', `${models}:/models`, '-v', `${s.packs}:/packs:ro`, s.image, 'models', 'import', '/packs/models.tar');
      expectThat(r.code === 0, `exit ${r.code}: ${r.stderr.trim().slice(-400)}`);
      const ls = await must('podman', ['run', '--rm', ...common, '--network', 'none', '-v', `${models}:/models`, '--entrypoint', 'ls', s.image, '/models', '/models/tiny-marian-en-de/onnx']);
      expectThat(/tiny-marian-en-de/.test(ls.stdout) && /decoder_model_merged/.test(ls.stdout), `/models holds: ${ls.stdout.replace(/\n/g, ' ')}`);
      return r.stdout.trim().split('\n').at(-1);
    });

    // compose.yaml's service, through podman run: its environment, its volumes, its grace period and restart policy.
    const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as { services: { dragoman: Record<string, unknown> } };
    const svc = compose.services.dragoman;
    const env = Object.entries(svc.environment as Record<string, string>).map(([k, v]) => `${k}=${v}`);
    const volumes = (svc.volumes as string[]).map((v) => v.replace(/^dragoman-data:/, `${data}:`).replace(/^dragoman-models:/, `${models}:`));
    const grace = String(/^(\d+)s$/.exec(String(svc.stop_grace_period))![1]);
    const port = await freePort();
    const serve = `${s.runId}-serve`;
    names.push(serve);
    // Host network here (no port publishing on this machine): the server listens on loopback at a free port.
    const started = await podman('run', '-d', '--name', serve, ...common, '--network', 'host', '--stop-timeout', grace, '--restart', String(svc.restart),
      ...env.flatMap((e) => ['-e', e]), ...volumes.flatMap((v) => ['-v', v]),
      '-e', 'DRAGOMAN_HOST=127.0.0.1', '-e', `DRAGOMAN_PORT=${port}`, '-e', 'DRAGOMAN_PRECISION=fp32', s.image);
    const url = `http://127.0.0.1:${port}`;
    const ok = await check('the server starts with compose.yaml\'s options and becomes ready (GET /ready 200)', async () => {
      expectThat(started.code === 0, started.stderr);
      const ms = await waitFor(serve, async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200);
      return `ready after ${(ms / 1000).toFixed(1)} s`;
    });
    if (!ok) return;
    await check('GET /health answers 200', async () => {
      const r = await fetch(`${url}/health`);
      expectThat(r.status === 200, `status ${r.status}`);
      return JSON.stringify(await r.json()).slice(0, 80);
    });
    let key = '';
    await check('a key made with podman exec … node dist/cli/main.js keys create', async () => {
      const r = await must('podman', ['exec', serve, 'node', 'dist/cli/main.js', 'keys', 'create', '--plan', 'pro', '--json']);
      key = (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { key: string }).key;
      expectThat(key.length > 20, `no key in ${r.stdout}`);
      return `${key.slice(0, 6)}…`;
    });
    const body = JSON.stringify({ q: s.reference.map((r) => r.src), source: 'en', target: 'de' });
    await check('POST /v1/translate with that key gives the tiny model\'s reference translations', async () => {
      const r = await fetch(`${url}/v1/translate`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body });
      const answer = await r.text();
      expectThat(r.status === 200, `status ${r.status}: ${answer}`);
      return compareTranslations(JSON.parse(answer), s.reference);
    });
    await check('the server runs as a non-root user', async () => {
      const id = (await must('podman', ['exec', serve, 'id'])).stdout.trim();
      expectThat(/^uid=10001\(dragoman\) gid=10001\(dragoman\)/.test(id), id);
      return id;
    });
    await check('that user can write /data and /models, and no application file', async () => {
      const writable = (await must('podman', ['exec', serve, 'find', '/app', '/usr/local', '-writable'])).stdout.trim();
      expectThat(writable === '', `writable: ${writable.split('\n').slice(0, 5).join(' ')}`);
      const denied = await podman('exec', serve, 'sh', '-c', 'echo x >> /app/dist/cli/main.js');
      expectThat(denied.code !== 0, 'appending to /app/dist/cli/main.js worked');
      await must('podman', ['exec', serve, 'sh', '-c', 'test -w /data && test -w /models']);
      return 'find /app /usr/local -writable: nothing';
    });
    await check('the image HEALTHCHECK, run once inside, exits 0', async () => {
      const test = JSON.parse((await must('podman', ['image', 'inspect', '--format', '{{json .Config.Healthcheck.Test}}', s.image])).stdout) as string[];
      expectThat(test[0] === 'CMD', `Healthcheck.Test is ${JSON.stringify(test)}`);
      const r = await podman('exec', serve, ...test.slice(1));
      expectThat(r.code === 0, `exit ${r.code}: ${r.stderr}`);
      const hc = await podman('healthcheck', 'run', serve);
      expectThat(hc.code === 0, `podman healthcheck run: exit ${hc.code} ${hc.stdout}${hc.stderr}`);
      return `${test.slice(1, 3).join(' ')} … exit 0; podman healthcheck run: ${hc.stdout.trim() || 'exit 0'}`;
    });
    await check('the container has compose.yaml\'s environment, volumes and stop grace period', async () => {
      const inspect = JSON.parse((await must('podman', ['inspect', serve])).stdout)[0] as {
        Config: { Env: string[]; StopTimeout: number };
        Mounts: { Name?: string; Destination: string }[];
      };
      for (const e of env) expectThat(inspect.Config.Env.includes(e), `${e} missing`);
      const mounts = inspect.Mounts.map((m) => `${m.Name}:${m.Destination}`).sort();
      expectThat(JSON.stringify(mounts) === JSON.stringify([...volumes].sort()), `mounts ${mounts.join(', ')}`);
      expectThat(inspect.Config.StopTimeout === Number(grace), `stop timeout ${inspect.Config.StopTimeout}`);
      return `${env.length} variables, ${mounts.join(' ')}, stop timeout ${grace} s`;
    });
    await check('podman stop exits 0 within 15 s, and so does the server', async () => {
      const r = await podman('stop', serve);
      expectThat(r.code === 0, `podman stop: exit ${r.code} ${r.stderr}`);
      expectThat(r.ms < 15_000, `took ${r.ms} ms`);
      const code = (await must('podman', ['inspect', '--format', '{{.State.ExitCode}}', serve])).stdout.trim();
      expectThat(code === '0', `the server exited ${code}`);
      return `${(r.ms / 1000).toFixed(1)} s, server exit 0`;
    });

    // No network at all, and the root file system read-only with a /tmp of its own (as deploy/kubernetes runs it).
    const offline = `${s.runId}-offline`;
    names.push(offline);
    const off = await podman('run', '-d', '--name', offline, ...common, '--network', 'none', '--read-only', '--read-only-tmpfs=false', '--tmpfs', '/tmp',
      '-v', `${data}:/data`, '-v', `${models}:/models`, '-e', 'DRAGOMAN_PRECISION=fp32', s.image);
    await check('with --network none and a read-only root it becomes ready and translates, asked from inside', async () => {
      expectThat(off.code === 0, off.stderr);
      const mode = (await must('podman', ['inspect', '--format', '{{.HostConfig.NetworkMode}}', offline])).stdout.trim();
      expectThat(mode === 'none', `network mode ${mode}`);
      const ms = await waitFor(offline, async () => (await inside(offline, "fetch('http://127.0.0.1:8080/ready').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))")).code === 0);
      const r = await inside(offline, TRANSLATE_INSIDE, [`KEY=${key}`, `BODY=${body}`]);
      expectThat(r.code === 0, r.stderr);
      const answer = JSON.parse(r.stdout) as { status: number; body: unknown };
      expectThat(answer.status === 200, `status ${answer.status}: ${JSON.stringify(answer.body)}`);
      return `ready after ${(ms / 1000).toFixed(1)} s; ${compareTranslations(answer.body, s.reference)}`;
    });
    await check('the offline container stops with exit 0 too', async () => {
      const r = await podman('stop', offline);
      const code = (await must('podman', ['inspect', '--format', '{{.State.ExitCode}}', offline])).stdout.trim();
      expectThat(r.code === 0 && r.ms < 15_000 && code === '0', `podman stop exit ${r.code} in ${r.ms} ms, server exit ${code}`);
      return `${(r.ms / 1000).toFixed(1)} s`;
    });
  } finally {
    for (const name of names) await podman('rm', '-f', '-t', '0', name);
    await podman('volume', 'rm', '-f', data, models);
  }
}
