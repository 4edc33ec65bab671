/**
 * JSON Schemas of the agent endpoints: request bodies (Fastify validates them, and the OpenAPI
 * document shows the same objects) and the response shapes for the docs. The services check what a
 * schema cannot (model ids, versions, states) and answer in the same error format.
 */
import { AGENT_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '../../../domain/agent/agent-events.ts';
import { MAX_ATTACHMENT_BYTES } from '../../../services/agent/attachments/attachments.service.ts';
import { ATTACHMENT_TYPES } from '../../../services/agent/attachments/file-checks.ts';
import { ROUTING_POLICIES } from '../../../domain/agent/agent-settings.ts';
import { RUN_STATUSES } from '../../../domain/agent/run-status.ts';

type JsonSchema = Record<string, unknown>;

const microUsd = (description: string): JsonSchema => ({ type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$', description: `${description} (decimal integer string of micro-USD; 1000000 = USD 1)` });
const id = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 200, description });

export const settingsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    orchestratorModelId: { type: 'string', maxLength: 200, description: 'The text model that plans and calls tools' },
    fallbackModelIds: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 200 }, description: 'Tried in order after a confirmed failure of the orchestrator' },
    imageModelId: { type: 'string', maxLength: 200, description: 'Soft default for images' },
    videoModelId: { type: 'string', maxLength: 200, description: 'Soft default for videos' },
    musicModelId: { type: 'string', maxLength: 200, description: 'Soft default for music' },
    routingPolicy: { type: 'string', enum: [...ROUTING_POLICIES], description: 'defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved' },
    defaultMaxCostMicroUsd: microUsd('The run limit when a message gives none'),
  },
};

export const putSettingsBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['expectedVersion', 'settings'],
  properties: {
    expectedVersion: { type: 'integer', minimum: 0, description: '0 only before the first save; otherwise the version from GET' },
    settings: settingsSchema,
  },
};

export const settingsView: JsonSchema = {
  type: 'object',
  required: ['version', 'settings'],
  properties: { version: { type: 'integer' }, settings: settingsSchema, updatedAt: { type: ['string', 'null'], format: 'date-time' } },
};

export const createConversationBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string', maxLength: 200 },
    projectId: id('A brand project'),
    profileId: id('An assistant profile (GET /agent/profiles)'),
    defaultWorkflowId: id('A workflow'),
    settings: settingsSchema,
    mode: { type: 'string', enum: ['auto', 'manual'], description: 'manual pins selectedModelId' },
    selectedModelId: { type: 'string', maxLength: 200, description: 'Manual mode: the model that makes the result (a text model drives the run; a media model makes its media)' },
  },
};

export const renameConversationBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'expectedVersion'],
  properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, expectedVersion: { type: 'integer', minimum: 1 } },
};


const textBlock: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string', maxLength: 100_000 } },
};

const attachmentBlock: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'attachmentId'],
  properties: {
    type: { const: 'attachment' },
    attachmentId: { type: 'string', maxLength: 200 },
    usageIntent: { type: 'string', enum: ['auto', 'analyze', 'reference', 'both'] },
    maskFor: { type: 'object', additionalProperties: false, required: ['type', 'id'], properties: { type: { type: 'string', enum: ['attachment', 'artifact'] }, id: { type: 'string', maxLength: 200 } } },
  },
};

export const messageBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['content'],
  properties: {
    clientMessageId: { type: 'string', minLength: 1, maxLength: 200, description: 'Idempotency key: the same id and body return the first response; another body is 409' },
    content: { type: 'array', minItems: 1, maxItems: 50, items: { anyOf: [textBlock, attachmentBlock] } },
    maxCostMicroUsd: microUsd('The run limit: settled charges plus commitments'),
    deliveryMode: { type: 'string', enum: ['followup', 'steer'], description: 'While a run is active: queue a follow-up (at most 20), or steer the active run' },
    replyToRunId: id('A clarification reply: the run that asked'),
    questionId: id('A clarification reply: the pending question'),
    workflowId: id('Not available yet'),
    workflowVersion: { anyOf: [{ type: 'string' }, { type: 'integer' }], description: 'Not available yet' },
    workflowInput: { type: 'object', description: 'Not available yet' },
    outputSchema: { description: 'A closed JSON Schema (the subset of docs/agent.md "Structured output") for the run\'s structuredResult; refused with 400 invalid_output_schema and a JSON pointer before any charge' },
    structuredOutputMode: { type: 'string', enum: ['auto', 'extract'], description: 'auto (default): known fields filled without a model call when the schema asks only for them, else extracted; extract: always a billed extraction call' },
  },
};

export const messageAccepted: JsonSchema = {
  type: 'object',
  required: ['conversationId', 'messageId', 'runId', 'status'],
  properties: {
    conversationId: { type: 'string' },
    messageId: { type: 'string' },
    runId: { type: 'string' },
    status: { type: 'string', enum: [...RUN_STATUSES] },
    queuePosition: { type: 'integer', description: 'A queued follow-up: 1 starts next' },
  },
};

export const budgetBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['maxCostMicroUsd', 'expectedVersion'],
  properties: { maxCostMicroUsd: microUsd('The new run limit, at least what is settled and committed'), expectedVersion: { type: 'integer', minimum: 1, description: 'budget.version from the run view' } },
};


export const decisionBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['pendingActionId', 'version', 'proposalHash', 'input'],
  properties: {
    pendingActionId: id('The pending decision'),
    version: { type: 'integer', description: 'Its version' },
    proposalHash: { type: 'string', maxLength: 200, description: 'Its proposalHash: a stale proposal authorizes nothing' },
    input: { type: 'object', additionalProperties: false, required: ['accept'], properties: { accept: { type: 'boolean' } } },
  },
};




export const eventSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'sequence', 'type', 'conversationId', 'createdAt', 'data'],
  properties: {
    id: { type: 'string', description: 'evt_…: also the webhook-id of its webhook deliveries' },
    sequence: { type: 'integer', description: 'Gap-free within the conversation; the SSE id' },
    type: { type: 'string', enum: [...AGENT_EVENT_TYPES] },
    conversationId: { type: 'string' },
    runId: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    data: { type: 'object' },
  },
};

export const webhookBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'eventTypes'],
  properties: {
    url: { type: 'string', maxLength: 2048, description: 'HTTPS; the resolved address must be public' },
    eventTypes: { type: 'array', minItems: 1, items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, '*'] } },
    scope: { type: 'string', enum: ['user', 'project', 'conversation'], description: 'Default user' },
    scopeId: { type: 'string', maxLength: 200, description: 'The project or conversation of the scope' },
  },
};

export const webhookView: JsonSchema = {
  type: 'object',
  properties: {
    webhookId: { type: 'string' },
    url: { type: 'string' },
    eventTypes: { type: 'array', items: { type: 'string' } },
    scope: { type: 'string' },
    scopeId: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active', 'disabled'] },
    disabledReason: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const webhookQueuedView: JsonSchema = {
  type: 'object',
  required: ['deliveryId', 'eventId', 'queued'],
  properties: {
    deliveryId: { type: 'string', description: 'The delivery that will carry the event (whd_…)' },
    eventId: { type: 'string', description: 'The event id, sent as webhook-id; a redelivery keeps it' },
    queued: { type: 'boolean', description: 'False: the event was already pending for this destination, nothing was added' },
  },
};

export const webhookDeliveryView: JsonSchema = {
  type: 'object',
  required: ['deliveryId', 'eventId', 'eventType', 'status', 'attempts', 'lastStatusCode', 'lastError', 'createdAt', 'lastAttemptAt', 'nextAttemptAt', 'deliveredAt'],
  properties: {
    deliveryId: { type: 'string' },
    eventId: { type: 'string', description: 'Sent as webhook-id; the same on every attempt and redelivery' },
    eventType: { type: 'string', description: 'An event type, or webhook.test' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    lastStatusCode: { type: ['integer', 'null'], description: 'The receiver\'s HTTP status at the last attempt; null when none answered' },
    lastError: { type: ['string', 'null'], description: 'Why the last attempt failed, in words (network addresses are not shown)' },
    createdAt: { type: 'string', format: 'date-time' },
    lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time', description: 'While pending: when the next attempt is due' },
    deliveredAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

export const attachmentBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'mime', 'sizeBytes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, description: 'The file name (no / \\ or control characters)' },
    mime: { type: 'string', enum: Object.keys(ATTACHMENT_TYPES), description: 'The type of the bytes; checked against their magic bytes on complete' },
    sizeBytes: { type: 'integer', minimum: 1, maximum: MAX_ATTACHMENT_BYTES, description: 'The exact size; at most 25 MiB' },
  },
};

export const attachmentUploadView: JsonSchema = {
  type: 'object',
  required: ['attachmentId', 'uploadUrl', 'expiresAt'],
  properties: {
    attachmentId: { type: 'string' },
    uploadUrl: { type: 'string', description: 'PUT the raw bytes here, without API credentials, with uploadHeaders and the announced Content-Length' },
    uploadMethod: { const: 'PUT' },
    uploadHeaders: { type: 'object', additionalProperties: { type: 'string' } },
    expiresAt: { type: 'string', format: 'date-time', description: 'The upload must be completed before this (24 hours)' },
    maxBytes: { type: 'integer' },
  },
};

export const attachmentView: JsonSchema = {
  type: 'object',
  required: ['attachmentId', 'status'],
  properties: {
    attachmentId: { type: 'string' },
    conversationId: { type: 'string' },
    name: { type: 'string' },
    mime: { type: 'string' },
    sizeBytes: { type: 'integer' },
    status: { type: 'string', enum: ['pending', 'completed', 'expired'] },
    facts: {
      type: ['object', 'null'],
      description: 'What the check measured: kind (image, video, audio, pdf, text), format, width, height, durationS, pages, chars',
      additionalProperties: true,
    },
    sha256: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    uploadExpiresAt: { type: 'string', format: 'date-time' },
    completedAt: { type: ['string', 'null'], format: 'date-time' },
    expiresAt: { type: ['string', 'null'], format: 'date-time', description: '3 days after completion; reading or using it does not extend this' },
  },
};

const contextReference: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['targetType', 'targetId'],
  properties: {
    targetType: { type: 'string', enum: ['conversation'] },
    targetId: { type: 'string', minLength: 1, maxLength: 2048, description: 'A conversation id (conv_…) or its URL on this storefront' },
  },
};

export const contextReferencesBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['expectedVersion', 'references'],
  properties: {
    expectedVersion: { type: 'integer', minimum: 0, description: 'The version you read; 0 before the first save' },
    references: { type: 'array', maxItems: 20, items: contextReference, description: 'At most 20; an empty list clears access' },
  },
};

export const contextReferencesView: JsonSchema = {
  type: 'object',
  required: ['version', 'references'],
  properties: {
    version: { type: 'integer' },
    references: { type: 'array', items: { ...contextReference, properties: { ...(contextReference.properties as object), title: { type: ['string', 'null'] } } } },
  },
};

export const agentProfileView: JsonSchema = {
  type: 'object',
  required: ['profileId', 'name', 'description'],
  properties: {
    profileId: { type: 'string', description: 'The value of a conversation\'s profileId' },
    name: { type: 'string' },
    description: { type: 'string' },
  },
};

export const agentModelView: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'type', 'kind', 'vendor', 'priceUnit', 'priceFrom', 'executable', 'capabilities'],
  properties: {
    id: { type: 'string', description: 'The value of selectedModelId and of the settings\' model fields' },
    name: { type: 'string' },
    type: { type: 'string', enum: ['TEXT', 'IMAGE', 'VIDEO', 'MUSIC'] },
    kind: { type: 'string', enum: ['llm', 'media'], description: 'llm: a text model (drives a run in manual mode); media: makes images, videos or music' },
    vendor: { type: ['string', 'null'] },
    priceUnit: { type: 'string' },
    priceFrom: { type: ['string', 'null'], description: 'The lowest price in USD per priceUnit (decimal string)' },
    pricing: { description: 'The price table (text models: USD per million tokens)' },
    executable: { type: 'boolean', description: 'A route exists whose provider is configured' },
    capabilities: {
      type: 'object',
      additionalProperties: true,
      description: 'Text models: tools, imageInput and structuredOutput as verified, failed or unverified, contextWindow, maxOutputTokens; media models: referenceImages, acceptsReferenceImages',
    },
    routes: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Text models: each route\'s provider, upstream model and verified capabilities' },
  },
};
