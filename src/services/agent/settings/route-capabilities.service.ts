/**
 * Capabilities verified on each text route (GET /agent/models, rule 10): model names alone do not
 * establish that a route can call tools, read images or follow a JSON schema, so the gateway asks
 * every route with three tiny probes and records what it answered. A probe that is refused (4xx: the
 * upstream does not support the feature) records a failure; a transient one (5xx, rate limit,
 * time-out) records nothing new, and the last verdict stands. Probes are the operator's cost, not a
 * user's: they are sent to the provider directly, without a hold or a charge.
 */
import type { Logger } from 'pino';
import type { RouteTarget } from '../../../config/config.types.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import type { ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import type { ChatResponse } from '../../../domain/chat/chat-response.types.ts';
import type { AgentLibraryStore } from '../../../ports/agent-library-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import type { ChatRouter } from '../../chat/chat-router.ts';

export const CAPABILITIES = ['tools', 'image_input', 'structured_output'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface CapabilityCheck {
  ok: boolean;
  checkedAt: string;
  detail: string | null;
}

export interface RouteReport {
  provider: string;
  upstreamModel: string;
  capabilities: Partial<Record<Capability, CapabilityCheck>>;
}

/** `verified`: some route passed; `failed`: every route was checked and none passed; otherwise `unverified`. */
export type Verdict = 'verified' | 'failed' | 'unverified';

/** A 2×2 red PNG: small enough for any upstream, a real image for any decoder. */
const RED_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAE0lEQVQImWP4z8DwnwGM/zMwAAAf7gP9qS/A4gAAAABJRU5ErkJggg==';
const PROBE_TIMEOUT_MS = 30_000;
export const PROBE_TOOL = 'record_color';

export interface RouteCapabilitiesDeps {
  store: AgentLibraryStore;
  uow: UnitOfWork;
  router: ChatRouter;
  catalog: Catalog;
  logger: Logger;
  /** A verdict older than this is probed again. */
  maxAgeMs: number;
  now?: () => number;
}

export class RouteCapabilities {
  readonly #deps: RouteCapabilitiesDeps;
  /** Probes in flight per route, so concurrent runs wait for one probe instead of sending several. */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(deps: RouteCapabilitiesDeps) {
    this.#deps = deps;
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }

  routes(modelId: string): RouteTarget[] {
    return this.#deps.router.configuredRoutes(modelId);
  }

  /** What is known about each route of a text model (nothing is probed). */
  async report(modelId: string): Promise<RouteReport[]> {
    const routes = this.routes(modelId);
    const rows = await this.#rows(routes);
    return routes.map((route) => {
      const capabilities: RouteReport['capabilities'] = {};
      for (const row of rows) {
        if (row.provider !== route.provider || row.upstream_model !== route.model) continue;
        capabilities[row.capability as Capability] = { ok: row.ok === 1, checkedAt: new Date(Number(row.checked_at)).toISOString(), detail: row.detail };
      }
      return { provider: route.provider, upstreamModel: route.model, capabilities };
    });
  }

  async modelVerdict(modelId: string, capability: Capability): Promise<Verdict> {
    if (!this.#deps.catalog.chat(modelId)) return 'failed';
    return verdictOf(await this.report(modelId), capability);
  }

  /** Probes the model's routes that have no fresh verdict, then answers (the run engine, rule 10). */
  async ensure(modelId: string, capability: Capability): Promise<Verdict> {
    if (!this.#deps.catalog.chat(modelId)) return 'failed';
    const fresh = this.#now() - this.#deps.maxAgeMs;
    const reports = await this.report(modelId);
    await Promise.all(
      reports
        .filter((r) => {
          const check = r.capabilities[capability];
          return check === undefined || Date.parse(check.checkedAt) < fresh;
        })
        .map((r) => this.probeRoute({ provider: r.provider, model: r.upstreamModel })),
    );
    return verdictOf(await this.report(modelId), capability);
  }

  /**
   * Probes again the routes whose verdicts have aged (the maintenance job). Routes are probed first
   * when a run needs them (`ensure`) or an operator asks (`probeAll`), never merely because they are
   * configured: a gateway that never runs the agent sends its upstreams nothing.
   */
  async probeStale(): Promise<number> {
    const fresh = this.#now() - this.#deps.maxAgeMs;
    const stale = await this.#deps.store.listStaleRoutes(this.#deps.uow.direct, fresh);
    const configured = new Set(this.#deps.catalog.chatModels().flatMap((m) => this.routes(m.id).map((r) => `${r.provider}\u0000${r.model}`)));
    let probed = 0;
    for (const row of stale) {
      if (!configured.has(`${row.provider}\u0000${row.upstream_model}`)) continue;
      await this.probeRoute({ provider: row.provider, model: row.upstream_model });
      probed++;
    }
    return probed;
  }

  /** Probes every route of every visible text model (an operator's `agent verify-routes`). */
  async probeAll(): Promise<number> {
    const seen = new Set<string>();
    for (const model of this.#deps.catalog.chatModels()) {
      for (const route of this.routes(model.id)) {
        const key = `${route.provider}\u0000${route.model}`;
        if (seen.has(key)) continue;
        seen.add(key);
        await this.probeRoute(route);
      }
    }
    return seen.size;
  }

  /** Runs the three probes on one route and records their verdicts (one probe at a time per route). */
  probeRoute(route: RouteTarget): Promise<void> {
    const key = `${route.provider}\u0000${route.model}`;
    let running = this.#inFlight.get(key);
    if (!running) {
      running = this.#probe(route).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, running);
    }
    return running;
  }

  async #probe(route: RouteTarget): Promise<void> {
    const provider = this.#deps.router.provider(route.provider);
    for (const capability of CAPABILITIES) {
      let verdict: { ok: boolean; detail: string | null } | undefined;
      if (!provider) verdict = { ok: false, detail: `provider ${route.provider} cannot serve text models` };
      else {
        const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
        try {
          const result = await provider.send(probeRequest(capability, route.model), { upstreamModel: route.model }, signal);
          if (result.ok && result.kind === 'response') verdict = judge(capability, result.response);
          else if (result.ok) verdict = { ok: false, detail: 'the probe asked for one answer and got a stream' };
          else if (!result.error.retryable) verdict = { ok: false, detail: `refused: HTTP ${result.error.status} ${result.error.message}`.slice(0, 500) };
          else this.#deps.logger.info({ route, capability, status: result.error.status }, 'capability probe failed transiently; the last verdict stands');
        } catch (error) {
          this.#deps.logger.warn({ err: error, route, capability }, 'capability probe failed');
        }
      }
      if (verdict) await this.#record(route, capability, verdict.ok, verdict.detail);
    }
  }

  async #record(route: RouteTarget, capability: Capability, ok: boolean, detail: string | null): Promise<void> {
    const now = this.#now();
    await this.#deps.store.recordRouteCapability(this.#deps.uow.direct, { provider: route.provider, upstream_model: route.model, capability, ok: ok ? 1 : 0, detail, checked_at: now });
  }

  #rows(routes: RouteTarget[]) {
    return this.#deps.store.listRouteCapabilities(this.#deps.uow.direct, routes);
  }
}

function verdictOf(reports: RouteReport[], capability: Capability): Verdict {
  if (reports.some((r) => r.capabilities[capability]?.ok === true)) return 'verified';
  if (reports.length > 0 && reports.every((r) => r.capabilities[capability]?.ok === false)) return 'failed';
  return 'unverified';
}

function probeRequest(capability: Capability, model: string): ChatRequest {
  const base: ChatRequest = { model, system: [], messages: [], tools: [], stop: [], stream: false, maxOutputTokens: 64 };
  switch (capability) {
    case 'tools':
      return {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'text', text: `Call the ${PROBE_TOOL} tool with the color blue.` }] }],
        tools: [
          {
            type: 'function',
            name: PROBE_TOOL,
            description: 'Records a color.',
            parameters: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'], additionalProperties: false },
          },
        ],
        toolChoice: { type: 'tool', name: PROBE_TOOL },
      };
    case 'image_input':
      return {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is the main color of this image? Answer with one word.' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: RED_PNG } },
            ],
          },
        ],
      };
    case 'structured_output':
      return {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Name a color.' }] }],
        responseFormat: {
          type: 'json_schema',
          name: 'color',
          strict: true,
          schema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'], additionalProperties: false },
        },
      };
  }
}

function judge(capability: Capability, response: ChatResponse): { ok: boolean; detail: string | null } {
  const text = response.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  switch (capability) {
    case 'tools': {
      const call = response.content.find((b) => b.type === 'tool_call');
      if (call?.type !== 'tool_call') return { ok: false, detail: 'no tool call in the answer' };
      if (call.name !== PROBE_TOOL) return { ok: false, detail: `called ${call.name} instead of ${PROBE_TOOL}` };
      try {
        const args: unknown = JSON.parse(call.arguments || '{}');
        if (args === null || typeof args !== 'object' || Array.isArray(args)) return { ok: false, detail: 'the tool arguments are not a JSON object' };
      } catch {
        return { ok: false, detail: 'the tool arguments are not JSON' };
      }
      return { ok: true, detail: null };
    }
    case 'image_input':
      return text.trim() === '' ? { ok: false, detail: 'an empty answer to an image' } : { ok: true, detail: null };
    case 'structured_output':
      try {
        const value: unknown = JSON.parse(text);
        if (value !== null && typeof value === 'object' && typeof (value as { color?: unknown }).color === 'string') return { ok: true, detail: null };
        return { ok: false, detail: 'the answer does not follow the schema' };
      } catch {
        return { ok: false, detail: 'the answer is not JSON' };
      }
  }
}
