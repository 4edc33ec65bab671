/**
 * Live upstream settings (issue 32): providers and their key pools, routes and model settings,
 * changed without a restart. Every write names the version it read (`expectedVersion`, optional),
 * is validated as the config file is, lands in the audit log with secrets masked, and is served by
 * every API and worker process within 5 s.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { UpstreamAuditRow } from '../../../ports/store-rows/upstreams.rows.ts';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { errorResponse, iso } from '../../schemas.ts';
import { clientGoneController } from '../../sse.ts';
import { callCounts, keySchema, keySubjectsOf, liveProviderFields, presentKey, presentLiveProvider, presentRoute, routeEntrySchema } from './upstream-presenters.ts';

const nameParam = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 63, description: 'Provider name' } } };
const keyParams = {
  type: 'object',
  required: ['name', 'keyId'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 63 }, keyId: { type: 'string', minLength: 1, maxLength: 64, description: '`file`, or the `upk_…` id' } },
};
const modelParam = { type: 'object', required: ['modelId'], properties: { modelId: { type: 'string', minLength: 1, maxLength: 200 } } };
const versionQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { expectedVersion: { type: 'string', pattern: '^[0-9]{1,15}$', description: 'Refuse with 409 unless the setting is at this version' } },
};

const keyInput = {
  type: 'object',
  properties: {
    secret: { type: 'string', description: 'A new key (write-only: shown back as a hint)' },
    id: { type: 'string', description: 'A key the provider has already: keeps its secret' },
    weight: { type: 'number', exclusiveMinimum: 0, description: 'Share of first picks among the provider\'s healthy keys (default 1)' },
    label: { type: ['string', 'null'], maxLength: 100 },
    enabled: { type: 'boolean' },
  },
};

const providerBody = {
  type: 'object',
  properties: {
    type: { type: 'string', description: 'API style: openai, anthropic, kie, fal, replicate, switchboard, google, local, …' },
    baseUrl: { type: 'string' },
    timeoutMs: { type: 'integer' },
    concurrency: { type: 'integer' },
    options: { type: 'object', additionalProperties: true, description: "The style's options, as in the config file; secret-looking values are sealed" },
    enabled: { type: 'boolean' },
    keys: { type: 'array', items: keyInput, description: 'The whole pool; absent keeps the keys the provider has' },
    expectedVersion: { type: 'integer', minimum: 0, description: '0: the provider must not be stored live yet' },
  },
};

const providerAnswer = {
  type: 'object',
  required: ['name', 'type', 'baseUrl', 'keys', 'source', 'version'],
  properties: { name: { type: 'string' }, type: { type: 'string' }, baseUrl: { type: ['string', 'null'] }, concurrency: { type: 'integer' }, ...liveProviderFields },
};

const routeAnswer = {
  type: 'object',
  required: ['modelId', 'source', 'version', 'entries'],
  properties: {
    modelId: { type: 'string' },
    source: { type: 'string', enum: ['file', 'live', 'default'], description: '`default`: no route of its own, served by `local`' },
    version: { type: ['integer', 'null'] },
    entries: { type: 'array', items: routeEntrySchema },
  },
};

const auditEntry = {
  type: 'object',
  required: ['id', 'at', 'actor', 'subjectKind', 'subject', 'action', 'before', 'after'],
  properties: {
    id: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    actor: { type: 'string', description: "An admin's user id, or `admin-token`" },
    subjectKind: { type: 'string', enum: ['provider', 'key', 'route', 'model', 'import', 'customer_group', 'customer_group_member'] },
    subject: { type: 'string' },
    action: { type: 'string', enum: ['put', 'patch', 'delete', 'import'] },
    before: { description: 'The setting before, secrets as hints; null when there was none' },
    after: { description: 'The setting after, secrets as hints; null when deleted' },
  },
};

function withoutKey<T extends Record<string, unknown>>(object: T, key: keyof T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
}

function actorOf(request: FastifyRequest): string {
  return request.auth?.userId ?? 'admin-token';
}

function versionOf(request: FastifyRequest): number | undefined {
  const v = (request.query as { expectedVersion?: string }).expectedVersion;
  return v === undefined ? undefined : Number(v);
}

function presentAudit(row: UpstreamAuditRow) {
  return {
    id: row.id,
    at: iso(row.at),
    actor: row.actor,
    subjectKind: row.subject_kind,
    subject: row.subject,
    action: row.action,
    before: row.before_json === null ? null : (JSON.parse(row.before_json) as unknown),
    after: row.after_json === null ? null : (JSON.parse(row.after_json) as unknown),
  };
}

const conflicts = { 409: errorResponse('`expectedVersion` is not the stored version (read again), or the change conflicts with another setting'), 400: errorResponse('A setting the config file would refuse; `param` names it') };

export function registerAdminUpstreamRoutes(app: FastifyInstance, services: AppServices): void {
  const admin = requireAdmin(services);
  const settings = services.upstreamSettings;
  const docs = (summary: string, responses: Record<string, { description: string; schema?: Record<string, unknown> }>) => ({ docs: { summary, tags: ['Admin upstreams'], auth: 'admin' as const, responses } });
  const providerOr404 = async (name: string) => {
    const provider = services.upstreams.provider(name);
    if (!provider) throw new AppError('not_found', `no provider ${name}`);
    const now = Date.now();
    return presentLiveProvider(services, provider, now, await callCounts(services, keySubjectsOf([provider]), now));
  };

  app.get('/admin/v1/providers/:name', {
    onRequest: admin,
    schema: { params: nameParam },
    config: docs('One provider as served now, its keys as hints with their live state', { 200: { description: 'The provider', schema: providerAnswer }, 404: errorResponse('No such provider') }),
    handler: async (request) => providerOr404((request.params as { name: string }).name),
  });

  app.put('/admin/v1/providers/:name', {
    onRequest: admin,
    schema: { params: nameParam, body: providerBody },
    config: docs('Create or replace a provider (served by every process within 5 s); secrets are write-only', { 200: { description: 'The provider as served now', schema: providerAnswer }, ...conflicts }),
    handler: async (request) => {
      const { name } = request.params as { name: string };
      await settings.putProvider(name, request.body, actorOf(request));
      return providerOr404(name);
    },
  });

  app.patch('/admin/v1/providers/:name', {
    onRequest: admin,
    schema: { params: nameParam, body: { ...providerBody, properties: withoutKey(providerBody.properties, 'keys') } },
    config: docs('Change some fields of a provider, such as `enabled`; a provider of the config file is copied into the live settings first', { 200: { description: 'The provider', schema: providerAnswer }, 404: errorResponse('No such provider'), ...conflicts }),
    handler: async (request) => {
      const { name } = request.params as { name: string };
      await settings.patchProvider(name, request.body, actorOf(request));
      return providerOr404(name);
    },
  });

  app.delete('/admin/v1/providers/:name', {
    onRequest: admin,
    schema: { params: nameParam, querystring: versionQuery },
    config: docs("Delete a live provider and its keys (the config file's of the same name is served again)", { 200: { description: 'Deleted', schema: { type: 'object', properties: { deleted: { type: 'boolean' } } } }, 404: errorResponse('No live provider of that name'), ...conflicts }),
    handler: async (request) => {
      await settings.deleteProvider((request.params as { name: string }).name, versionOf(request), actorOf(request));
      return { deleted: true };
    },
  });

  app.post('/admin/v1/providers/:name/keys', {
    onRequest: admin,
    schema: { params: nameParam, body: { ...keyInput, required: ['secret'], properties: { ...withoutKey(keyInput.properties, 'id'), expectedVersion: { type: 'integer', minimum: 0 } } } },
    config: docs('Add a key to the pool (to rotate: add the new key, then switch the old one off)', { 200: { description: 'The key, as a hint', schema: keySchema }, 404: errorResponse('No such provider'), 503: errorResponse('No SWITCHBOARD_SECRET_KEY to seal it with'), ...conflicts }),
    handler: async (request) => {
      const { name } = request.params as { name: string };
      const { id } = await settings.addKey(name, request.body, actorOf(request));
      return keyOf(name, id);
    },
  });

  const keyOf = async (name: string, keyId: string) => {
    const provider = services.upstreams.provider(name);
    const key = provider?.keys.find((k) => k.id === keyId);
    if (!provider || !key) throw new AppError('not_found', `provider ${name} has no key ${keyId}`);
    const now = Date.now();
    return presentKey(services, provider, key, now, await callCounts(services, keySubjectsOf([provider]), now));
  };

  app.patch('/admin/v1/providers/:name/keys/:keyId', {
    onRequest: admin,
    schema: { params: keyParams, body: { type: 'object', properties: { weight: keyInput.properties.weight, label: keyInput.properties.label, enabled: { type: 'boolean', description: 'true also clears a disabling by an auth or quota failure' }, expectedVersion: { type: 'integer', minimum: 0 } } } },
    config: docs("Change a key's weight, label or switch", { 200: { description: 'The key', schema: keySchema }, 404: errorResponse('No such provider or key'), ...conflicts }),
    handler: async (request) => {
      const { name, keyId } = request.params as { name: string; keyId: string };
      await settings.patchKey(name, keyId, request.body, actorOf(request));
      return keyOf(name, keyId);
    },
  });

  app.delete('/admin/v1/providers/:name/keys/:keyId', {
    onRequest: admin,
    schema: { params: keyParams, querystring: versionQuery },
    config: docs('Delete a key from the pool', { 200: { description: 'Deleted', schema: { type: 'object', properties: { deleted: { type: 'boolean' } } } }, 404: errorResponse('No such provider or key'), ...conflicts }),
    handler: async (request) => {
      const { name, keyId } = request.params as { name: string; keyId: string };
      await settings.deleteKey(name, keyId, versionOf(request), actorOf(request));
      return { deleted: true };
    },
  });

  app.post('/admin/v1/providers/:name/test', {
    onRequest: admin,
    schema: { params: nameParam },
    config: docs("Test every key of a provider with the cheapest real call its API offers (a model list, an account read): latency and the error in words. A passing key is healthy again (a key disabled by the upstream's refusal is re-enabled); a refused one is disabled as a real call would; the operator's switch is left as it is", {
      200: {
        description: 'One result per key',
        schema: {
          type: 'object',
          required: ['provider', 'data'],
          properties: {
            provider: { type: 'string' },
            data: {
              type: 'array',
              items: {
                type: 'object',
                required: ['keyId', 'hint', 'label', 'ok', 'latencyMs', 'call', 'error', 'state'],
                properties: {
                  keyId: { type: 'string' },
                  hint: { type: 'string' },
                  label: { type: ['string', 'null'] },
                  ok: { type: 'boolean' },
                  latencyMs: { type: 'integer' },
                  call: { type: 'string', description: 'What was called, such as `GET /v1/models`' },
                  error: { type: ['string', 'null'], description: 'What went wrong, in words' },
                  status: { type: 'integer', description: "The upstream's HTTP status, when it answered" },
                  state: { type: 'string', enum: ['healthy', 'cooling', 'disabled'], description: "The key's state after the test" },
                },
              },
            },
          },
        },
      },
      404: errorResponse('No such provider'),
    }),
    handler: async (request, reply) => {
      const { name } = request.params as { name: string };
      // A client that leaves stops the calls still to make.
      const controller = clientGoneController(reply.raw);
      const outcomes = await services.providerTests.test(name, controller.signal);
      if (!outcomes) throw new AppError('not_found', `no provider ${name}`);
      const provider = services.upstreams.provider(name);
      return {
        provider: name,
        data: outcomes.map((o) => {
          const key = provider?.keys.find((k) => k.id === o.keyId);
          return { keyId: o.keyId, hint: o.hint, label: o.label, ok: o.ok, latencyMs: Math.round(o.latencyMs), call: o.call, error: o.error ?? null, ...(o.status === undefined ? {} : { status: o.status }), state: provider && key ? services.routePlanner.keyState(provider, key) : 'healthy' };
        }),
      };
    },
  });

  app.get('/admin/v1/routes', {
    onRequest: admin,
    config: docs('Every model with a route of its own, with each entry\'s live state and share of traffic', { 200: { description: 'The routes', schema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: routeAnswer } } } } }),
    handler: async () => {
      const now = Date.now();
      return { data: await Promise.all(services.upstreams.routes().map((r) => presentRoute(services, r.modelId, now))) };
    },
  });

  app.get('/admin/v1/routes/:modelId', {
    onRequest: admin,
    schema: { params: modelParam },
    config: docs("A model's route as served now: entries by priority and weight, their state, recent error and share of the last hour's calls", { 200: { description: 'The route', schema: routeAnswer } }),
    handler: async (request) => presentRoute(services, (request.params as { modelId: string }).modelId),
  });

  app.put('/admin/v1/routes/:modelId', {
    onRequest: admin,
    schema: {
      params: modelParam,
      body: {
        type: 'object',
        required: ['entries'],
        properties: {
          entries: { type: 'array', maxItems: 64, description: '`[{provider, model?, priority?, weight?}]`, or provider names in order' },
          expectedVersion: { type: 'integer', minimum: 0 },
        },
      },
    },
    config: docs("Set a model's route (replaces the config file's for this model)", { 200: { description: 'The route as served now', schema: routeAnswer }, 404: errorResponse('No such model'), ...conflicts }),
    handler: async (request) => {
      const { modelId } = request.params as { modelId: string };
      await settings.putRoute(modelId, request.body, actorOf(request));
      return presentRoute(services, modelId);
    },
  });

  app.delete('/admin/v1/routes/:modelId', {
    onRequest: admin,
    schema: { params: modelParam, querystring: versionQuery },
    config: docs("Delete a model's live route (the config file's, or `local`, serves it again)", { 200: { description: 'The route as served now', schema: routeAnswer }, 404: errorResponse('No live route'), ...conflicts }),
    handler: async (request) => {
      const { modelId } = request.params as { modelId: string };
      await settings.deleteRoute(modelId, versionOf(request), actorOf(request));
      return presentRoute(services, modelId);
    },
  });

  const modelAnswer = {
    type: 'object',
    required: ['modelId', 'source', 'version', 'setting'],
    properties: {
      modelId: { type: 'string' },
      source: { type: 'string', enum: ['file', 'live', 'none'] },
      version: { type: ['integer', 'null'] },
      setting: { type: 'object', additionalProperties: true, description: 'hidden, name, description, pricing or the token prices, as in the config file' },
    },
  };
  const presentModel = (modelId: string) => {
    const setting = services.upstreams.modelSetting(modelId);
    return { modelId, source: setting?.source ?? 'none', version: setting?.version ?? null, setting: setting?.override ?? {} };
  };

  app.get('/admin/v1/models/:modelId', {
    onRequest: admin,
    schema: { params: modelParam },
    config: docs("A model's setting as served now", { 200: { description: 'The setting', schema: modelAnswer } }),
    handler: async (request) => presentModel((request.params as { modelId: string }).modelId),
  });

  app.put('/admin/v1/models/:modelId', {
    onRequest: admin,
    schema: {
      params: modelParam,
      body: {
        type: 'object',
        properties: {
          hidden: { type: 'boolean' },
          name: { type: 'string' },
          description: { type: 'string' },
          pricing: { type: 'array', items: { type: 'object' }, description: 'Media: the price tiers `[{key, price, isDefault?, dimensions?}]`' },
          inputPrice: { type: 'string', description: 'Text: USD per 1M input tokens' },
          outputPrice: { type: 'string' },
          cachedInputPrice: { type: 'string' },
          cacheWritePrice: { type: 'string' },
          cacheWrite1hPrice: { type: 'string' },
          webSearchPrice: { type: 'string' },
          expectedVersion: { type: 'integer', minimum: 0 },
        },
      },
    },
    config: docs("Set a model's visibility, name and prices (replaces the config file's setting of this model); requests created after it pay the new price, those created before pay their estimate", { 200: { description: 'The setting', schema: modelAnswer }, 404: errorResponse('No such model'), ...conflicts }),
    handler: async (request) => {
      const { modelId } = request.params as { modelId: string };
      await settings.putModel(modelId, request.body, actorOf(request));
      return presentModel(modelId);
    },
  });

  app.delete('/admin/v1/models/:modelId', {
    onRequest: admin,
    schema: { params: modelParam, querystring: versionQuery },
    config: docs("Delete a model's live setting (the config file's serves again)", { 200: { description: 'The setting as served now', schema: modelAnswer }, 404: errorResponse('No live setting'), ...conflicts }),
    handler: async (request) => {
      const { modelId } = request.params as { modelId: string };
      await settings.deleteModel(modelId, versionOf(request), actorOf(request));
      return presentModel(modelId);
    },
  });

  app.get('/admin/v1/upstreams/export', {
    onRequest: admin,
    config: docs('The live upstream settings as a file (the config file\'s shape), secrets out: keys as hints, secret options masked', {
      200: { description: 'The file', schema: { type: 'object', required: ['format', 'version', 'exportedAt', 'providers', 'routes', 'models'], properties: { format: { type: 'string' }, version: { type: 'integer' }, exportedAt: { type: 'string', format: 'date-time' }, providers: { type: 'object', additionalProperties: true }, routes: { type: 'object', additionalProperties: true }, models: { type: 'object', additionalProperties: true } } } },
    }),
    handler: async (_request, reply) => {
      const file = await settings.exportLive();
      void reply.header('content-disposition', `attachment; filename="switchboard-upstreams-${file.exportedAt.slice(0, 10)}.json"`);
      return file;
    },
  });

  app.post('/admin/v1/upstreams/import', {
    onRequest: admin,
    schema: { body: { type: 'object', description: 'A file from the export; keys give a `secret`, or the `id` of a key stored here (its secret is kept)' } },
    config: docs('Replace the whole live state with a file, in one change (what the file does not name is deleted)', {
      200: { description: 'What was imported; `missingKeys`: keys named by an id this gateway does not hold, left out (add them with their secret)', schema: { type: 'object', required: ['providers', 'routes', 'models', 'missingKeys'], properties: { providers: { type: 'integer' }, routes: { type: 'integer' }, models: { type: 'integer' }, missingKeys: { type: 'array', items: { type: 'string' } } } } },
      ...conflicts,
    }),
    handler: async (request) => settings.importLive(request.body, actorOf(request)),
  });

  app.get('/admin/v1/audit', {
    onRequest: admin,
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { before: { type: 'string', maxLength: 100, description: 'The last id of the previous page' }, limit: { type: 'string', pattern: '^[0-9]{1,4}$' } } },
    },
    config: docs('Changes to the live upstream settings, newest first: who, when, before and after (secrets as hints)', {
      200: { description: 'A page', schema: { type: 'object', required: ['data', 'nextCursor'], properties: { data: { type: 'array', items: auditEntry }, nextCursor: { type: ['string', 'null'] } } } },
    }),
    handler: async (request) => {
      const query = request.query as { before?: string; limit?: string };
      const limit = Math.min(Math.max(Number(query.limit ?? 100), 1), 500);
      const rows = await settings.auditPage(limit, query.before);
      return { data: rows.map(presentAudit), nextCursor: rows.length === limit ? (rows.at(-1)?.id ?? null) : null };
    },
  });
}
