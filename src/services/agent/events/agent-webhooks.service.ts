/**
 * Lifecycle webhook destinations (SPEC Events 5, AGENT.md): an HTTPS URL, the event types, a scope
 * (user, project or conversation) and a signing secret shown once. Deliveries use the same machinery
 * as completion webhooks (Standard Webhooks signatures, the retry schedule, the guarded client that
 * checks the resolved address at connect time); a 410 answer, or five days of failures, disables the
 * destination.
 */
import type { WebhookPolicy } from '../../../config/config.types.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/agent/agent-events.ts';
import { echo } from '../../../domain/echo.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { newWebhookSecret } from '../../../domain/webhook-secret.ts';
import type { AgentLibraryStore, AgentWebhookRow } from '../../../ports/agent-library-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { validateWebhookUrl } from '../../webhooks/webhook-url.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';

/** A destination that has failed for this long without one success is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;
const MAX_DESTINATIONS = 50;

export interface AgentWebhookView {
  webhookId: string;
  url: string;
  eventTypes: string[];
  scope: AgentWebhookRow['scope'];
  scopeId: string | null;
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
}

export class AgentWebhooksService {
  readonly #store: AgentLibraryStore;
  readonly #uow: UnitOfWork;
  readonly #allowPrivate: boolean;
  readonly #policy: WebhookPolicy;

  constructor(deps: { store: AgentLibraryStore; uow: UnitOfWork; allowPrivateUrls: boolean; webhooks?: WebhookPolicy }) {
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#allowPrivate = deps.allowPrivateUrls;
    this.#policy = deps.webhooks ?? { ports: [443, 80], allowHttp: false };
  }

  /** The secret is in this response only. */
  async create(caller: AgentCaller, body: unknown): Promise<AgentWebhookView & { secret: string }> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {url, eventTypes, scope, scopeId?}', 'body');
    const fields = body as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (!['url', 'eventTypes', 'scope', 'scopeId'].includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: url, eventTypes, scope, scopeId`, key.slice(0, 80));
    const url = this.#url(fields.url);
    const eventTypes = parseEventTypes(fields.eventTypes);
    const scope = fields.scope ?? 'user';
    if (scope !== 'user' && scope !== 'project' && scope !== 'conversation') throw invalidInput('scope must be user, project or conversation', 'scope');
    let scopeId: string | null = null;
    if (scope !== 'user') {
      if (typeof fields.scopeId !== 'string' || fields.scopeId === '') throw invalidInput(`scope ${scope} needs scopeId: the ${scope}'s id`, 'scopeId');
      scopeId = fields.scopeId;
      if (scope === 'conversation' && !(await this.#store.findConversation(this.#uow.direct, ownerOf(caller), scopeId))) throw invalidInput(`scopeId: ${echo(scopeId)} is not one of your conversations`, 'scopeId');
      if (scope === 'project' && !(await this.#store.findProject(this.#uow.direct, ownerOf(caller), scopeId))) throw invalidInput(`scopeId: ${echo(scopeId)} is not one of your projects`, 'scopeId');
    } else if (fields.scopeId !== undefined && fields.scopeId !== null) throw invalidInput('scope user takes no scopeId', 'scopeId');
    const existing = await this.#store.listAgentWebhooks(this.#uow.direct, ownerOf(caller));
    if (existing.length >= MAX_DESTINATIONS) throw invalidInput(`at most ${MAX_DESTINATIONS} webhook destinations; delete one first`, 'url');
    const now = Date.now();
    const row: AgentWebhookRow = {
      id: newId('awh', now),
      user_id: caller.userId,
      storefront: caller.storefront.id,
      url,
      event_types_json: JSON.stringify(eventTypes),
      scope,
      scope_id: scopeId,
      secret: newWebhookSecret(),
      created_at: now,
      revoked_at: null,
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
    };
    await this.#store.createAgentWebhook(this.#uow.direct, row);
    return { ...present(row), secret: row.secret };
  }

  async list(caller: AgentCaller): Promise<AgentWebhookView[]> {
    return (await this.#store.listAgentWebhooks(this.#uow.direct, ownerOf(caller))).map(present);
  }

  async revoke(caller: AgentCaller, id: string): Promise<void> {
    if (!(await this.#store.revokeAgentWebhook(this.#uow.direct, id, ownerOf(caller), Date.now()))) throw new AppError('not_found', 'webhook destination not found');
  }

  /** Signing secrets of a live destination (none once revoked or disabled: the delivery fails). */
  async signingSecrets(destinationId: string): Promise<string[]> {
    const row = await this.#store.findAgentWebhook(this.#uow.direct, destinationId);
    if (!row || row.revoked_at !== null || row.disabled_at !== null) return [];
    return [row.secret];
  }

  /** After each attempt to a destination: health, 410 Gone, five days of failures. */
  async recordAttempt(destinationId: string, outcome: 'delivered' | 'retry' | 'failed', statusCode: number | null, now: number): Promise<void> {
    if (outcome === 'delivered') return this.#store.markAgentWebhookHealthy(this.#uow.direct, destinationId);
    if (statusCode === 410) return this.#store.disableAgentWebhook(this.#uow.direct, destinationId, 'the receiver answered 410 Gone', now);
    const row = await this.#store.markAgentWebhookFailing(this.#uow.direct, destinationId, now);
    if (row?.failing_since !== null && row?.failing_since !== undefined && now - Number(row.failing_since) >= DISABLE_AFTER_FAILING_MS) {
      await this.#store.disableAgentWebhook(this.#uow.direct, destinationId, 'every delivery failed for 5 days', now);
    }
  }

  #url(value: unknown): string {
    return validateWebhookUrl(value, { allowPrivateUrls: this.#allowPrivate, policy: this.#policy });
  }
}

function parseEventTypes(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidInput(`eventTypes must be a non-empty list of event types (${WEBHOOK_EVENT_TYPES.join(', ')}) or ["*"]`, 'eventTypes');
  const out = new Set<string>();
  for (const [i, type] of value.entries()) {
    if (typeof type !== 'string' || (type !== '*' && !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type))) {
      throw invalidInput(`eventTypes[${i}] must be one of ${WEBHOOK_EVENT_TYPES.join(', ')} or *`, `eventTypes[${i}]`);
    }
    out.add(type);
  }
  return [...out];
}

function present(row: AgentWebhookRow): AgentWebhookView {
  return {
    webhookId: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types_json) as string[],
    scope: row.scope,
    scopeId: row.scope_id,
    status: row.disabled_at === null ? 'active' : 'disabled',
    disabledReason: row.disabled_reason,
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}
