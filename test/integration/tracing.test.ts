/**
 * OpenTelemetry tracing (issue 22, item 3) against whole gateways in both modes, spans collected by the
 * SDK's in-memory exporter: a chat completion makes a request span and an upstream span with the
 * GenAI attributes (and no prompt text or key), and so do an embeddings request and an upstream token
 * count; a media create and its task run in the worker share one trace, carried in the job row.
 * What the OTEL_* variables select is test/unit/config/tracing-config.test.ts.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AnthropicCountTokensFake } from '../fakes/anthropic-count-tokens.fake.ts';
import { OtelTracer } from '../../src/adapters/tracing/otel-tracer.ts';
import { anthropicClient, expectedCost, openAiClient, prices, settledRow, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
// Claude Sonnet's token counts go to a fake of Anthropic's count endpoint.
const counter = await AnthropicCountTokensFake.start();
after(() => counter.close());
const base = fakes.config as { providers: Record<string, unknown>; routes: Record<string, unknown> };
const config = {
  ...fakes.config,
  providers: { ...base.providers, count: { type: 'anthropic', baseUrl: counter.baseUrl, apiKey: counter.apiKey, timeoutMs: 5000 } },
  routes: { ...base.routes, 'claude-sonnet-4-6': [{ provider: 'count', model: 'claude-upstream-sonnet' }] },
};

/** The exporter of the gateway started last (each mode's gateway gets its own tracer). */
let exporter = new InMemorySpanExporter();
const tracer = () => {
  exporter = new InMemorySpanExporter();
  return new OtelTracer({ exporter, serviceName: 'switchboard-test', recordContent: false });
};

/** Spans end as requests finish and settle, shortly after the answer: wait for the one wanted. */
async function spanNamed(name: string, where: (span: ReadableSpan) => boolean = () => true): Promise<ReadableSpan> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const span = exporter.getFinishedSpans().find((s) => s.name === name && where(s));
    if (span) return span;
    if (Date.now() > deadline) throw new Error(`no span ${name} among ${exporter.getFinishedSpans().map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEachMode(
  'tracing',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('a chat completion: a request span and an upstream span with the GenAI attributes, no prompt or key', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Paris.', model: 'gpt-upstream-mini-2026', usage: { input: 1000, output: 567 } });
      const prompt = 'Capital of France? secret-prompt-words';
      const completion = await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: prompt }], max_tokens: 600 });
      const cost = expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 1000, output: 567 });
      assert.equal((await settledRow(ctx.gw, completion.id)).cost_micro, cost);

      const request = await spanNamed('POST /api/v1/chat/completions');
      assert.equal(request.attributes['http.response.status_code'], 200);
      assert.equal(request.attributes['http.route'], '/api/v1/chat/completions');
      const upstream = await spanNamed('chat gpt-5.4-mini');
      assert.equal(upstream.attributes['gen_ai.request.model'], 'gpt-5.4-mini');
      assert.equal(upstream.attributes['gen_ai.provider.name'], 'oa');
      assert.equal(upstream.attributes['switchboard.route.model'], 'gpt-upstream-mini');
      assert.equal(upstream.attributes['gen_ai.usage.input_tokens'], 1000);
      assert.equal(upstream.attributes['gen_ai.usage.output_tokens'], 567);
      assert.equal(upstream.attributes['switchboard.cost_micro_usd'], cost);
      // The upstream call belongs to the request's trace.
      assert.equal(upstream.spanContext().traceId, request.spanContext().traceId);
      const everything = JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes));
      assert.ok(!everything.includes('secret-prompt-words'), 'no prompt text without SWITCHBOARD_TRACE_CONTENT=1');
      assert.ok(!everything.includes(key), 'no API key');
    });

    test('an embeddings request: an upstream span with the GenAI attributes, its tokens and cost, no input text', async () => {
      const { userId, key } = await ctx.gw.createUser(100);
      const input = 'embed these secret-embedding-words please';
      // No route configured: the built-in local provider answers, through the same upstream call.
      const answer = await openAiClient(ctx.gw, key).embeddings.create({ model: 'text-embedding-3-large', input });
      const row = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).where('protocol', '=', 'embeddings').executeTakeFirstOrThrow();
      const settled = await settledRow(ctx.gw, row.id);
      assert.equal(settled.status, 'succeeded');
      assert.ok(settled.cost_micro > 0);

      const request = await spanNamed('POST /api/v1/embeddings');
      const upstream = await spanNamed('embeddings text-embedding-3-large', (s) => s.spanContext().traceId === request.spanContext().traceId);
      assert.equal(upstream.attributes['gen_ai.operation.name'], 'embeddings');
      assert.equal(upstream.attributes['gen_ai.request.model'], 'text-embedding-3-large');
      assert.equal(upstream.attributes['gen_ai.embeddings.dimension.count'], answer.data[0]?.embedding.length);
      assert.equal(upstream.attributes['gen_ai.usage.input_tokens'], answer.usage.prompt_tokens);
      assert.equal(upstream.attributes['switchboard.cost_micro_usd'], settled.cost_micro);
      assert.equal(upstream.parentSpanContext?.spanId, request.spanContext().spanId);
      const everything = JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes));
      assert.ok(!everything.includes('secret-embedding-words'), 'no input text');
      assert.ok(!everything.includes(key), 'no API key');
    });

    test('a token count asked of the upstream: a span with the counted tokens, at no cost, no prompt text', async () => {
      const { key } = await ctx.gw.createUser(100);
      counter.enqueue({ usage: { input: 4242 } });
      const counted = await anthropicClient(ctx.gw, key).messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'count secret-count-words' }] });
      assert.equal(counted.input_tokens, 4242);
      const request = await spanNamed('POST /api/v1/messages/count_tokens');
      const upstream = await spanNamed('count_tokens claude-sonnet-4-6', (s) => s.spanContext().traceId === request.spanContext().traceId);
      assert.equal(upstream.attributes['gen_ai.request.model'], 'claude-sonnet-4-6');
      assert.equal(upstream.attributes['gen_ai.provider.name'], 'count');
      assert.equal(upstream.attributes['switchboard.route.model'], 'claude-upstream-sonnet');
      assert.equal(upstream.attributes['gen_ai.usage.input_tokens'], 4242);
      assert.equal(upstream.attributes['switchboard.cost_micro_usd'], 0);
      assert.ok(!JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes)).includes('secret-count-words'));
    });

    test('a media create and its task run in the worker share one trace, carried in the job', async () => {
      const { key } = await ctx.gw.createUser(100);
      const body = { model: 'nano-banana-2', input: { prompt: 'a lighthouse at dusk', size: '1:1', resolution: '1K' } };
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', body);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'finished', task.errorMessage ?? '');

      const request = await spanNamed('POST /api/v1/generation/create');
      const run = await spanNamed('job task', (s) => s.attributes['switchboard.job.ref'] === taskId);
      assert.equal(run.spanContext().traceId, request.spanContext().traceId);
    });
  },
  { configFile: config, tracer },
);
