/**
 * The response shapes of the agent's read models (docs only: Fastify does not validate answers with
 * them): a conversation, its messages, a run with its budget, steps, operations and pending actions,
 * a run's result and its artifacts. A field is `required` when the presenter in
 * src/services/agent always sends it (null included); it stays optional only where it depends on
 * something (a pending action's kind, the GET of one conversation). The dashboard's types are
 * generated from these (web/src/api/generated/), so they must say what the server really sends.
 */
import { OPERATION_KINDS, OPERATION_STATES } from '../../../domain/agent/operation-state.ts';
import { PENDING_ACTION_KINDS, PENDING_ACTION_STATUSES } from '../../../domain/agent/pending-action-status.ts';
import { RUN_STATUSES } from '../../../domain/agent/run-status.ts';
import { STEP_KINDS, STEP_STATUSES } from '../../../domain/agent/step-status.ts';
import { settingsSchema } from './agent-schemas.ts';

type JsonSchema = Record<string, unknown>;

const string: JsonSchema = { type: 'string' };
const nullableString: JsonSchema = { type: ['string', 'null'] };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const nullableDateTime: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
/** Money in the read models: a decimal integer string of micro-USD. */
const micro: JsonSchema = { type: 'string', description: 'micro-USD (decimal integer string)' };
const runError: JsonSchema = { type: ['object', 'null'], required: ['code', 'message'], properties: { code: string, message: nullableString } };
const notices: JsonSchema = { type: 'array', items: string, description: 'What the user must be told (a file whose modality cannot be analysed)' };

/** An object whose every listed property is always sent. */
function allRequired(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', ...extra, required: Object.keys(properties), properties };
}

const conversationFields: Record<string, JsonSchema> = {
  conversationId: string,
  title: nullableString,
  titleSource: { type: ['string', 'null'], enum: ['user', 'generated', null] },
  mode: { type: 'string', enum: ['auto', 'manual'] },
  selectedModelId: nullableString,
  projectId: nullableString,
  profileId: nullableString,
  defaultWorkflowId: nullableString,
  settings: settingsSchema,
  version: { type: 'integer' },
  activeRunId: nullableString,
  lastEventSequence: { type: 'integer' },
  lastActivityAt: dateTime,
  createdAt: dateTime,
};

export const conversationView: JsonSchema = {
  type: 'object',
  required: Object.keys(conversationFields),
  properties: { ...conversationFields, queuedRuns: { type: 'integer', description: 'GET of one conversation only: its queued follow-ups' } },
};

export const conversationPage: JsonSchema = allRequired({ items: { type: 'array', items: conversationView }, nextCursor: nullableString });

const contentBlock: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['text', 'attachment', 'artifact'], description: 'text; attachment (a user\'s file); artifact (a file the run made, in its reply)' },
    text: string,
    attachmentId: string,
    artifactId: string,
  },
  additionalProperties: true,
};

export const messageView: JsonSchema = allRequired({
  messageId: string,
  runId: nullableString,
  role: { type: 'string', enum: ['user', 'assistant'] },
  kind: { type: 'string', enum: ['new_run', 'followup', 'steer', 'reply', 'answer'] },
  content: { type: 'array', items: contentBlock },
  text: string,
  createdAt: dateTime,
});

export const messagePage: JsonSchema = allRequired({ items: { type: 'array', items: messageView }, nextBefore: { type: ['string', 'null'], description: 'The before of the next (older) page; null on the first message' } });

export const budgetView: JsonSchema = allRequired({ limitMicroUsd: micro, settledMicroUsd: micro, committedMicroUsd: micro, remainingMicroUsd: micro, version: { type: 'integer' } });

const stepView: JsonSchema = allRequired({
  stepId: string,
  position: { type: 'integer' },
  kind: { type: 'string', enum: [...STEP_KINDS] },
  name: string,
  status: { type: 'string', enum: [...STEP_STATUSES] },
  toolCallId: nullableString,
  input: {},
  output: { description: 'null while the step runs' },
  costMicroUsd: micro,
  startedAt: dateTime,
  finishedAt: nullableDateTime,
});

const operationView: JsonSchema = allRequired({
  operationId: string,
  kind: { type: 'string', enum: [...OPERATION_KINDS] },
  stepId: string,
  model: string,
  state: { type: 'string', enum: [...OPERATION_STATES] },
  generationId: { type: ['string', 'null'], description: 'A generation operation: its task id' },
  chatRequestId: { type: ['string', 'null'], description: 'A chat operation: its request id' },
  estimateMicroUsd: micro,
  costMicroUsd: micro,
  createdAt: dateTime,
  settledAt: nullableDateTime,
});

const pendingActionFields: Record<string, JsonSchema> = {
  pendingActionId: string,
  kind: { type: 'string', enum: [...PENDING_ACTION_KINDS] },
  status: { type: 'string', enum: [...PENDING_ACTION_STATUSES] },
  version: { type: 'integer' },
  createdAt: dateTime,
  expiresAt: nullableDateTime,
  resolvedAt: nullableDateTime,
};

const pendingActionView: JsonSchema = {
  type: 'object',
  required: Object.keys(pendingActionFields),
  properties: {
    ...pendingActionFields,
    questionId: { type: 'string', description: 'A question: its id (the questionId of a reply)' },
    question: { type: 'string', description: 'A question: what the run asks' },
    choices: { type: 'array', items: string, description: 'A question: the answers offered (may be empty)' },
    proposalHash: { type: 'string', description: 'A model change: what a decision must echo' },
    proposal: {
      type: 'object',
      description: 'A model change: what is proposed',
      properties: { modality: string, fromModelId: nullableString, toModelId: string, reason: string },
      additionalProperties: true,
    },
  },
};

export const runView: JsonSchema = allRequired(
  {
    runId: string,
    conversationId: string,
    messageId: string,
    runNumber: { type: 'integer' },
    status: { type: 'string', enum: [...RUN_STATUSES] },
    waitReason: nullableString,
    mode: { type: 'string', enum: ['auto', 'manual'] },
    orchestratorModelId: { type: 'string', description: 'The text model driving the run now (a fallback after a failure)' },
    selectedModelId: nullableString,
    approvedModels: { type: 'object', additionalProperties: string, description: 'Model changes approved during the run, by modality' },
    queuePosition: { type: ['integer', 'null'] },
    canSteer: { type: 'boolean' },
    pendingSteering: { type: 'integer' },
    budget: { ...budgetView, required: [...(budgetView.required as string[]), 'neededMicroUsd'], properties: { ...(budgetView.properties as object), neededMicroUsd: { type: ['string', 'null'], description: 'Waiting for budget: the limit that lets the run go on' } } },
    costs: allRequired({ settledMicroUsd: micro, committedMicroUsd: micro, operations: { type: 'array', items: operationView } }),
    steps: { type: 'array', items: stepView },
    notices,
    pendingActions: { type: 'array', items: pendingActionView },
    decisions: { type: 'array', items: pendingActionView, description: 'The pending actions already resolved' },
    settings: { type: 'object', additionalProperties: true, description: 'The settings the run started with' },
    profileId: nullableString,
    project: { type: ['object', 'null'], required: ['projectId', 'version'], properties: { projectId: string, version: { type: 'integer' } } },
    error: runError,
    revision: { type: 'integer' },
    version: { type: 'integer' },
    createdAt: dateTime,
    startedAt: nullableDateTime,
    finishedAt: nullableDateTime,
    updatedAt: dateTime,
  },
  { description: 'A run: status, budget, steps with their costs, pending actions and canSteer' },
);

export const artifactView: JsonSchema = allRequired({
  artifactId: string,
  conversationId: string,
  runId: string,
  generationId: { type: ['string', 'null'], description: 'The source generation (task id); null without one' },
  outputIndex: { type: ['integer', 'null'] },
  type: string,
  contentType: string,
  url: string,
  createdAt: dateTime,
  expiresAt: nullableDateTime,
});

export const resultView: JsonSchema = allRequired({
  runId: string,
  status: { type: 'string', enum: [...RUN_STATUSES] },
  mainOutcome: { type: ['object', 'null'], required: ['text', 'artifactIds'], properties: { text: string, artifactIds: { type: 'array', items: string } } },
  revision: { type: 'integer' },
  artifacts: { type: 'array', items: artifactView },
  notices,
  structuredResult: { description: 'The value fitting the run\'s outputSchema; null without a schema, while it is made, or when extraction failed' },
  schemaHash: { type: ['string', 'null'], description: 'SHA-256 of the outputSchema\'s RFC 8785 canonical JSON' },
  sourceSteps: { type: 'array', items: string, description: 'The steps the structured result was made from' },
  extraction: {
    type: ['object', 'null'],
    required: ['status', 'method', 'attempts', 'costMicroUsd', 'error'],
    properties: {
      status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
      method: { type: ['string', 'null'], enum: ['deterministic', 'model', null] },
      attempts: { type: 'integer', description: 'Extraction calls: the first and at most one repair' },
      costMicroUsd: string,
      error: nullableString,
    },
  },
  error: runError,
});
