// npm run test:container — the image built from this Dockerfile and run for real with podman (Debian's podman,
// runc and debootstrap; run as root):
//   podman build --isolation=chroot --format docker --build-arg NODE_IMAGE=<base-image.ts's image> .
//   podman run --runtime runc --network host --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 …
// crun refuses this kernel's cgroups, and podman's default ulimits are above the hard limits here, hence runc and
// the ulimits. --format docker keeps the HEALTHCHECK (the OCI format has none). Every podman command and its
// output go to a log file named at the end.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBaseImage } from './base-image.ts';
import { checkManifests } from './manifests.ts';
import { checkPdf } from './pdf-checks.ts';
import { check, expectThat, say, summary } from './report.ts';
import { runServerChecks } from './serve-checks.ts';
import { log, logTo, must, podman, run } from './shell.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const IMAGE = 'localhost/dragoman:container-test';
const LABEL = 'org.dragoman.container-test=1';
const out = mkdtempSync(join(tmpdir(), 'dragoman-container-test-'));
logTo(join(out, 'podman.log'));
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

async function imageSize(image: string): Promise<number> {
  return Number((await must('podman', ['image', 'inspect', '--format', '{{.Size}}', image])).stdout.trim());
}

async function build(baseImage: string): Promise<boolean> {
  return check('the image builds from the Dockerfile (podman build --isolation=chroot)', async () => {
    const r = await podman('build', '--isolation=chroot', '--format', 'docker', '--label', LABEL, '--build-arg', `NODE_IMAGE=${baseImage}`, '-t', IMAGE, ROOT);
    const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-25).join('\n');
    expectThat(r.code === 0, `exit ${r.code}\n${tail}`);
    const cached = (r.stdout.match(/--> Using cache/g) ?? []).length;
    return `${(r.ms / 1000).toFixed(0)} s${cached ? ` (${cached} steps from podman's layer cache)` : ''}`;
  });
}

async function sizes(baseImage: string) {
  const [total, base] = [await imageSize(IMAGE), await imageSize(baseImage)];
  const history = (await must('podman', ['history', '--no-trunc', '--format', '{{.Size}}\t{{.CreatedBy}}', IMAGE])).stdout.trim().split('\n');
  say(`image size: ${mb(total)} in all, ${mb(base)} the base image (debootstrap + Node), ${mb(total - base)} above it`);
  say('layers (podman history, newest first):');
  for (const line of history) {
    const [size, createdBy] = line.split('\t');
    say(`  ${size!.padStart(10)}  ${createdBy!.replace(/\s+/g, ' ').replace(/^\/bin\/sh -c #\(nop\) /, '').slice(0, 110)}`);
  }
  await check('the image adds at most 220 MB to its Node base (≤ 450 MB on node:24-trixie-slim)', () => {
    expectThat(total - base <= 220e6, `${mb(total - base)} above the base`);
    return mb(total - base);
  });
  await check('the final stage has no compiler, no dev dependency, onnxruntime for linux-x64 only', async () => {
    const script = `const fs=require('fs');const bin='node_modules/onnxruntime-node/bin/napi-v6';
      const platforms=fs.readdirSync(bin).flatMap(os=>fs.readdirSync(bin+'/'+os).map(a=>os+'/'+a));
      const lock=require('./node_modules/.package-lock.json').packages;
      const dev=Object.keys(lock).filter(p=>lock[p].dev).concat(['typescript','vitest'].filter(p=>fs.existsSync('node_modules/'+p)));
      const tools=['gcc','g++','cc','make','python3'].filter(t=>(process.env.PATH||'').split(':').some(d=>fs.existsSync(d+'/'+t)));
      console.log(JSON.stringify({platforms,dev,tools}))`;
    const r = await must('podman', ['run', '--rm', '--runtime', 'runc', '--network', 'none', ...ulimits, '--health-interval', 'disable', '--entrypoint', 'node', IMAGE, '-e', script]);
    const found = JSON.parse(r.stdout) as { platforms: string[]; dev: string[]; tools: string[] };
    expectThat(found.platforms.join() === 'linux/x64', `onnxruntime binaries for ${found.platforms.join(', ')}`);
    expectThat(found.dev.length === 0, `dev dependencies: ${found.dev.join(', ')}`);
    expectThat(found.tools.length === 0, `build tools: ${found.tools.join(', ')}`);
    return `onnxruntime ${found.platforms.join()}`;
  });
}

export const ulimits = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

async function main(): Promise<number> {
  for (const tool of ['podman', 'runc', 'debootstrap']) {
    if ((await run('sh', ['-c', `command -v ${tool}`])).code !== 0) {
      say(`not ok - ${tool} is not installed (apt-get install podman runc debootstrap)`);
      return summary() || 1;
    }
  }
  say(`podman: ${(await must('podman', ['--version'])).stdout.trim()}`);
  const base = await ensureBaseImage(say);
  if (!(await build(base.image))) return summary();
  await sizes(base.image);
  await checkPdf(IMAGE, ulimits);

  // A models pack made by this checkout's CLI, imported through the image's entrypoint into the /models volume.
  const packs = join(out, 'packs');
  mkdirSync(packs);
  chmodSync(out, 0o755);
  chmodSync(packs, 0o755);
  await must(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'models', 'pack', 'tiny-marian-en-de', '-o', join(packs, 'models.tar')], {
    cwd: ROOT,
    env: { ...process.env, DRAGOMAN_MODELS_DIR: join(ROOT, 'test/fixtures/models') },
  });
  chmodSync(join(packs, 'models.tar'), 0o644);
  copyFileSync(join(ROOT, 'test/fixtures/models/tiny-marian-en-de/dev.jsonl'), join(out, 'dev.jsonl'));
  const reference = readFileSync(join(out, 'dev.jsonl'), 'utf8').trim().split('\n').slice(0, 3).map((l) => JSON.parse(l) as { src: string; beam4: string });
  await runServerChecks({ image: IMAGE, packs, reference, ulimits, runId: `dragoman-ct-${process.pid}` });
  await checkManifests(IMAGE, ulimits);
  // Our images older than a week go; newer ones stay as the next build's layer cache.
  await podman('image', 'prune', '-f', '--filter', `label=${LABEL}`, '--filter', 'until=168h');
  say(`podman commands and their output: ${join(out, 'podman.log')}`);
  log('done');
  return summary();
}

process.exitCode = (await main().catch((err: Error) => {
  say(`not ok - the container test stopped: ${err.message}`);
  return summary() || 1;
})) > 0 ? 1 : 0;
