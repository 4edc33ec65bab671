import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { SHUTDOWN_BOUND_MS } from '../../../src/cli/serve.command.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

// Issue 22, item 1: the deployment files set only variables the configuration reads, run Node
// directly with package.json's own command (npx in between does not reliably pass SIGTERM on, so a
// rolling restart would cut requests), and give a SIGTERM'd process longer than its shutdown bound.

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
const emptyConfig = join(mkdtempSync(join(tmpdir(), 'sb-deploy-')), 'switchboard.yaml');
writeFileSync(emptyConfig, '{}\n');

/** npm's own settings, which Switchboard never reads (no deploy file needs them since none runs npx). */
const NOT_OURS = /^npm_config_/;

/** package.json's command for each Switchboard command a deploy file runs. */
const SCRIPT_FOR: Record<string, string> = { serve: 'start', migrate: 'migrate' };

/** The names loadConfig reads when given `env` (a proxy records every read). */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const proxy = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
  loadConfig(proxy, tmpdir());
  return read;
}

/** Compose's `${NAME:-default}` and `${NAME:?message}` as a deployment would fill them. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z_]+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_, name: string, fallback: string | undefined) => {
    if (fallback !== undefined) return fallback;
    return name === 'ADMIN_TOKEN' ? 'a'.repeat(40) : 'set-by-the-operator';
  });
}

function assertAllRead(where: string, env: Record<string, string>): void {
  const ours = Object.fromEntries(Object.entries(env).filter(([name]) => !NOT_OURS.test(name)));
  if (ours.SWITCHBOARD_CONFIG) ours.SWITCHBOARD_CONFIG = emptyConfig;
  const used = namesRead(ours);
  const unread = Object.keys(ours).filter((name) => !used.has(name));
  assert.deepEqual(unread, [], `${where} sets variables the configuration never reads: ${unread.join(', ')}`);
}

/**
 * `argv` runs `node` (the executable named `node`, wherever it is) with exactly the arguments of
 * package.json's script for its command, and the README shows that command line.
 */
function assertPackageCommand(where: string, argv: string[]): string {
  const [executable = '', ...args] = argv;
  assert.equal(executable.split('/').at(-1), 'node', `${where} runs ${executable}, not node itself`);
  const command = args.at(-1) ?? '';
  const script = scripts[SCRIPT_FOR[command] ?? ''];
  assert.ok(script, `${where} runs \`${command}\`, which no package.json script runs`);
  assert.equal(['node', ...args].join(' '), script, `${where} runs what \`npm run ${SCRIPT_FOR[command]}\` runs`);
  assert.ok(readme.includes(script), `${where} runs \`${script}\`, which the README does not show`);
  return command;
}

/** A compose duration (`45s`, `1m30s`, `500ms`) in ms. */
function composeDurationMs(value: string): number {
  const parts = [...value.matchAll(/(\d+)(ms|h|m|s)/g)];
  assert.equal(parts.map((p) => p[0]).join(''), value, `a compose duration: ${value}`);
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * (unit[u ?? ''] ?? Number.NaN), 0);
}

function assertOutlastsShutdown(where: string, ms: number): void {
  assert.ok(ms > SHUTDOWN_BOUND_MS, `${where} gives ${ms} ms before SIGKILL, not more than the shutdown bound (${SHUTDOWN_BOUND_MS} ms)`);
}

test('compose.yaml: every Switchboard service sets only read variables and runs a README command', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { build?: unknown; environment?: Record<string, string>; command?: string[]; stop_grace_period?: string }>;
  };
  const ours = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
  assert.deepEqual(ours.map(([name]) => name).sort(), ['api-1', 'api-2', 'migrate', 'worker-1', 'worker-2']);
  for (const [name, service] of ours) {
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
    assert.ok(env.DATABASE_URL && env.REDIS_URL && env.S3_ENDPOINT, `${name} runs scale-out`);
    assertAllRead(`compose service ${name}`, env);
    const command = assertPackageCommand(`compose service ${name}`, service.command ?? []);
    if (command === 'serve') assertOutlastsShutdown(`compose service ${name}'s stop_grace_period`, composeDurationMs(service.stop_grace_period ?? '10s'));
  }
  const roles = ours.map(([, s]) => s.environment?.ROLE).filter(Boolean);
  assert.deepEqual(roles.sort(), ['api', 'api', 'worker', 'worker']);
});

test('Dockerfile: its ENV is read, its Node is 24 and its CMD is npm start\'s command', () => {
  const dockerfile = read('Dockerfile');
  const env: Record<string, string> = {};
  for (const line of dockerfile.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [name, value = ''] = pair.split('=');
      env[name ?? ''] = value;
    }
  }
  assert.ok(Object.keys(env).length > 0);
  assertAllRead('Dockerfile', env);
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  assert.ok(cmd, 'a CMD in exec form');
  assert.match(dockerfile, /^FROM node:24[-\w.]*$/m, 'the image\'s own node is the Node 24 the project needs');
  assert.equal(assertPackageCommand('Dockerfile', JSON.parse(cmd) as string[]), 'serve');
});

test('docs and the Dockerfile: every `docker run --stop-timeout` outlasts the shutdown bound', () => {
  let seen = 0;
  for (const file of ['Dockerfile', 'docs/deploy.md']) {
    for (const [, seconds] of read(file).matchAll(/--stop-timeout[ =]([^\s`;,)]+)/g)) {
      seen += 1;
      assertOutlastsShutdown(`${file}: --stop-timeout ${seconds}`, Number(seconds) * 1000);
    }
  }
  assert.ok(seen > 0, 'the docs tell docker users the stop timeout');
});

test('systemd units: their environment and the example file are read; ExecStart is package.json\'s command with the project\'s Node; the stop timeout outlasts shutdown', () => {
  const example = Object.fromEntries(
    read('deploy/systemd/switchboard.env.example')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  for (const unit of ['switchboard-api@.service', 'switchboard-worker@.service', 'switchboard-migrate.service']) {
    const text = read(`deploy/systemd/${unit}`);
    assert.match(text, /^EnvironmentFile=\/etc\/switchboard\/switchboard\.env$/m, unit);
    const own: Record<string, string> = {};
    for (const line of text.split('\n').filter((l) => l.startsWith('Environment='))) {
      for (const pair of line.slice('Environment='.length).split(/\s+/)) {
        const [name, value = ''] = pair.split('=');
        own[name ?? ''] = value.replace('%i', '8080');
      }
    }
    assertAllRead(`deploy/systemd/${unit}`, { ...example, ...own });
    const exec = /^ExecStart=(.*)$/m.exec(text)?.[1];
    assert.ok(exec, unit);
    const argv = exec.split(/\s+/);
    // The machine's own node may be older than 24: the unit names the one npm installed with the code.
    const workdir = /^WorkingDirectory=(.*)$/m.exec(text)?.[1];
    assert.equal(argv[0], `${workdir}/node_modules/.bin/node`, `${unit} runs the project's Node`);
    const command = assertPackageCommand(unit, argv);
    if (command === 'serve') {
      const stop = /^TimeoutStopSec=(\d+)$/m.exec(text)?.[1];
      assert.ok(stop, `${unit} sets TimeoutStopSec in seconds (systemd's default 90 s may be lowered machine-wide)`);
      assertOutlastsShutdown(`${unit}: TimeoutStopSec`, Number(stop) * 1000);
    }
  }
});

test('systemd units: UMask=0077 and a 0700 state directory (the store holds the webhook signing secrets; issue 29, item 12)', () => {
  for (const unit of ['switchboard-api@.service', 'switchboard-worker@.service', 'switchboard-migrate.service']) {
    const text = read(`deploy/systemd/${unit}`);
    assert.match(text, /^UMask=0077$/m, unit);
    assert.match(text, /^StateDirectoryMode=0700$/m, unit);
  }
});
