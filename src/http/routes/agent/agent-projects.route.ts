import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import type { RouteDocs } from '../../request-context.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { createProjectBody, pageOf, pageQuery, projectAssetView, projectVersionView, projectView, updateProjectBody } from './agent-project-schemas.ts';

const projectParams = idParam('projectId', 'Project id (proj_…)');
type ProjectParams = { projectId: string };
type PageQuery = { cursor?: string; limit?: string };

/** Brand projects (SPEC "Agent": GET/POST /agent/projects, PATCH /agent/projects/{projectId}). */
export function registerAgentProjectRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const projects = services.agent.projects;
  const docs = (summary: string, responses: RouteDocs['responses'], description?: string) => ({ docs: { summary, tags: ['Agent'], auth: 'apiKey' as const, responses, ...(description ? { description } : {}) } });

  app.post('/api/v1/agent/projects', {
    onRequest: auth,
    schema: { body: createProjectBody },
    config: docs(
      'Create a brand project',
      { 200: { description: 'The project at version 1', schema: envelope(projectView) }, 400: errorResponse('A field is invalid (invalid_input, param names it)') },
      'Instructions, brand settings and model defaults that runs of the project\'s conversations start with. Model defaults are checked as the settings are (available, right modality).',
    ),
    handler: async (request) => ({ code: 200, data: await projects.create(agentCaller(request, services), request.body) }),
  });

  app.get('/api/v1/agent/projects', {
    onRequest: auth,
    schema: { querystring: pageQuery },
    config: docs('Your projects on this storefront, most recently updated first', { 200: { description: 'A page', schema: envelope(pageOf(projectView)) } }),
    handler: async (request) => ({ code: 200, data: await projects.list(agentCaller(request, services), request.query as PageQuery) }),
  });

  app.get('/api/v1/agent/projects/:projectId', {
    onRequest: auth,
    schema: { params: projectParams },
    config: docs('One project at its current version', { 200: { description: 'The project', schema: envelope(projectView) }, 404: errorResponse('Not found (or another user\'s)') }),
    handler: async (request) => ({ code: 200, data: await projects.get(agentCaller(request, services), (request.params as ProjectParams).projectId) }),
  });

  app.patch('/api/v1/agent/projects/:projectId', {
    onRequest: auth,
    schema: { params: projectParams, body: updateProjectBody },
    config: docs(
      'Update a project (optimistic versioning; a new immutable version)',
      {
        200: { description: 'The project at its new version', schema: envelope(projectView) },
        400: errorResponse('A field is invalid, or expectedVersion is missing'),
        404: errorResponse('Not found'),
        409: errorResponse('expectedVersion is stale (version_conflict)'),
      },
      'Fields you omit keep their values; inside brand and modelDefaults a field given replaces, null clears, omitted keeps. Runs that already started keep the version they started with.',
    ),
    handler: async (request) => ({ code: 200, data: await projects.update(agentCaller(request, services), (request.params as ProjectParams).projectId, request.body) }),
  });

  app.delete('/api/v1/agent/projects/:projectId', {
    onRequest: auth,
    schema: { params: projectParams },
    config: docs(
      'Delete a project',
      { 200: { description: 'Deleted' }, 404: errorResponse('Not found') },
      'The project no longer applies to new runs and new conversations cannot name it; its conversations and their history stay, and runs that started in it keep their version.',
    ),
    handler: async (request) => ({ code: 200, data: await projects.delete(agentCaller(request, services), (request.params as ProjectParams).projectId) }),
  });

  app.get('/api/v1/agent/projects/:projectId/versions', {
    onRequest: auth,
    schema: { params: projectParams, querystring: pageQuery },
    config: docs('The versions of a project, newest first (immutable)', { 200: { description: 'A page', schema: envelope(pageOf(projectVersionView)) }, 404: errorResponse('Not found') }),
    handler: async (request) => ({ code: 200, data: await projects.versions(agentCaller(request, services), (request.params as ProjectParams).projectId, request.query as PageQuery) }),
  });

  app.get('/api/v1/agent/projects/:projectId/versions/:version', {
    onRequest: auth,
    schema: {
      params: {
        type: 'object',
        required: ['projectId', 'version'],
        properties: { projectId: { type: 'string', minLength: 1, maxLength: 200 }, version: { type: 'string', pattern: '^[0-9]{1,9}$', description: 'A version number' } },
      },
    },
    config: docs('One version of a project', { 200: { description: 'The version', schema: envelope(projectVersionView) }, 404: errorResponse('Not found') }),
    handler: async (request) => {
      const params = request.params as ProjectParams & { version: string };
      return { code: 200, data: await projects.version(agentCaller(request, services), params.projectId, params.version) };
    },
  });

  app.get('/api/v1/agent/projects/:projectId/assets', {
    onRequest: auth,
    schema: {
      params: projectParams,
      querystring: { ...pageQuery, properties: { ...(pageQuery.properties as object), role: { type: 'string', maxLength: 40, description: 'Only assets of this role' } } },
    },
    config: docs('The files of a project, newest first', { 200: { description: 'A page', schema: envelope(pageOf(projectAssetView)) }, 404: errorResponse('Not found') }),
    handler: async (request) => ({ code: 200, data: await projects.assets(agentCaller(request, services), (request.params as ProjectParams).projectId, request.query as PageQuery & { role?: string }) }),
  });
}
