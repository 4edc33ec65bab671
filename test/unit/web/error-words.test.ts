import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STATUS_AND_TYPE } from '../../../src/domain/errors.ts';
import { describeApiError, plainMessage } from '../../../web/src/api/error-words.ts';

// Issue 21, item 7: what the dashboard shows for an API error names fields by their label and money in
// dollars; no JSON path, HTTP verb, route or micro-USD reaches a person.

/** What a person must never read. */
function leaks(text: string): string[] {
  const found: string[] = [];
  if (/\b(?:GET|POST|PUT|PATCH|DELETE)\b/.test(text)) found.push('an HTTP verb');
  if (/\/(?:api|admin|agent)\//.test(text)) found.push('a route');
  if (/micro/i.test(text)) found.push('micro-USD');
  if (/[A-Za-z_]\w*\.[A-Za-z_]\w*/.test(text.replace(/https?:\/\/\S+/g, ''))) found.push('a JSON path');
  if (/\[\d+\]/.test(text)) found.push('an index');
  if (/\b[a-z]+[A-Z]\w*/.test(text)) found.push('a field name');
  return found;
}

/** Server messages as the API words them (the examples and the shapes around them). */
const SERVER_MESSAGES: Array<{ message: string; param?: string }> = [
  { message: 'input.urls[0] must be an https URL of a picture, got "ftp://x"', param: 'input.urls[0]' },
  { message: 'input.gptDescriptionPrompt is required in simple mode', param: 'input.gptDescriptionPrompt' },
  { message: 'body.amountCents must be <= 100000000', param: 'amountCents' },
  { message: 'Raise maxCostMicroUsd with PATCH /agent/runs/{runId}/budget' },
  { message: 'a storage plan is required: see GET /api/v1/agent/storage/plans' },
  { message: 'the next step needs 1500000 micro-USD; the limit leaves 250000 micro-USD', param: 'maxCostMicroUsd' },
  { message: 'add funds at http://127.0.0.1:8080/billing' },
  { message: 'no route for POST /api/v1/nope' },
  { message: '/input/prompt must be a string', param: '/input/prompt' },
];

test('every error code the API has has words, and none of them leaks a path, a verb, a route or micro-USD', () => {
  for (const [code, [status]] of Object.entries(STATUS_AND_TYPE)) {
    for (const { message, param } of SERVER_MESSAGES) {
      for (const context of [undefined, 'admin'] as const) {
        const shown = describeApiError({ code, status, message, param }, context);
        assert.ok(shown.length > 0, code);
        assert.deepEqual(leaks(shown), [], `${code} (${message}) → ${shown}`);
      }
    }
  }
  const offline = describeApiError({ code: 'network_error', status: 0, message: 'fetch failed' });
  assert.match(offline, /could not be reached/);
});

test('fields by their label, money in dollars', () => {
  assert.equal(describeApiError({ code: 'invalid_input', status: 400, message: 'input.gptDescriptionPrompt is required in simple mode', param: 'input.gptDescriptionPrompt' }), 'Song description is required in simple mode.');
  assert.equal(describeApiError({ code: 'invalid_input', status: 400, message: 'body.amountCents must be <= 100000000', param: 'amountCents' }), 'Amount must be <= $1,000,000.00.');
  assert.equal(plainMessage('Raise maxCostMicroUsd with PATCH /agent/runs/{runId}/budget'), 'Raise run limit.');
  assert.equal(plainMessage('the next step needs 1500000 micro-USD'), 'The next step needs $1.50.');
  assert.match(describeApiError({ code: 'invalid_input', status: 400, message: 'input.urls[0] must be an https URL', param: 'input.urls[0]' }), /^Reference files/);
});

test('an operator correcting a balance below zero is not told to add funds', () => {
  const shown = describeApiError({ code: 'insufficient_balance', status: 402, message: 'insufficient balance: add funds at http://x/billing' }, 'admin');
  assert.doesNotMatch(shown, /add funds/i);
  assert.match(describeApiError({ code: 'insufficient_balance', status: 402, message: 'insufficient balance' }), /Add funds/);
});

test('an unknown import source and a missing storage plan read differently (issue 21, item 12)', () => {
  const unknown = describeApiError({ code: 'source_not_found', status: 404, message: 'artifact art_x is not available (not yours, or its file expired)', param: 'artifactId' });
  const noPlan = describeApiError({ code: 'storage_plan_required', status: 402, message: 'saving files needs an active storage plan' });
  assert.match(unknown, /not found/);
  assert.doesNotMatch(unknown, /plan/i);
  assert.match(noPlan, /storage plan/);
  assert.notEqual(unknown, noPlan);
});
