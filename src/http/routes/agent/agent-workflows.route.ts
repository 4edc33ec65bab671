import type { FastifyInstance } from 'fastify';
import { findWorkflow, inputSchemaOf, type Workflow, WORKFLOWS } from '../../../domain/agent/workflows.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import type { AppServices } from '../../app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';

function summaryOf(workflow: Workflow): Record<string, unknown> {
  return {
    workflowId: workflow.id,
    version: workflow.version,
    versions: WORKFLOWS.filter((w) => w.id === workflow.id).map((w) => w.version).sort((a, b) => a - b),
    name: workflow.name,
    description: workflow.description,
    inputSchema: inputSchemaOf(workflow),
  };
}

/** One input of a workflow: text or a whole number, with its bounds or choices. */
const workflowFieldView = {
  type: 'object',
  required: ['type', 'description'],
  properties: {
    type: { type: 'string', enum: ['string', 'integer'] },
    description: { type: 'string' },
    enum: { type: 'array', items: { type: 'string' } },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    maxLength: { type: 'integer' },
  },
};

const workflowView = {
  type: 'object',
  required: ['workflowId', 'version', 'versions', 'name', 'description', 'inputSchema'],
  properties: {
    workflowId: { type: 'string' },
    version: { type: 'integer' },
    versions: { type: 'array', items: { type: 'integer' } },
    name: { type: 'string' },
    description: { type: 'string' },
    inputSchema: {
      type: 'object',
      description: 'JSON Schema of workflowInput; a missing required field is asked for by the run',
      required: ['type', 'additionalProperties', 'required', 'properties'],
      properties: {
        type: { const: 'object' },
        additionalProperties: { const: false },
        required: { type: 'array', items: { type: 'string' } },
        properties: { type: 'object', additionalProperties: workflowFieldView },
      },
    },
    graph: {
      type: 'object',
      description: 'One workflow only (not in the list)',
      required: ['nodes'],
      properties: {
        nodes: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'tool', 'label', 'dependsOn'],
            properties: { id: { type: 'string' }, tool: { type: 'string' }, label: { type: 'string' }, dependsOn: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    },
  },
};

/** The built-in workflows (rule 14), their versions, input schemas and graphs. */
export function registerAgentWorkflowRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);

  app.get('/api/v1/agent/workflows', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'The built-in workflows (latest version of each)',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Workflows', schema: envelope({ type: 'array', items: workflowView }) } },
      },
    },
    handler: async () => {
      const ids = [...new Set(WORKFLOWS.map((w) => w.id))];
      return { code: 200, data: ids.flatMap((id) => {
        const latest = findWorkflow(id);
        return latest ? [summaryOf(latest)] : [];
      }) };
    },
  });

  app.get('/api/v1/agent/workflows/:workflowId', {
    onRequest: auth,
    schema: { params: idParam('workflowId', 'Workflow id'), querystring: { type: 'object', properties: { version: { type: 'string', pattern: '^[0-9]{1,6}$' } } } },
    config: {
      docs: {
        summary: 'One workflow: input schema and graph (the latest version, or ?version=)',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The workflow', schema: envelope(workflowView) }, 404: errorResponse('No such workflow or version') },
      },
    },
    handler: async (request) => {
      const { workflowId } = request.params as { workflowId: string };
      const version = (request.query as { version?: string }).version;
      if (version !== undefined && !/^\d+$/.test(version)) throw invalidInput('version must be a whole number', 'version');
      const workflow = findWorkflow(workflowId, version === undefined ? undefined : Number(version));
      if (!workflow) throw new AppError('not_found', 'no such workflow (or version)');
      return { code: 200, data: { ...summaryOf(workflow), graph: { nodes: workflow.nodes.map((n) => ({ id: n.id, tool: n.tool, label: n.label, dependsOn: n.dependsOn })) } } };
    },
  });
}
