/**
 * Services reach the store only through its ports (docs/architecture.md, "The store behind ports"):
 * no file under src/services imports Kysely, writes SQL or imports src/adapters/db. The files still
 * to move are listed here; the list may only shrink (a listed file that no longer needs to be here
 * fails the test too, so the list stays true).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../../..');
const STORE_IMPORT = /from '(kysely|[^']*adapters\/db\/[^']*)'|\bsql`/;

const NOT_YET_MOVED = new Set<string>([
  'src/services/app-services.ts',
  'src/services/webhooks/webhook-deliveries.ts',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('no service reaches the database but through a store port', () => {
  const offending = sourceFiles(join(ROOT, 'src/services'))
    .filter((path) => STORE_IMPORT.test(readFileSync(path, 'utf8')))
    .map((path) => relative(ROOT, path));
  assert.deepEqual(offending.filter((path) => !NOT_YET_MOVED.has(path)), [], 'these services import the database: give them a store port');
  assert.deepEqual([...NOT_YET_MOVED].filter((path) => !offending.includes(path)), [], 'these files no longer import the database: take them off NOT_YET_MOVED');
});
