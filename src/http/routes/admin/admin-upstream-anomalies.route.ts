import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';

const anomalySchema = {
  type: 'object',
  required: ['id', 'at', 'provider', 'model', 'upstreamModel', 'protocol', 'reference', 'userId', 'field', 'kind', 'reported', 'billed'],
  properties: {
    id: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    provider: { type: ['string', 'null'], description: 'The configured provider that answered' },
    model: { type: 'string', description: 'Our public model id' },
    upstreamModel: { type: ['string', 'null'] },
    protocol: { type: 'string', description: '`openai`, `anthropic`, `embeddings` (the request’s protocol) or `media`' },
    reference: { type: 'string', description: 'The chat or embeddings request (`chat_…`, `emb_…`), or the media attempt' },
    userId: { type: ['string', 'null'] },
    field: { type: 'string', description: 'The usage count (`inputTokens`, `outputTokens`, `cachedInputTokens`, `cacheCreationTokens`, `cacheCreation1hTokens`, `webSearchRequests`), `cost`, or `upstreamId` for a callback' },
    kind: {
      type: 'string',
      enum: ['not_a_count', 'fractional', 'negative', 'above_bound', 'part_above_whole', 'cost_above_hold', 'foreign_job'],
      description:
        '`not_a_count`: not a finite number, our estimate was billed; `fractional`: rounded up; `negative`: billed as 0; `above_bound`: above the prompt estimate, max_tokens or the searches the request allowed, billed at the bound; `part_above_whole`: cache reads or writes above the prompt; `cost_above_hold`: the usage at the tier reported cost more than the hold, the hold was charged; `foreign_job`: a media callback named a job whose own request is not ours, not adopted',
    },
    reported: { type: 'string', description: 'What the upstream sent, as text' },
    billed: { type: ['integer', 'null'], description: 'What was billed instead: tokens, or micro-USD for `cost`; null for a callback' },
  },
};

/** Upstream answers not taken as sent (issue 29): the operator's view of providers that report usage or callbacks wrongly. */
export function registerAdminUpstreamAnomalyRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/admin/v1/upstream-anomalies', {
    onRequest: requireAdmin(services),
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { before: { type: 'string', maxLength: 100 }, limit: { type: 'string', pattern: '^[0-9]{1,4}$' }, provider: { type: 'string', maxLength: 200 } },
      },
    },
    config: {
      docs: {
        summary: 'Upstream usage reports corrected before billing, and media callbacks that named another job; newest first (cursor: the last id of the previous page)',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: {
            description: 'A page of anomalies',
            schema: { type: 'object', required: ['data', 'nextCursor'], properties: { data: { type: 'array', items: anomalySchema }, nextCursor: { type: ['string', 'null'] } } },
          },
        },
      },
    },
    handler: async (request) => {
      const query = request.query as { before?: string; limit?: string; provider?: string };
      const limit = Math.min(Math.max(Number(query.limit ?? 100), 1), 1000);
      const rows = await services.upstreamAnomalies.list({ limit, ...(query.before ? { before: query.before } : {}), ...(query.provider ? { provider: query.provider } : {}) });
      return {
        data: rows.map(({ at, ...row }) => ({ ...row, at: new Date(at).toISOString() })),
        nextCursor: rows.length === limit ? (rows.at(-1)?.id ?? null) : null,
      };
    },
  });
}
