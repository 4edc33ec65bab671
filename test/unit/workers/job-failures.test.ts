import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, DependencyUnavailableError } from '../../../src/domain/errors.ts';
import { failureFingerprint, isInfrastructureFault } from '../../../src/workers/job-failures.ts';

describe('job failures: infrastructure or the job', () => {
  const infrastructure: Array<[string, unknown]> = [
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['undici', Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })],
    ['PostgreSQL shutting down, as a cause', new Error('query failed', { cause: Object.assign(new Error('terminating connection'), { code: '57P01' }) })],
    ['a PostgreSQL connection exception (class 08)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
    ['SQLite busy', Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 })],
    ['Redis away', Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' })],
    ['S3 answering 503', Object.assign(new Error('SlowDown'), { $metadata: { httpStatusCode: 503 } })],
    ['our own 503', new AppError('service_unavailable', 'the database is away')],
    ['a store unreachable for now', new DependencyUnavailableError('database')],
    ['a store unreachable, wrapped', new Error('a batched item failed', { cause: new DependencyUnavailableError('storage') })],
  ];
  for (const [what, error] of infrastructure) it(`${what} does not count against the job`, () => assert.equal(isInfrastructureFault(error), true));

  const theJob: Array<[string, unknown]> = [
    ['a TypeError', new TypeError('cannot read properties of undefined')],
    ['a SyntaxError from JSON.parse', new SyntaxError('Unexpected token } in JSON')],
    ['a constraint violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['SQLite constraint', Object.assign(new Error('UNIQUE constraint failed'), { code: 'ERR_SQLITE_ERROR', errcode: 2067 })],
    ['an AppError of ours', new AppError('internal_error', 'x')],
    ['a thrown string', 'boom'],
  ];
  for (const [what, error] of theJob) it(`${what} counts`, () => assert.equal(isInfrastructureFault(error), false));

  it('the fingerprint keeps the class, code and message, with digits folded', () => {
    assert.equal(failureFingerprint(new TypeError('bad value at 12 after 340 ms')), 'TypeError: bad value at # after # ms');
    assert.equal(failureFingerprint(Object.assign(new Error('duplicate key'), { code: '23505' })), 'Error #: duplicate key');
    assert.equal(failureFingerprint('boom 7'), 'thrown string: boom #');
    assert.equal(failureFingerprint(new Error('x'.repeat(1_000))).length, 300);
  });
});
