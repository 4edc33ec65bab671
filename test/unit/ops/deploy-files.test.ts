import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config/load-config.ts';

// Issue 22, item 1: the deployment files set only variables the configuration reads, and run the
// commands the README shows.

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');
const emptyConfig = join(mkdtempSync(join(tmpdir(), 'sb-deploy-')), 'switchboard.yaml');
writeFileSync(emptyConfig, '{}\n');

/** npm's own settings, which the units pass to npx and Switchboard never reads. */
const NOT_OURS = /^npm_config_/;

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

function assertReadmeCommand(where: string, command: string): void {
  assert.ok(readme.includes(command), `${where} runs \`${command}\`, which the README does not show`);
}

test('compose.yaml: every Switchboard service sets only read variables and runs a README command', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, { environment?: Record<string, string>; command?: string[] }> };
  const ours = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'npx');
  assert.deepEqual(ours.map(([name]) => name).sort(), ['api-1', 'api-2', 'migrate', 'worker-1', 'worker-2']);
  for (const [name, service] of ours) {
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
    assert.ok(env.DATABASE_URL && env.REDIS_URL && env.S3_ENDPOINT, `${name} runs scale-out`);
    assertAllRead(`compose service ${name}`, env);
    assertReadmeCommand(`compose service ${name}`, (service.command ?? []).join(' '));
  }
  const roles = ours.map(([, s]) => s.environment?.ROLE).filter(Boolean);
  assert.deepEqual(roles.sort(), ['api', 'api', 'worker', 'worker']);
});

test('Dockerfile: its ENV is read and its CMD is a README command', () => {
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
  assertReadmeCommand('Dockerfile', (JSON.parse(cmd) as string[]).join(' '));
});

test('systemd units: their environment and the example file are read; ExecStart is a README command', () => {
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
    const exec = /^ExecStart=(\S+) (.*)$/m.exec(text);
    assert.ok(exec, unit);
    assertReadmeCommand(unit, `${(exec[1] ?? '').split('/').at(-1)} ${exec[2]}`);
  }
});
