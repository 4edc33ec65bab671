/**
 * The agent's documented answers are what the server sends: each read model's response, taken from a
 * real run (an image and a reply; a clarification question), is checked against the schema of its
 * operation in the OpenAPI document. The dashboard's types are generated from those schemas, so a
 * field marked `required` that the server can leave out, or a wrong type, fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type AgentClient, agentClient } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

type JsonSchema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: { 'application/json'?: { schema?: JsonSchema } } }> }>>;
}

const image = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'generate_image', arguments: args }] });
const ask = (question: string) => ({ toolCalls: [{ name: 'ask_clarification', arguments: { question } }] });

/** Checks answers against the 200 schema of `METHOD /path` in the document the gateway serves. */
async function schemaChecker(c: AgentClient): Promise<(operation: string, body: unknown) => void> {
  const document = (await c.call('GET', '/api/v1/openapi.json')).body as unknown as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return (operation, body) => {
    const [method = '', path = ''] = operation.split(' ');
    const schema = document.paths[path]?.[method.toLowerCase()]?.responses?.['200']?.content?.['application/json']?.schema;
    assert.ok(schema, `${operation} documents no JSON answer`);
    const validate = ajv.compile(schema);
    assert.ok(validate(body), `${operation}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2)}`);
  };
}

describeAgent(
  'the agent answers match their documented schemas',
  (ctx) => {
    test('conversations, messages, a completed run with an artifact, its result and budget', async () => {
      const c = await agentClient(ctx.gw);
      const check = await schemaChecker(c);
      const conversationId = await c.conversation({ title: 'Schemas' });
      ctx.orchestrator.plan(conversationId, image({ prompt: 'a red fox' }), { text: 'Here is your fox.' });
      const accepted = await c.send(conversationId, 'an image of a red fox');
      await c.waitFor(accepted.runId, ['completed']);

      const conversation = await c.call('GET', `/api/v1/agent/conversations/${conversationId}`);
      check('GET /api/v1/agent/conversations/{conversationId}', conversation.body);
      check('GET /api/v1/agent/conversations', (await c.call('GET', '/api/v1/agent/conversations')).body);
      const renamed = await c.call('PATCH', `/api/v1/agent/conversations/${conversationId}`, { title: 'Renamed', expectedVersion: conversation.body.data.version });
      assert.equal(renamed.status, 200);
      check('PATCH /api/v1/agent/conversations/{conversationId}', renamed.body);
      check('POST /api/v1/agent/conversations', (await c.call('POST', '/api/v1/agent/conversations', {})).body);
      const messages = await c.call('GET', `/api/v1/agent/conversations/${conversationId}/messages`);
      assert.ok((messages.body.data.items as unknown[]).length >= 2, 'the task and the reply');
      check('GET /api/v1/agent/conversations/{conversationId}/messages', messages.body);

      const run = await c.call('GET', `/api/v1/agent/runs/${accepted.runId}`);
      assert.ok((run.body.data.steps as unknown[]).length > 0);
      check('GET /api/v1/agent/runs/{runId}', run.body);
      const result = await c.call('GET', `/api/v1/agent/runs/${accepted.runId}/result`);
      const artifacts = result.body.data.artifacts as Array<{ artifactId: string }>;
      assert.equal(artifacts.length, 1);
      check('GET /api/v1/agent/runs/{runId}/result', result.body);
      check('GET /api/v1/agent/artifacts', (await c.call('GET', '/api/v1/agent/artifacts')).body);
      check('GET /api/v1/agent/artifacts/{artifactId}', (await c.call('GET', `/api/v1/agent/artifacts/${artifacts[0]?.artifactId}`)).body);
    });

    test('a run waiting for an answer: its pending question and its budget change', async () => {
      const c = await agentClient(ctx.gw);
      const check = await schemaChecker(c);
      const conversationId = await c.conversation({ title: 'Question' });
      ctx.orchestrator.plan(conversationId, ask('Which colour?'), { text: 'done' });
      const accepted = await c.send(conversationId, 'paint it');
      const waiting = await c.waitFor(accepted.runId, ['waiting_for_clarification']);
      assert.equal(waiting.pendingActions.length, 1);
      check('GET /api/v1/agent/runs/{runId}', (await c.call('GET', `/api/v1/agent/runs/${accepted.runId}`)).body);
      check('GET /api/v1/agent/runs/{runId}/result', (await c.call('GET', `/api/v1/agent/runs/${accepted.runId}/result`)).body);
      const budget = await c.call('PATCH', `/api/v1/agent/runs/${accepted.runId}/budget`, { maxCostMicroUsd: '2000000', expectedVersion: waiting.budget.version });
      assert.equal(budget.status, 200);
      check('PATCH /api/v1/agent/runs/{runId}/budget', budget.body);
    });
  },
  { protocols: ['openai'] },
);
