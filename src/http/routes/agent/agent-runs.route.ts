import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { AppServices } from '../../app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { artifactView, budgetView, resultView, runView } from './agent-run-views.schemas.ts';
import { budgetBody, decisionBody } from './agent-schemas.ts';

const runParams = idParam('runId', 'Run id (run_…)');

export function registerAgentRunRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const runId = (request: { params: unknown }) => (request.params as { runId: string }).runId;
  const brief = (run: { id: string; status: string; wait_reason: string | null }) => ({ runId: run.id, status: run.status, waitReason: run.wait_reason });

  app.get('/api/v1/agent/runs/:runId', {
    onRequest: auth,
    schema: { params: runParams },
    config: {
      docs: {
        summary: 'A run: status, steps, costs, budget, pending actions and canSteer',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The run', schema: envelope(runView) }, 404: errorResponse('Not found (or another user\'s)') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.views.run(agentCaller(request, services), runId(request)) }),
  });

  app.get('/api/v1/agent/runs/:runId/result', {
    onRequest: auth,
    schema: { params: runParams },
    config: {
      docs: {
        summary: 'A run\'s result: main outcome, revision and artifacts (no model call)',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The result', schema: envelope(resultView) }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.views.result(agentCaller(request, services), runId(request)) }),
  });

  app.post('/api/v1/agent/runs/:runId/stop', {
    onRequest: auth,
    schema: { params: runParams },
    config: {
      docs: {
        summary: 'Stop a run',
        description:
          'A queued run, or one waiting for the user, is cancelled at once. A working run moves to `stopping`: its text request is cancelled and nothing more is dispatched; a provider operation already accepted may still finish and be charged, and an unknown outcome stays under reconciliation. The run is `cancelled` once nothing of it is open.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The run\'s status after the stop' }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: brief(await services.agent.controls.stop(agentCaller(request, services), runId(request))) }),
  });

  app.patch('/api/v1/agent/runs/:runId/budget', {
    onRequest: auth,
    schema: { params: runParams, body: budgetBody },
    config: {
      docs: {
        summary: 'Change a run\'s limit (optimistic versioning on the budget)',
        description: 'The limit covers settled charges and commitments; it cannot go below them. A run waiting for budget goes on after POST /resume.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The budget', schema: envelope(budgetView) },
          400: errorResponse('Below what is settled and committed'),
          404: errorResponse('Not found'),
          409: errorResponse('expectedVersion is stale (version_conflict), or the run has ended'),
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.controls.changeBudget(agentCaller(request, services), runId(request), request.body) }),
  });

  app.post('/api/v1/agent/runs/:runId/resume', {
    onRequest: auth,
    schema: { params: runParams },
    config: {
      docs: {
        summary: 'Resume a run that waits for budget',
        description: 'Completed operations are reused; only what could not start is dispatched.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Running again' }, 404: errorResponse('Not found'), 409: errorResponse('Not resumable, or what it needs still does not fit (run_not_resumable)') },
      },
    },
    handler: async (request) => ({ code: 200, data: brief(await services.agent.controls.resume(agentCaller(request, services), runId(request))) }),
  });

  app.post('/api/v1/agent/runs/:runId/decisions', {
    onRequest: auth,
    schema: {
      params: runParams,
      body: decisionBody,
      headers: { type: 'object', required: ['idempotency-key'], properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 200 } } },
    },
    config: {
      docs: {
        summary: 'Accept or decline a model-change proposal',
        description:
          'Name the pending action with its version and proposalHash: a stale or expired proposal authorizes nothing (409 proposal_stale). Declining continues on the selected model when it can do the work, otherwise the run fails with model_capability_unavailable. The same Idempotency-Key and body replay the first answer.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The decision and the run\'s status' },
          400: errorResponse('Invalid body or missing Idempotency-Key'),
          404: errorResponse('Not found'),
          409: errorResponse('proposal_stale, idempotency_key_reused'),
        },
      },
    },
    handler: async (request) => {
      const key = request.headers['idempotency-key'];
      if (Array.isArray(key)) throw new AppError('invalid_input', 'send one Idempotency-Key header', { param: 'Idempotency-Key' });
      return { code: 200, data: await services.agent.controls.decide(agentCaller(request, services), runId(request), key, request.body) };
    },
  });

  app.get('/api/v1/agent/artifacts', {
    onRequest: auth,
    schema: { querystring: { type: 'object', properties: { limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 100; default 20' } } } },
    config: {
      docs: {
        summary: 'Your newest artifacts that have not expired, newest first',
        description: 'For picking a file to import into a project instead of typing its id. Artifacts of deleted conversations are left out.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Artifacts', schema: envelope({ type: 'array', items: artifactView }) }, 400: errorResponse('limit is not 1 to 100') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.views.recentArtifacts(agentCaller(request, services), request.query as { limit?: string }) }),
  });

  app.get('/api/v1/agent/artifacts/:artifactId', {
    onRequest: auth,
    schema: { params: idParam('artifactId', 'Artifact id (art_…)') },
    config: {
      docs: {
        summary: 'An artifact with its source generation and output index',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The artifact', schema: envelope(artifactView) }, 404: errorResponse('Not found, another user\'s or storefront\'s, or expired') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.views.artifact(agentCaller(request, services), (request.params as { artifactId: string }).artifactId) }),
  });
}
