/**
 * One trace per task across processes (issue 22, item 3). Gateways in their own processes export over
 * OTLP/HTTP, configured by the standard OTEL_* variables only, to a collector in this test: scale-out
 * with a separate API process and a separate worker process on PostgreSQL and Redis, exporting
 * protobuf (OTEL_EXPORTER_OTLP_PROTOCOL unset, the default), and embedded (one process on SQLite)
 * exporting JSON (http/json asked for): each encoding runs every assertion, at the cost of one run. A media task and an agent run each make one trace: the API's
 * request span, the worker's job spans (children of the request, through the trace context saved
 * with the job) and the upstream calls' spans under them, with the GenAI attributes and our cost;
 * so is a task that fails over to a second provider, and one whose unanswered submit is reconciled.
 * No prompt text and no API key is in any exported byte; resources tell the processes apart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChaosUpstreams, MEDIA_MODEL, startChaosUpstreams } from '../support/chaos/upstreams.ts';
import { ADMIN_TOKEN, type GatewayMode } from '../support/gateway.ts';
import { ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { type CollectedSpan, type OtlpCollector, startOtlpCollector } from '../support/otlp-collector.ts';
import { call, createSharedStores, type GatewayProcess, type SharedStores, spawnGateway } from '../support/processes.ts';
import { REQUIRE_SERVICES, serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';

/** The orchestrator a new user's agent runs with (the preferred one in src/domain/agent/agent-settings.ts). */
const ORCHESTRATOR = 'gpt-5.4-mini';
const MEDIA_PROMPT_WORDS = 'lighthouse-secret-prompt-words';
const AGENT_PROMPT_WORDS = 'otter-secret-agent-words';

interface Traced {
  collector: OtlpCollector;
  upstreams: ChaosUpstreams;
  orchestrator: ScriptedOrchestrator;
  stores: SharedStores;
  processes: GatewayProcess[];
  apiUrl: string;
  key: string;
  taskId: string;
  /** A task whose first provider refused the submit, finished by the second. */
  failoverTaskId: string;
  /** A task whose first submit went unanswered (an unknown outcome, reconciled). */
  reconciledTaskId: string;
  runId: string;
  /** What the run's model calls cost, as the run reports it. */
  runSettledMicro: number;
}

const SERVER = 2;
const CLIENT = 3;

/** What the processes send: OTEL_EXPORTER_OTLP_PROTOCOL's value, or undefined to leave it unset (protobuf). */
type Protocol = 'http/json' | undefined;

async function start(mode: GatewayMode, protocol: Protocol): Promise<Traced> {
  const collector = await startOtlpCollector();
  const upstreams = await startChaosUpstreams();
  // The agent's default orchestrator goes to a scripted OpenAI-style upstream (it answers the tool-calling probe too).
  const orchestrator = await ScriptedOrchestrator.start('openai');
  const providers = { ...upstreams.config.providers, orch: orchestrator.provider() };
  const routes = { ...upstreams.config.routes, [ORCHESTRATOR]: ['orch'] };
  const stores = await createSharedStores(mode, { ...upstreams.config, providers, routes, chat: { maxOutputTokens: 256 } });
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    ...(protocol ? { OTEL_EXPORTER_OTLP_PROTOCOL: protocol } : {}),
    OTEL_SERVICE_NAME: 'switchboard-trace-test',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=tracing-test',
    // Batches go out every 100 ms instead of 5 s: the test waits for spans, not for the default delay.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const processes: GatewayProcess[] = [];
  const api = await spawnGateway(stores, mode === 'scaleout' ? 'api' : 'all', otel);
  processes.push(api);
  if (mode === 'scaleout') processes.push(await spawnGateway(stores, 'worker', otel));
  const admin = async <T>(path: string, body: unknown): Promise<T> => (await call(api.url, ADMIN_TOKEN, 'POST', path, body)).body as T;
  const user = await admin<{ id: string }>('/admin/v1/users', { balanceCents: 10_000 });
  const { key } = await admin<{ key: string }>(`/admin/v1/users/${user.id}/api-keys`, { name: 'tracing' });

  const created = await call(api.url, key, 'POST', '/api/v1/generation/create', { model: MEDIA_MODEL, input: { prompt: `a ${MEDIA_PROMPT_WORDS} at dusk [ok]` } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const taskId = (created.body as { data: { taskId: string } }).data.taskId;
  // The primary answers this one's submit with a 500: the task fails over to the reserve provider.
  const failingOver = await call(api.url, key, 'POST', '/api/v1/generation/create', { model: MEDIA_MODEL, input: { prompt: `a ${MEDIA_PROMPT_WORDS} at dawn [p500]` } });
  assert.equal(failingOver.status, 200, JSON.stringify(failingOver.body));
  const failoverTaskId = (failingOver.body as { data: { taskId: string } }).data.taskId;
  // The primary never answers this one's submit: its outcome is unknown, so the worker asks (reconcile).
  const hanging = await call(api.url, key, 'POST', '/api/v1/generation/create', { model: MEDIA_MODEL, input: { prompt: `a ${MEDIA_PROMPT_WORDS} at night [hang]` } });
  assert.equal(hanging.status, 200, JSON.stringify(hanging.body));
  const reconciledTaskId = (hanging.body as { data: { taskId: string } }).data.taskId;

  const conversation = await call(api.url, key, 'POST', '/api/v1/agent/conversations', { title: 'traced' });
  assert.equal(conversation.status, 200, JSON.stringify(conversation.body));
  const conversationId = (conversation.body as { data: { conversationId: string } }).data.conversationId;
  orchestrator.plan(conversationId, { text: 'Otters hold hands while they sleep.', usage: { input: 20, output: 16 } });
  const sent = await call(api.url, key, 'POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
    content: [{ type: 'text', text: `tell me about an ${AGENT_PROMPT_WORDS}` }],
    clientMessageId: 'traced-1',
  });
  assert.ok(sent.status === 200 || sent.status === 202, JSON.stringify(sent.body));
  const runId = (sent.body as { data: { runId: string } }).data.runId;

  for (const id of [taskId, failoverTaskId, reconciledTaskId]) {
    await until(`task ${id} finished`, async () => {
      const status = ((await call(api.url, key, 'GET', `/api/v1/task/status/${id}`)).body as { data: { status: string } }).data.status;
      assert.notEqual(status, 'failed');
      return status === 'finished';
    });
  }
  let lastRun = '';
  let runSettledMicro = 0;
  await until(() => `run ${runId} at rest (${lastRun})`, async () => {
    const body = (await call(api.url, key, 'GET', `/api/v1/agent/runs/${runId}`)).body as { data: { status: string; costs: { settledMicroUsd: string } } };
    const status = body.data.status;
    runSettledMicro = Number(body.data.costs.settledMicroUsd);
    lastRun = JSON.stringify(body).slice(0, 1500);
    // Ended, or waiting for the user (the orchestrator may ask what to make): either way its job is done.
    return ['completed', 'failed', 'cancelled', 'waiting_for_clarification', 'waiting_for_model_approval', 'waiting_for_budget'].includes(status);
  });
  return { collector, upstreams, orchestrator, stores, processes, apiUrl: api.url, key, taskId, failoverTaskId, reconciledTaskId, runId, runSettledMicro };
}

async function until(what: string | (() => string), done: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(t: Traced | undefined): Promise<void> {
  if (!t) return;
  for (const p of t.processes) await p.stop();
  await t.stores.dispose();
  await t.upstreams.close();
  await t.orchestrator.close();
  await t.collector.close();
}

const roleOf = (span: CollectedSpan) => span.resource['switchboard.role'];

/** The trace of one task or run: its request span, its job spans and every span under them. */
async function traceOf(collector: OtlpCollector, requestRoute: string, jobKind: string, ref: string): Promise<{ request: CollectedSpan; jobs: CollectedSpan[]; all: CollectedSpan[] }> {
  const firstJob = await collector.waitFor(`job ${jobKind} ${ref}`, (s) => s.name === `job ${jobKind}` && s.attributes['switchboard.job.ref'] === ref);
  const request = await collector.waitFor(`${requestRoute} in trace ${firstJob.traceId}`, (s) => s.attributes['http.route'] === requestRoute && s.traceId === firstJob.traceId);
  const jobs = collector.spans().filter((s) => s.name === `job ${jobKind}` && s.attributes['switchboard.job.ref'] === ref);
  return { request, jobs, all: collector.spans().filter((s) => s.traceId === firstJob.traceId) };
}

function scenario(mode: GatewayMode, protocol: Protocol, skip: string | undefined): void {
  const workerRole = mode === 'scaleout' ? 'worker' : 'all';
  const apiRole = mode === 'scaleout' ? 'api' : 'all';
  const encoding = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
  describe(`tracing across processes [${mode}, ${protocol ?? 'protocol unset'}]`, { skip }, () => {
    let t: Traced | undefined;
    before(async () => {
      t = await start(mode, protocol);
    }, { timeout: 120_000 });
    after(() => stop(t));

    test('a media task is one trace: the create request, every run of its job, and the submit and poll calls under them', async () => {
      assert.ok(t);
      const submit = await t.collector.waitFor('media submit', (s) => s.name.startsWith('media submit') && s.attributes['switchboard.task.id'] === t?.taskId);
      const poll = await t.collector.waitFor('media poll', (s) => s.name.startsWith('media poll') && s.attributes['switchboard.task.id'] === t?.taskId);
      // After the upstream spans: the job spans around them end (and are exported) no earlier.
      await t.collector.waitFor('the job span of the poll', (s) => s.spanId === poll.parentSpanId);
      const { request, jobs, all } = await traceOf(t.collector, '/api/v1/generation/create', 'task', t.taskId);
      assert.equal(request.kind, SERVER);
      assert.equal(roleOf(request), apiRole);
      // Every span about this task, from either process, is in the request's trace: one trace per task.
      const aboutTask = t.collector.spans().filter((s) => s.attributes['switchboard.job.ref'] === t?.taskId || s.attributes['switchboard.task.id'] === t?.taskId);
      assert.deepEqual([...new Set(aboutTask.map((s) => s.traceId))], [request.traceId]);
      assert.ok(jobs.length >= 2, `a submit step and a poll step, got ${jobs.length} job spans`);
      for (const job of jobs) {
        assert.equal(roleOf(job), workerRole);
        // The worker's job span continues the context saved with the job: the request span is its parent.
        assert.equal(job.parentSpanId, request.spanId, 'the job span is a child of the request that enqueued it');
      }
      for (const upstream of [submit, poll]) {
        assert.equal(upstream.kind, CLIENT);
        assert.equal(roleOf(upstream), workerRole);
        assert.ok(jobs.some((j) => j.spanId === upstream.parentSpanId), `${upstream.name} runs inside a job span`);
        assert.equal(upstream.attributes['gen_ai.request.model'], MEDIA_MODEL);
        assert.equal(upstream.attributes['gen_ai.provider.name'], 'kie-main');
        assert.equal(upstream.attributes['switchboard.route.model'], 'z-image');
        assert.equal(typeof upstream.attributes['switchboard.cost_micro_usd'], 'number');
        assert.ok((upstream.attributes['switchboard.cost_micro_usd'] as number) > 0);
      }
      assert.equal(submit.attributes['switchboard.upstream.outcome'], 'accepted');
      assert.ok(all.every((s) => s.traceId === request.traceId));
    });

    test('a task that fails over to a second provider is still one trace, with a span per provider call', async () => {
      assert.ok(t);
      const id = t.failoverTaskId;
      const refused = await t.collector.waitFor('the refused submit', (s) => s.name.startsWith('media submit') && s.attributes['switchboard.task.id'] === id && s.attributes['gen_ai.provider.name'] === 'kie-main');
      const accepted = await t.collector.waitFor('the reserve submit', (s) => s.name.startsWith('media submit') && s.attributes['switchboard.task.id'] === id && s.attributes['gen_ai.provider.name'] === 'fal-reserve');
      await t.collector.waitFor('the reserve poll', (s) => s.name.startsWith('media poll') && s.attributes['switchboard.task.id'] === id && s.attributes['gen_ai.provider.name'] === 'fal-reserve');
      assert.equal(refused.attributes['switchboard.upstream.outcome'], 'failed');
      assert.equal(refused.attributes['switchboard.attempt.no'], 1);
      assert.equal(accepted.attributes['switchboard.upstream.outcome'], 'accepted');
      assert.equal(accepted.attributes['switchboard.attempt.no'], 2);
      assert.equal(accepted.attributes['switchboard.route.model'], 'fal-ai/z-image/turbo');
      const { request } = await traceOf(t.collector, '/api/v1/generation/create', 'task', id);
      const aboutTask = t.collector.spans().filter((s) => s.attributes['switchboard.job.ref'] === id || s.attributes['switchboard.task.id'] === id);
      assert.deepEqual([...new Set(aboutTask.map((s) => s.traceId))], [request.traceId]);
      assert.notEqual(request.traceId, (await traceOf(t.collector, '/api/v1/generation/create', 'task', t.taskId)).request.traceId, 'each task its own trace');
    });

    test('a submit whose outcome is unknown: the reconcile call is a span of the same trace', async () => {
      assert.ok(t);
      const id = t.reconciledTaskId;
      const unknown = await t.collector.waitFor('the unanswered submit', (s) => s.name.startsWith('media submit') && s.attributes['switchboard.task.id'] === id && s.attributes['gen_ai.provider.name'] === 'kie-main');
      const reconcile = await t.collector.waitFor('the reconcile', (s) => s.name.startsWith('media reconcile') && s.attributes['switchboard.task.id'] === id);
      assert.equal(unknown.attributes['switchboard.upstream.outcome'], 'unknown');
      assert.equal(reconcile.kind, CLIENT);
      assert.equal(reconcile.attributes['gen_ai.provider.name'], 'kie-main');
      assert.equal(typeof reconcile.attributes['switchboard.upstream.outcome'], 'string');
      const { request } = await traceOf(t.collector, '/api/v1/generation/create', 'task', id);
      assert.equal(reconcile.traceId, request.traceId);
      assert.equal(unknown.traceId, request.traceId);
    });

    test('an agent run is one trace: the message request, the run job and its model calls with usage and cost', async () => {
      assert.ok(t);
      const { request, jobs, all } = await traceOf(t.collector, '/api/v1/agent/conversations/:conversationId/messages', 'agent_run', t.runId);
      assert.equal(roleOf(request), apiRole);
      for (const job of jobs) {
        assert.equal(roleOf(job), workerRole);
        assert.equal(job.parentSpanId, request.spanId);
      }
      const model = await t.collector.waitFor('an agent model call with its usage', (s) => s.traceId === request.traceId && s.name.startsWith('chat ') && s.attributes['switchboard.cost_micro_usd'] !== undefined);
      assert.equal(model.kind, CLIENT);
      assert.equal(roleOf(model), workerRole);
      assert.ok(all.some((s) => s.spanId === model.parentSpanId), 'the model call belongs to a span of the run');
      assert.equal(model.attributes['gen_ai.request.model'], ORCHESTRATOR);
      assert.equal(model.attributes['gen_ai.provider.name'], 'orch');
      assert.equal(model.attributes['switchboard.route.model'], ORCHESTRATOR);
      // The scripted answer's usage, as billed.
      assert.equal(model.attributes['gen_ai.usage.input_tokens'], 20);
      assert.equal(model.attributes['gen_ai.usage.output_tokens'], 16);
      assert.ok((model.attributes['switchboard.cost_micro_usd'] as number) > 0);
      // The run's model calls' spans carry what the run was charged for them.
      const calls = t.collector.spans().filter((s) => s.traceId === request.traceId && s.name.startsWith('chat ') && s.kind === CLIENT);
      assert.equal(calls.reduce((sum, s) => sum + Number(s.attributes['switchboard.cost_micro_usd'] ?? 0), 0), t.runSettledMicro);
      // No span about the run is in another trace.
      const aboutRun = t.collector.spans().filter((s) => s.attributes['switchboard.job.ref'] === t?.runId);
      assert.deepEqual([...new Set(aboutRun.map((s) => s.traceId))], [request.traceId]);
    });

    test('no prompt text and no API key anywhere in what was exported; resources tell the processes apart', async () => {
      assert.ok(t);
      // Everything has ended: the processes flush at stop, so the payloads below are all there is.
      for (const p of t.processes) await p.stop();
      const exported = t.collector.payloads().join('\n');
      assert.ok(exported.length > 0);
      // Every export in the encoding asked for (protobuf when unset, the OpenTelemetry default).
      assert.deepEqual([...new Set(t.collector.encodings())], [encoding]);
      for (const secret of [MEDIA_PROMPT_WORDS, AGENT_PROMPT_WORDS, t.key, t.key.slice(-16)]) assert.ok(!exported.includes(secret), `${secret.slice(0, 8)}… was exported`);
      const resources = new Map(t.collector.spans().map((s) => [String(s.resource['service.instance.id']), s.resource]));
      for (const resource of resources.values()) {
        assert.equal(resource['service.name'], 'switchboard-trace-test');
        assert.equal(resource['telemetry.sdk.language'], 'nodejs');
        assert.equal(resource['deployment.environment.name'], 'tracing-test', 'OTEL_RESOURCE_ATTRIBUTES is read');
      }
      assert.deepEqual([...resources.values()].map((r) => r['switchboard.role']).sort(), mode === 'scaleout' ? ['api', 'worker'] : ['all']);
    });
  });
}

const skipScaleout = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
if (skipScaleout && REQUIRE_SERVICES) throw new Error(`${skipScaleout} and SWITCHBOARD_REQUIRE_SERVICES=1`);
scenario('scaleout', undefined, skipScaleout);
scenario('embedded', 'http/json', undefined);
