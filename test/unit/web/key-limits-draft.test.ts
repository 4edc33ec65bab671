import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateLimitsChange } from '../../../src/domain/api-key-limits.ts';
import { limitsChangeOf } from '../../../src/http/api-key-limits.schema.ts';
import { checkDraft, draftOf, type LimitsDraft } from '../../../web/src/pages/keys/key-limits-draft.ts';

// Issue 21, item 15: the Keys page's limits form refuses what the server would refuse, in words and
// before sending, and sends exact micro-USD and a UTC expiry whatever the browser's time zone.

const NOW = Date.parse('2026-11-30T23:30:00Z');
const empty: LimitsDraft = { capUsd: '', period: 'total', expires: '', models: '', rpm: '', tpm: '', concurrency: '' };

test('a full draft becomes the body the server accepts, exact to the micro-dollar, the expiry read as UTC', () => {
  const checked = checkDraft({ capUsd: '12.345678', period: 'month', expires: '2026-12-01T02:30', models: 'a, b, a', rpm: '30', tpm: '250000', concurrency: '2' }, NOW);
  assert.ok(checked.ok);
  assert.deepEqual(checked.body, {
    spendCapMicroUsd: 12_345_678,
    spendCapPeriod: 'month',
    expiresAt: '2026-12-01T02:30:00.000Z',
    allowedModels: ['a', 'b'],
    requestsPerMinute: 30,
    tokensPerMinute: 250_000,
    concurrentGenerations: 2,
  });
  assert.doesNotThrow(() => validateLimitsChange(limitsChangeOf(checked.body), NOW));
  // Opened again, the form shows the same values: saving unchanged changes nothing.
  const limits = checked.body;
  assert.deepEqual(checkDraft(draftOf(limits), NOW), checked);
  assert.equal(draftOf({ ...limits, spendCapMicroUsd: 290_000 }).capUsd, '0.29');
});

test('an empty draft removes every limit; a $0 cap is a cap', () => {
  const cleared = checkDraft(empty, NOW);
  assert.ok(cleared.ok);
  assert.deepEqual(Object.values(cleared.body), [null, null, null, null, null, null, null]);
  const zero = checkDraft({ ...empty, capUsd: '0' }, NOW);
  assert.ok(zero.ok);
  assert.equal(zero.body.spendCapMicroUsd, 0);
});

test('what the server refuses is refused here, in words without field names', () => {
  const cases: Array<[Partial<LimitsDraft>, string, RegExp]> = [
    [{ capUsd: '-1' }, 'capUsd', /cannot be negative/],
    [{ capUsd: 'ten' }, 'capUsd', /in US dollars/],
    [{ capUsd: '1.0000001' }, 'capUsd', /in US dollars/],
    [{ rpm: '0' }, 'rpm', /whole number from 1/],
    [{ rpm: '1.5' }, 'rpm', /whole number from 1/],
    [{ concurrency: '-2' }, 'concurrency', /whole number from 1/],
    [{ tpm: '0' }, 'tpm', /whole number from 1/],
    [{ tpm: '2000000000' }, 'tpm', /1,000,000,000/],
    [{ expires: '2026-11-30T23:30' }, 'expires', /has passed/],
    [{ expires: '2026-11-30T23:29' }, 'expires', /has passed/],
    [{ models: Array.from({ length: 201 }, (_, i) => `m${i}`).join(',') }, 'models', /At most 200/],
  ];
  for (const [change, field, words] of cases) {
    const checked = checkDraft({ ...empty, ...change }, NOW);
    assert.equal(checked.ok, false, JSON.stringify(change));
    if (checked.ok) continue;
    const text = checked.problems[field as keyof typeof checked.problems] ?? '';
    assert.match(text, words, JSON.stringify(change));
    assert.doesNotMatch(text, /micro|limits\.|expiresAt|requestsPerMinute|tokensPerMinute|concurrentGenerations/);
  }
});
