import { mediaEntryAtLoss, withoutLossFailovers } from '../../domain/routing/route-cost.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { TaskRow, TaskStore } from '../../ports/task-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { WriteBatcher } from '../../ports/write-batcher.port.ts';
import { assertInputUrlsPublic } from './input-urls.ts';
import { assertAllowedPort, assertPublicUrl, DEFAULT_WEBHOOK_PORTS } from '../../adapters/outbound/url-policy.ts';
import type { RouteTarget } from '../../config/config.types.ts';
import { requestHash } from '../../domain/canonical-json.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import { AppError, invalidInput, unavailableDependency } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { WorkQueue } from '../../ports/work-queue.port.ts';
import { newJob } from '../../domain/jobs/job-catalog.ts';
import type { RouteRefusal, RouteRequest } from '../../providers/media/media-provider.ts';
import type { EstimateService } from './estimate.service.ts';
import { type MediaRouteSource, pinRoutes } from './task-routes.ts';
import { IDEMPOTENCY_KEY } from '../../domain/idempotency-key.ts';

export interface CreateGenerationDeps {
  tasks: TaskStore;
  uow: UnitOfWork;
  /** The book the create's debit is written in. */
  ledger: LedgerBook;
  catalog: Catalog;
  estimates: EstimateService;
  queue: WorkQueue;
  /** The group commit: concurrent creates share one transaction (each still all-or-nothing). */
  writes: WriteBatcher;
  routes: MediaRouteSource;
  allowPrivateUrls: boolean;
  /** Ports a `webhook` URL may name (config.webhooks.ports); default 443 and 80. */
  webhookPorts?: readonly number[] | 'any';
  /** The gateway's own public base URL: its /files/ URLs pass the address policy (they are ours). */
  publicBaseUrl?: () => string;
  /** A route's pre-dispatch check (its provider's `refusal`): routes that refuse are dropped at create. */
  routeRefusal?: (route: RouteTarget, request: RouteRequest) => RouteRefusal | undefined;
  now?: () => number;
}

/** A route's pre-dispatch check (its provider's `refusal`), as create and the agent's dispatch use it. */
export type RouteRefusalCheck = NonNullable<CreateGenerationDeps['routeRefusal']>;

export interface CreatedTask {
  task: TaskRow;
  /** False when an Idempotency-Key replayed an earlier task (nothing was charged this time). */
  created: boolean;
}


/**
 * Validate, price (measuring user media), then in ONE transaction: debit, insert the task, enqueue its
 * first job. So a paid task is never lost and an unpaid one never runs. With an Idempotency-Key, the
 * same key and body return the first task without a second debit; another body is a 409.
 */
export async function createGeneration(deps: CreateGenerationDeps, userId: string, body: unknown, idempotencyKey?: string, apiKeyId: string | null = null): Promise<CreatedTask> {
  const now = deps.now?.() ?? Date.now();
  let hash: string | null = null;
  if (idempotencyKey !== undefined) {
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw invalidInput('Idempotency-Key must be 1 to 200 visible ASCII characters', 'Idempotency-Key');
    hash = requestHash(body);
    const earlier = await deps.tasks.findTaskByIdempotencyKey(deps.uow.direct, userId, idempotencyKey);
    if (earlier) return replay(earlier, hash);
  }

  const task = await prepareGeneration(deps, userId, body, now, { idempotencyKey: idempotencyKey ?? null, requestHash: hash, apiKeyId });
  try {
    // Refusable: the only AppError (insufficient balance) is raised by the guarded debit, before any write.
    await deps.writes.run(userId, (tx) => writePaidTask(tx, deps, task), true);
  } catch (error) {
    // Two requests with one Idempotency-Key raced: the loser's transaction (and debit) rolled back.
    if (idempotencyKey !== undefined && hash !== null && deps.tasks.isDuplicateTask(error)) {
      const winner = await deps.tasks.findTaskByIdempotencyKey(deps.uow.direct, userId, idempotencyKey);
      if (winner) return replay(winner, hash);
    }
    // The connection died around the commit: if the task is there, it was paid for, and that is a success.
    if (unavailableDependency(error) && (await committedInDoubt(deps, task.id))) return { task, created: true };
    throw error;
  }
  await deps.queue.wake(firstQueueOf(task));
  return { task, created: true };
}

/**
 * Validates and prices a generation request (measuring user media) and fixes its routes: the task row
 * as create will write it, nothing written yet. An agent run dispatches through here too, so its
 * generations cost exactly what the same request through the API costs.
 */
export async function prepareGeneration(
  deps: Pick<CreateGenerationDeps, 'tasks' | 'uow' | 'catalog' | 'estimates' | 'routes' | 'allowPrivateUrls' | 'publicBaseUrl' | 'routeRefusal' | 'webhookPorts'>,
  userId: string,
  body: unknown,
  now: number,
  extra: { idempotencyKey: string | null; requestHash: string | null; agentRunId?: string | null; apiKeyId?: string | null },
): Promise<TaskRow> {
  const priced = await deps.estimates.price(body, userId);
  const { model, input } = priced.request;
  // What is stored and later called is the parsed URL, the one the policy looked at.
  let webhook: string | undefined;
  if (priced.request.webhook !== undefined) {
    let parsed: URL;
    try {
      parsed = assertPublicUrl(priced.request.webhook, deps.allowPrivateUrls);
    } catch {
      throw invalidInput('webhook must be a public http or https URL', 'webhook');
    }
    try {
      assertAllowedPort(parsed, deps.webhookPorts ?? DEFAULT_WEBHOOK_PORTS);
    } catch (error) {
      throw invalidInput(`webhook: ${(error as Error).message}`, 'webhook');
    }
    webhook = parsed.href;
  }
  // The version that priced it: its family and type are the ones the cost was computed for.
  const info = priced.catalog.media(model);
  if (!info) throw invalidInput(`model ${JSON.stringify(model)} is not a media model`, 'model');
  const base = deps.publicBaseUrl?.().replace(/\/+$/u, '');
  assertInputUrlsPublic(input, { allowPrivate: deps.allowPrivateUrls, ...(base ? { ownFilesPrefix: `${base}/files/` } : {}) });
  const servable = servableRoutes(deps, await resolveRoutes(deps, userId, model, priced.catalog.taskReferences(model, input)), { model, family: info.family, input });
  // A failover never moves the task onto a route that costs more than this request pays (issue 32, item 6).
  const routes = withoutLossFailovers(servable, (route) => mediaEntryAtLoss(route, priced.quote));
  if (!routes[0]) throw new AppError('service_unavailable', `no provider serves ${model}`);
  return {
    id: newId('task', now),
    user_id: userId,
    model,
    family: info.family,
    type: info.type,
    input_json: JSON.stringify(input),
    measured_json: JSON.stringify(priced.measured),
    webhook_url: webhook ?? null,
    status: 'not_started',
    cost_micro: priced.quote.costMicro,
    price_tier: priced.quote.tierKey,
    price_unit: priced.quote.unit,
    price_units: priced.quote.units,
    // The order chosen now is the task's for good (failover after acceptance walks it); the targets are
    // kept with the upstream cost known now, which the attempt that succeeds records (issue 32, item 6).
    routes_json: JSON.stringify(routes.map(({ provider, model, cost }) => (cost ? { provider, model, cost } : { provider, model }))),
    files_json: null,
    output_json: null,
    error_message: null,
    refunded_micro: 0,
    idempotency_key: extra.idempotencyKey,
    request_hash: extra.requestHash,
    created_at: now,
    updated_at: now,
    started_at: null,
    finished_at: null,
    expires_at: null,
    agent_run_id: extra.agentRunId ?? null,
    api_key_id: extra.apiKeyId ?? null,
  };
}

/** What a paid task is written through: the book (its debit), the task store and the work queue (its first job). */
export type PaidTaskPorts = Pick<CreateGenerationDeps, 'ledger' | 'tasks' | 'queue'>;

/**
 * In the caller's transaction: the debit (insufficient_balance before any write when it does not
 * fit), the task row and its first job. Wake `firstQueueOf(task)` after the commit.
 */
export async function writePaidTask(tx: StoreTransaction, ports: PaidTaskPorts, task: TaskRow): Promise<void> {
  const { ledger, tasks, queue } = ports;
  await ledger.post(tx, { userId: task.user_id, kind: 'generation_debit', reference: task.id, amountMicro: -task.cost_micro, note: task.model, apiKeyId: task.api_key_id }, task.created_at);
  await tasks.insertTask(tx, task);
  await queue.enqueue(tx, newJob('task', { taskId: task.id, provider: firstQueueOf(task) }, task.created_at));
}

/** The queue of the task's first route (its provider). */
export function firstQueueOf(task: TaskRow): string {
  const routes = JSON.parse(task.routes_json) as RouteTarget[];
  const first = routes[0];
  if (!first) throw new Error(`task ${task.id} has no route`);
  return first.provider;
}

/** How long a create whose commit is in doubt waits for the database to tell whether it happened. */
const IN_DOUBT_WAIT_MS = [250, 500, 1_000, 2_000];

/**
 * Whether a task whose transaction lost its connection was committed after all (the commit reached
 * the server, its answer did not). Asks again while the database is away; false when it cannot tell,
 * and then the request answers 503 (its Idempotency-Key, if any, makes a retry safe).
 */
async function committedInDoubt(deps: Pick<CreateGenerationDeps, 'tasks' | 'uow'>, taskId: string): Promise<boolean> {
  for (const wait of IN_DOUBT_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return (await deps.tasks.findTask(deps.uow.direct, taskId)) !== undefined;
    } catch (error) {
      if (!unavailableDependency(error)) throw error;
    }
  }
  return false;
}

function replay(earlier: TaskRow, hash: string): CreatedTask {
  if (earlier.request_hash !== hash) throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request body');
  return { task: earlier, created: false };
}

/**
 * The routes able to serve this request: a route whose provider documents no way to do what the input
 * asks (an option its API lacks) is dropped before anything is charged. When every route refuses, the
 * request is refused with a 400 naming the field, so no one pays for a task that can only fail; when
 * the only refusals are of routes the operator has not finished configuring, with a 503.
 */
function servableRoutes(deps: Pick<CreateGenerationDeps, 'routeRefusal'>, routes: RouteTarget[], request: Omit<RouteRequest, 'upstreamModel'>): RouteTarget[] {
  const check = deps.routeRefusal;
  if (!check) return routes;
  let first: RouteRefusal | undefined;
  let firstOfRoute: RouteRefusal | undefined;
  const kept = routes.filter((route) => {
    const refusal = check(route, { ...request, upstreamModel: route.model });
    if (refusal?.scope === 'route') firstOfRoute ??= refusal;
    else first ??= refusal;
    return refusal === undefined;
  });
  if (kept.length === 0 && first) throw invalidInput(`input.${first.field}: ${first.message}`, `input.${first.field}`);
  // Only routes the operator has not finished configuring: not the client's doing.
  if (kept.length === 0 && firstOfRoute) throw new AppError('service_unavailable', `no provider serves ${request.model}: ${firstOfRoute.message}`);
  return kept;
}

async function resolveRoutes(deps: Pick<CreateGenerationDeps, 'tasks' | 'uow' | 'routes'>, userId: string, model: string, parentIds: string[]): Promise<RouteTarget[]> {
  // By priority, weighted within one, health-aware (issue 32), chosen once at create; pinning keeps that order.
  const routes = deps.routes.forNewTask(model);
  if (parentIds.length === 0) return routes;
  const parents = await deps.tasks.findParentTasks(deps.uow.direct, userId, parentIds);
  let provider: string | undefined;
  for (const id of parentIds) {
    const parent = parents.find((p) => p.id === id);
    if (!parent) throw invalidInput(`the referenced task ${id} was not found`, 'input');
    if (parent.status !== 'finished') throw invalidInput(`the referenced task ${id} is ${parent.status}, not finished`, 'input');
    const succeeded = (await deps.tasks.listAttempts(deps.uow.direct, id)).find((a) => a.state === 'succeeded');
    if (succeeded) provider ??= succeeded.provider;
  }
  return provider ? pinRoutes(routes, provider, model) : routes;
}
