import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load-config.ts';
import { ConfigError } from '../../../src/domain/config-error.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-route-priority-'));
let n = 0;
function withRoutes(routes: unknown): Record<string, string> {
  const path = join(dir, `config-${n++}.json`);
  writeFileSync(path, JSON.stringify({ providers: { a: { type: 'openai', baseUrl: 'https://a.example' } }, routes }));
  return { SWITCHBOARD_CONFIG: path };
}

function refused(routes: unknown, field: string): void {
  assert.throws(
    () => loadConfig(withRoutes(routes), dir),
    (error: unknown) => error instanceof ConfigError && error.field === field,
    `expected a ConfigError naming ${field}`,
  );
}

test('route entries take a priority and a weight; a plain list stays as it was', () => {
  const config = loadConfig(
    withRoutes({
      'gpt-x': [
        { provider: 'a', priority: 0, weight: 3 },
        { provider: 'local', model: 'echo', priority: 0, weight: 0.5 },
        { provider: 'a', model: 'gpt-x-mini', priority: 1 },
      ],
      plain: ['a', 'local'],
    }),
    dir,
  );
  assert.deepEqual(config.routes['gpt-x'], [
    { provider: 'a', model: 'gpt-x', priority: 0, weight: 3 },
    { provider: 'local', model: 'echo', priority: 0, weight: 0.5 },
    { provider: 'a', model: 'gpt-x-mini', priority: 1 },
  ]);
  assert.deepEqual(config.routes.plain, [
    { provider: 'a', model: 'plain' },
    { provider: 'local', model: 'plain' },
  ]);
});

test('a bad priority or weight, or an unknown key, is refused with the field named', () => {
  refused({ m: [{ provider: 'a', weight: 0 }] }, 'routes.m[0].weight');
  refused({ m: ['a', { provider: 'a', weight: -1 }] }, 'routes.m[1].weight');
  refused({ m: [{ provider: 'a', weight: 'heavy' }] }, 'routes.m[0].weight');
  refused({ m: [{ provider: 'a', priority: -1 }] }, 'routes.m[0].priority');
  refused({ m: [{ provider: 'a', priority: 1.5 }] }, 'routes.m[0].priority');
  refused({ m: [{ provider: 'a', priority: '0' }] }, 'routes.m[0].priority');
  refused({ m: [{ provider: 'a', wieght: 2 }] }, 'routes.m[0].wieght');
});
