/**
 * Services reach the store only through its ports (docs/architecture.md, "The store behind ports"):
 * no file under src/services imports Kysely, writes SQL or imports src/adapters/db. The other
 * adapters a service may still name (metrics, the outbound URL policy, blob keys, media probing) are
 * few, and kept few: their import lines stay under a ceiling that a new one must argue to raise.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../../..');
const STORE_IMPORT = /from '(kysely|[^']*adapters\/db\/[^']*)'|\bsql`/;
const ADAPTER_IMPORT = /^(?:import|export)\b[^;]*from '[^']*\/adapters\/[^']*'/gm;
/** Import lines from src/services into src/adapters (32 when the store went behind ports). */
const ADAPTER_IMPORT_CEILING = 40;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const services = sourceFiles(join(ROOT, 'src/services')).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

test('no service reaches the database but through a store port', () => {
  const offending = services.filter((file) => STORE_IMPORT.test(file.text)).map((file) => file.path);
  assert.deepEqual(offending, [], 'these services import the database: give them a store port');
});

test('services name few adapters directly', () => {
  const lines = services.flatMap((file) => (file.text.match(ADAPTER_IMPORT) ?? []).map((line) => `${file.path}: ${line}`));
  assert.ok(lines.length > 0, 'the pattern finds the adapter imports that are there');
  assert.ok(lines.length <= ADAPTER_IMPORT_CEILING, `${lines.length} import lines from services into adapters:\n${lines.join('\n')}`);
});
