/**
 * Hostile `outputSchema`s of issue 17 (items 7 and 10), shared by
 * test/integration/hostile-input.schema.test.ts (the answers and memory) and bench/hostile-input.ts
 * (the event loop):
 * - the `$ref` fan-out (40 levels, 2.7 KB: 2^40 schemas to try when the run ends);
 * - `(a+)+c` against an answer of 40 a's (V8's backtracking: hours);
 * - `^(a|a)*c$`, which the pattern rule accepts, against an answer of 20,000 a's (exponential on a
 *   backtracking engine, linear on RE2);
 * - `format: email` against a 40 KB answer (the format's own expression is quadratic);
 * - a fan-out within the bounds (13 levels, 32,767 nodes) that every item of a 200-item extraction
 *   result tries in full before the branch that fits (the step budget stops it).
 * Before the fix the first two are accepted and their runs freeze the gateway when they end.
 */
import assert from 'node:assert/strict';
import type { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import { closedObject as obj, fanOutSchema } from '../hostile-schemas.ts';
import type { HostilePayload } from './measure.ts';

type Json = Record<string, unknown>;

interface SchemaCase {
  name: string;
  schema: Json;
  mode?: 'auto' | 'extract';
  /** The run's answers: its final text, then extraction results. */
  turns: string[];
  /** 400 (refused at submit, naming this pointer) or the run's end (`budget`: the check ran out of steps). */
  expect: { refusedAt: RegExp } | { ends: true; budget?: boolean };
}

/** Every item fails every path of the fan-out (2^13 leaves) before it fits the second branch. */
const costlyList = JSON.stringify({ list: Array.from({ length: 200 }, () => 1) });

const CASES: SchemaCase[] = [
  { name: '$ref fan-out, 40 levels', schema: fanOutSchema(40), turns: ['Done.'], expect: { refusedAt: /^outputSchema\/\$defs\/d\d+$/ } },
  { name: "(a+)+c against 40 a's", schema: obj({ summary: { type: 'string', pattern: '(a+)+c' } }), turns: ['a'.repeat(40)], expect: { refusedAt: /^outputSchema\/properties\/summary\/pattern$/ } },
  { name: "^(a|a)*c$ against 20,000 a's", schema: obj({ summary: { type: 'string', pattern: '^(a|a)*c$' } }), turns: ['a'.repeat(20_000), 'no', 'no'], expect: { ends: true } },
  { name: 'format email against 40 KB', schema: obj({ summary: { type: 'string', format: 'email' } }), turns: [`a@${'a.'.repeat(20_000)} `, 'no', 'no'], expect: { ends: true } },
  {
    name: '200 items against a fan-out within the bounds',
    schema: obj({ list: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/d0' }, { type: 'number' }] } } }, { $defs: fanOutSchema(13).$defs as Json }),
    mode: 'extract',
    turns: ['Done.', costlyList, costlyList],
    expect: { ends: true, budget: true },
  },
];

interface Envelope {
  data: Json;
  error?: { code: string; param?: string; message: string };
}

/**
 * The payloads for one API key of a gateway whose `gpt-5.4-mini` is the scripted orchestrator. Each
 * sends its message and, when accepted, waits for the run to end and checks that the structured result
 * was refused. A frozen gateway answers nothing: every call has a deadline, so a caller fails instead
 * of waiting for hours.
 */
export function schemaPayloads(url: string, key: string, orchestrator: ScriptedOrchestrator): HostilePayload[] {
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Envelope }> => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: (await res.json()) as Envelope };
  };
  return CASES.map((payload) => ({
    name: payload.name,
    async send() {
      const conversation = await api('POST', '/api/v1/agent/conversations', { title: payload.name });
      const conversationId = conversation.body.data.conversationId as string;
      orchestrator.plan(conversationId, ...payload.turns.map((text) => ({ text })));
      const res = await api('POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
        content: [{ type: 'text', text: 'go' }],
        outputSchema: payload.schema,
        ...(payload.mode ? { structuredOutputMode: payload.mode } : {}),
      });
      if ('refusedAt' in payload.expect) {
        assert.equal(res.status, 400, `${payload.name}: ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.equal(res.body.error?.code, 'invalid_output_schema');
        assert.match(String(res.body.error?.param), payload.expect.refusedAt, payload.name);
        return;
      }
      assert.equal(res.status, 200, `${payload.name}: ${JSON.stringify(res.body).slice(0, 300)}`);
      const runId = res.body.data.runId as string;
      const deadline = Date.now() + 60_000;
      let status = '';
      while (Date.now() < deadline) {
        status = (await api('GET', `/api/v1/agent/runs/${runId}`)).body.data.status as string;
        if (['completed', 'failed', 'cancelled'].includes(status)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(status, 'completed', payload.name);
      const result = (await api('GET', `/api/v1/agent/runs/${runId}/result`)).body.data as { structuredResult: unknown; extraction: { status: string; error: string | null } };
      assert.equal(result.structuredResult, null, payload.name);
      assert.equal(result.extraction.status, 'failed', payload.name);
      if (payload.expect.budget) assert.match(String(result.extraction.error), /checking the value stopped after \d+ steps/, payload.name);
    },
  }));
}
