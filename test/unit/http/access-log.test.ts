import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { AccessLog } from '../../../src/http/access-log.ts';

function capture(level = 'info') {
  const lines: string[] = [];
  const logger = pino(
    { level, base: { service: 'switchboard', pid: 4242 }, timestamp: () => ',"time":"2026-11-24T12:00:00.000Z"' },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

test('the access line is the line pino writes for the same fields, escaping included', () => {
  const ours = capture();
  const theirs = capture();
  const cases: Array<[string, string, string, number, number]> = [
    ['req_abc1', 'POST', '/api/v1/chat/completions', 200, 2.76],
    ['given-"id"', 'GET', '/files/a b/ü\\"x', 404, 0.04],
  ];
  for (const [id, method, url, status, ms] of cases) {
    new AccessLog(ours.logger).record(id, method, url, status, ms);
    theirs.logger.child({ requestId: id }).info({ method, url, status, ms: Math.round(ms * 10) / 10 }, 'request completed');
  }
  assert.deepEqual(ours.lines, theirs.lines);
  assert.deepEqual(JSON.parse(ours.lines[1] ?? '{}').url, '/files/a b/ü\\"x');
});

test('nothing is written when the level is above info', () => {
  const quiet = capture('warn');
  new AccessLog(quiet.logger).record('r', 'GET', '/', 200, 1);
  assert.deepEqual(quiet.lines, []);
});
