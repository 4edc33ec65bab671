/**
 * JSON Schemas of the projects endpoints (bodies Fastify validates, and the OpenAPI document's
 * shapes). ProjectsService checks what a schema cannot: models, assets, versions.
 */
import { PROJECT_LIMITS } from '../../../domain/agent/project-content.ts';

type JsonSchema = Record<string, unknown>;

const modelId = (description: string): JsonSchema => ({ type: ['string', 'null'], maxLength: 200, description: `${description}; null: your setting applies` });

export const brandSchema: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    name: { type: ['string', 'null'], maxLength: PROJECT_LIMITS.brandName },
    voice: { type: ['string', 'null'], maxLength: PROJECT_LIMITS.voice, description: 'How the brand speaks (tone, words to use and avoid)' },
    colors: { type: ['array', 'null'], maxItems: PROJECT_LIMITS.colors, items: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' }, description: 'Brand colours as "#RRGGBB"' },
    logoAssetId: { type: ['string', 'null'], maxLength: PROJECT_LIMITS.id, description: 'An asset of this project (GET /agent/projects/{projectId}/assets)' },
  },
};

export const modelDefaultsSchema: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'Override your agent settings for runs in this project (rule 9); an explicit request in the chat still wins',
  properties: {
    orchestratorModelId: modelId('The text model that plans and calls tools'),
    imageModelId: modelId('Soft default for images'),
    videoModelId: modelId('Soft default for videos'),
    musicModelId: modelId('Soft default for music'),
  },
};

const contentProperties: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: PROJECT_LIMITS.name },
  instructions: { type: ['string', 'null'], maxLength: PROJECT_LIMITS.instructions, description: 'Read by the agent in every run of the project' },
  brand: brandSchema,
  modelDefaults: modelDefaultsSchema,
};

export const createProjectBody: JsonSchema = { type: 'object', additionalProperties: false, required: ['name'], properties: contentProperties };

export const updateProjectBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['expectedVersion'],
  properties: { expectedVersion: { type: 'integer', minimum: 1, description: 'The version you read; a stale one is 409 version_conflict' }, ...contentProperties },
};

/** An answer object: every property is always present (null where it has no value). */
const view = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', required: Object.keys(properties), properties });

const brandView = view({
  ...(brandSchema.properties as Record<string, JsonSchema>),
  colors: { type: 'array', items: { type: 'string' }, description: 'Brand colours as "#RRGGBB" (upper case), in the order given' },
});

const contentView: Record<string, JsonSchema> = {
  name: { type: 'string' },
  instructions: { type: 'string' },
  brand: brandView,
  modelDefaults: view(modelDefaultsSchema.properties as Record<string, JsonSchema>),
};

export const projectView: JsonSchema = view({
  projectId: { type: 'string' },
  version: { type: 'integer' },
  ...contentView,
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
});

export const projectVersionView: JsonSchema = view({ projectId: { type: 'string' }, version: { type: 'integer' }, ...contentView, createdAt: { type: 'string', format: 'date-time' } });

export const projectAssetView: JsonSchema = view({
  assetId: { type: 'string' },
  projectId: { type: 'string' },
  role: { type: 'string' },
  name: { type: 'string' },
  mime: { type: 'string' },
  sizeBytes: { type: 'integer' },
  sourceArtifactId: { type: ['string', 'null'] },
  createdAt: { type: 'string', format: 'date-time' },
});

export const pageQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 200, description: 'nextCursor of the previous page' },
    limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 100 (20)' },
  },
};

export const pageOf = (items: JsonSchema): JsonSchema => view({ items: { type: 'array', items }, nextCursor: { type: ['string', 'null'] } });
