import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { StoreFullWatch } from '../../../src/adapters/resilience/store-full-watch.ts';
import { isInfrastructureFault } from '../../../src/adapters/resilience/infrastructure-fault.ts';
import { toAppError } from '../../../src/http/error-handler.ts';

// Issue 29, item 11: a full disk under either store is answered 507 with Retry-After, never 500.

function postgresDiskFull(): pg.DatabaseError {
  const error = new pg.DatabaseError('could not extend file "base/16384/16385": No space left on device', 120, 'error');
  error.code = '53100';
  return error;
}

function sqliteFull(): Error {
  return Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13, errstr: 'database or disk is full' });
}

function noSpace(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

test('PostgreSQL 53100, SQLITE_FULL and ENOSPC (also as a cause) are answered 507 storage_full with Retry-After', () => {
  for (const raw of [postgresDiskFull(), sqliteFull(), noSpace(), new Error('copy failed', { cause: noSpace() })]) {
    const error = toAppError(raw);
    assert.equal(error.status, 507, raw.message);
    assert.equal(error.code, 'storage_full');
    assert.match(error.message, /store is full/);
    assert.ok((error.retryAfter ?? 0) > 0);
    assert.ok(isInfrastructureFault(raw), 'a job that meets it is retried without counting towards giving up');
  }
  assert.equal(toAppError(Object.assign(new Error('constraint'), { errcode: 2067 })).status, 500, 'other SQLite errors stay what they are');
});

test('on PostgreSQL readiness stays 503 for 30 s after the last "disk full", and the log says it once each way', async () => {
  const lines: string[] = [];
  let now = 1_000_000;
  const watch = new StoreFullWatch({ logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }), dataDir: undefined, remoteDatabase: true, now: () => now });
  await watch.check();
  for (let i = 0; i < 5; i++) watch.noticed();
  await assert.rejects(watch.check(), /disk full/);
  now += 29_000;
  await assert.rejects(watch.check(), /disk full/);
  now += 2_000;
  await watch.check();
  assert.equal(lines.filter((l) => l.includes('the store is full')).length, 1);
  assert.equal(lines.filter((l) => l.includes('the store has room again')).length, 1);
});
