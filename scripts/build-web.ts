/**
 * Builds the dashboard (web/) into web/dist, which the gateway serves at `/`. Skips the build when the
 * sources have not changed since the last one (a fingerprint of every source file and of the versions
 * of the build tools is kept in web/dist/.fingerprint), so `npm start` (its `prestart`) costs nothing
 * after the first time. Also writes a gzip copy of each text asset, served to clients that accept it.
 *
 *   node scripts/build-web.ts [--force]
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WEB = join(ROOT, 'web');
const DIST = join(WEB, 'dist');
const FINGERPRINT = join(DIST, '.fingerprint');
const LOCK = join(WEB, '.build-lock');
const SOURCES = ['index.html', 'vite.config.ts', 'tsconfig.json', 'src', 'public'];
const TOOLS = ['vite', '@vitejs/plugin-react', 'react', 'react-dom'];
const COMPRESS = /\.(js|css|svg|json|txt|html)$/;

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return [];
  if (info.isFile()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => filesUnder(join(path, e.name))));
  return nested.flat().sort();
}

/** Changes when a source file, or a build tool's version, changes. */
export async function webFingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const source of SOURCES) {
    for (const file of await filesUnder(join(WEB, source))) {
      hash.update(relative(WEB, file)).update('\0').update(await readFile(file)).update('\0');
    }
  }
  for (const tool of TOOLS) {
    const manifest = await readFile(join(ROOT, 'node_modules', tool, 'package.json'), 'utf8').catch(() => '{}');
    hash.update(`${tool}@${(JSON.parse(manifest) as { version?: string }).version ?? '?'}\0`);
  }
  return hash.digest('hex');
}

export async function isWebBuildCurrent(): Promise<boolean> {
  if (!existsSync(join(DIST, 'index.html'))) return false;
  const stored = await readFile(FINGERPRINT, 'utf8').catch(() => '');
  return stored === (await webFingerprint());
}

/** One build at a time (two test files, or two starts, may ask together): a directory is the lock. */
async function withLock<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch {
      const lock = await stat(LOCK).catch(() => undefined);
      if (lock && Date.now() - lock.mtimeMs > 300_000) await rm(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another build holds ${LOCK}; remove it if no build is running`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

/** Builds when needed; returns whether it built. */
export async function buildWeb(options: { force?: boolean; log?: (line: string) => void } = {}): Promise<boolean> {
  const log = options.log ?? ((line: string) => console.log(line));
  if (!options.force && (await isWebBuildCurrent())) return false;
  return withLock(async () => {
    if (!options.force && (await isWebBuildCurrent())) return false;
    const started = performance.now();
    const fingerprint = await webFingerprint();
    const vite = await import('vite').catch(() => undefined);
    if (!vite) {
      // Installed without dev dependencies: the gateway still serves the API (and says the page is not built).
      log('vite is not installed (npm install without --omit=dev builds the dashboard); skipping the dashboard build');
      return false;
    }
    const { build } = vite;
    await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
    for (const file of await filesUnder(DIST)) {
      if (COMPRESS.test(file)) await writeFile(`${file}.gz`, await promisify(gzip)(await readFile(file), { level: 9 }));
    }
    await writeFile(FINGERPRINT, fingerprint);
    log(`dashboard built into ${relative(ROOT, DIST)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return true;
  });
}

if (import.meta.main) {
  try {
    const built = await buildWeb({ force: process.argv.includes('--force') });
    if (!built) console.log('dashboard is up to date (web/dist)');
  } catch (error) {
    console.error('building the dashboard failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
