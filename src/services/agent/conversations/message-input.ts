/**
 * The body of POST /agent/conversations/{id}/messages, checked before anything is written: unknown
 * fields, shapes and sizes are refused with 400 naming the field, so that the body stored (and
 * hashed for clientMessageId retries) is always small and flat.
 */
import { parseRunLimit } from '../../../domain/agent/agent-settings.ts';
import { checkOutputSchema, outputSchemaHash } from '../../../domain/agent/output-schema.ts';
import { checkWorkflowInput, findWorkflow, WORKFLOWS } from '../../../domain/agent/workflows.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';

export interface TextBlock {
  type: 'text';
  text: string;
}

export type UsageIntent = 'auto' | 'analyze' | 'reference' | 'both';

export interface AttachmentBlock {
  type: 'attachment';
  attachmentId: string;
  usageIntent: UsageIntent;
  /** A mask: white marks the region of the original to edit, black what to keep. */
  maskFor?: { type: 'attachment' | 'artifact'; id: string };
}

export type ContentBlock = TextBlock | AttachmentBlock;

export interface OutputRequest {
  schema: Record<string, unknown>;
  mode: 'auto' | 'extract';
  /** SHA-256 of the schema's RFC 8785 canonical JSON. */
  hash: string;
}

export interface WorkflowRequest {
  id: string;
  version: number;
  input: Record<string, unknown>;
}

export interface ParsedMessage {
  clientMessageId: string | undefined;
  /** A structured result asked of the new run (rule 17). */
  output: OutputRequest | undefined;
  /** A built-in workflow for the new run to carry out (rule 14). */
  workflow: WorkflowRequest | undefined;
  content: ContentBlock[];
  attachments: AttachmentBlock[];
  /** The text blocks joined: what the model reads and search indexes. */
  text: string;
  maxCostMicro: number | undefined;
  deliveryMode: 'followup' | 'steer' | undefined;
  replyToRunId: string | undefined;
  questionId: string | undefined;
  /** The fields as given (after the checks), hashed for idempotency. */
  canonical: Record<string, unknown>;
}

const FIELDS = [
  'clientMessageId',
  'content',
  'maxCostMicroUsd',
  'deliveryMode',
  'replyToRunId',
  'questionId',
  'workflowId',
  'workflowVersion',
  'workflowInput',
  'outputSchema',
  'structuredOutputMode',
];
const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;
export const MAX_BLOCKS = 50;
/** SPEC rule 11: a message references at most ten files, masks included. */
export const MAX_FILES_PER_MESSAGE = 10;
/**
 * Masks in one message (each is decoded and counted before the message is accepted): an edit takes
 * one; four leave room for several edits of a set while bounding what one post can make us decode.
 */
export const MAX_MASKS_PER_MESSAGE = 4;
const USAGE_INTENTS: readonly UsageIntent[] = ['auto', 'analyze', 'reference', 'both'];
export const MAX_TEXT_CHARS = 100_000;

export function parseMessage(body: unknown): ParsedMessage {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be a JSON object with content', 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!FIELDS.includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: ${FIELDS.join(', ')}`, key.slice(0, 80));
  const output = parseOutput(fields.outputSchema, fields.structuredOutputMode);
  const workflow = parseWorkflow(fields.workflowId, fields.workflowVersion, fields.workflowInput);
  const clientMessageId = fields.clientMessageId;
  if (clientMessageId !== undefined && (typeof clientMessageId !== 'string' || !CLIENT_ID.test(clientMessageId))) {
    throw invalidInput('clientMessageId must be 1 to 200 visible ASCII characters', 'clientMessageId');
  }
  const content = parseContent(fields.content);
  const attachments = content.filter((b): b is AttachmentBlock => b.type === 'attachment');
  const text = content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim();
  if (text === '' && attachments.length === 0 && fields.workflowId === undefined) throw invalidInput('content needs a non-empty text block or an attachment', 'content');
  const maxCostMicro = fields.maxCostMicroUsd === undefined ? undefined : parseRunLimit(fields.maxCostMicroUsd, 'maxCostMicroUsd');
  const deliveryMode = fields.deliveryMode;
  if (deliveryMode !== undefined && deliveryMode !== 'followup' && deliveryMode !== 'steer') throw invalidInput('deliveryMode must be followup or steer', 'deliveryMode');
  const replyToRunId = optionalString(fields.replyToRunId, 'replyToRunId');
  const questionId = optionalString(fields.questionId, 'questionId');
  if ((replyToRunId === undefined) !== (questionId === undefined)) throw invalidInput('a clarification reply needs both replyToRunId and questionId', replyToRunId === undefined ? 'replyToRunId' : 'questionId');
  if (replyToRunId !== undefined && deliveryMode !== undefined) throw invalidInput('a clarification reply takes no deliveryMode', 'deliveryMode');
  if (workflow && (deliveryMode === 'steer' || replyToRunId !== undefined)) throw invalidInput('a workflow starts a new run, not steering or a reply', 'workflowId');
  if (output && (deliveryMode === 'steer' || replyToRunId !== undefined)) throw invalidInput('outputSchema belongs to a new run, not to steering or a reply', 'outputSchema');
  if (deliveryMode === 'steer' && maxCostMicro !== undefined) throw invalidInput('steering keeps the run\'s maxCostMicroUsd (rule 3); change it with PATCH /agent/runs/{runId}/budget', 'maxCostMicroUsd');
  const canonical: Record<string, unknown> = { content };
  if (fields.maxCostMicroUsd !== undefined) canonical.maxCostMicroUsd = fields.maxCostMicroUsd;
  if (deliveryMode !== undefined) canonical.deliveryMode = deliveryMode;
  if (replyToRunId !== undefined) canonical.replyToRunId = replyToRunId;
  if (questionId !== undefined) canonical.questionId = questionId;
  if (workflow) canonical.workflow = workflow;
  if (output) {
    canonical.outputSchema = output.schema;
    canonical.structuredOutputMode = output.mode;
  }
  return { clientMessageId: clientMessageId as string | undefined, output, workflow, content, attachments, text, maxCostMicro, deliveryMode, replyToRunId, questionId, canonical };
}

function parseContent(value: unknown): ContentBlock[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidInput('content must be a non-empty array of blocks', 'content');
  if (value.length > MAX_BLOCKS) throw invalidInput(`content holds at most ${MAX_BLOCKS} blocks`, 'content');
  let chars = 0;
  let masks = 0;
  const files = new Set<string>();
  return value.map((block, i): ContentBlock => {
    const field = `content[${i}]`;
    if (block === null || typeof block !== 'object' || Array.isArray(block)) throw invalidInput(`${field} must be a block object`, field);
    const b = block as Record<string, unknown>;
    if (b.type === 'attachment') {
      const attachment = parseAttachmentBlock(b, field);
      if (files.has(attachment.attachmentId)) throw invalidInput(`${field}: ${attachment.attachmentId} is already in this message`, `${field}.attachmentId`);
      files.add(attachment.attachmentId);
      if (files.size > MAX_FILES_PER_MESSAGE) throw invalidInput(`a message references at most ${MAX_FILES_PER_MESSAGE} files (masks count)`, 'content');
      if (attachment.maskFor && ++masks > MAX_MASKS_PER_MESSAGE) throw invalidInput(`a message carries at most ${MAX_MASKS_PER_MESSAGE} masks`, `${field}.maskFor`);
      return attachment;
    }
    if (b.type !== 'text') throw invalidInput(`${field}.type must be text or attachment`, `${field}.type`);
    for (const key of Object.keys(b)) if (key !== 'type' && key !== 'text') throw invalidInput(`${field}: unknown field ${key.slice(0, 80)} of a text block`, field);
    if (typeof b.text !== 'string') throw invalidInput(`${field}.text must be a string`, `${field}.text`);
    chars += b.text.length;
    if (chars > MAX_TEXT_CHARS) throw invalidInput(`the text of a message is at most ${MAX_TEXT_CHARS} characters`, `${field}.text`);
    return { type: 'text', text: b.text };
  });
}

function parseAttachmentBlock(b: Record<string, unknown>, field: string): AttachmentBlock {
  for (const key of Object.keys(b)) {
    if (!['type', 'attachmentId', 'usageIntent', 'maskFor'].includes(key)) throw invalidInput(`${field}: unknown field ${key.slice(0, 80)} of an attachment block`, field);
  }
  if (typeof b.attachmentId !== 'string' || !/^att_[0-9a-z]{1,60}$/.test(b.attachmentId)) throw invalidInput(`${field}.attachmentId must be an attachment id (att_…)`, `${field}.attachmentId`);
  const intent = b.usageIntent ?? 'auto';
  if (typeof intent !== 'string' || !(USAGE_INTENTS as readonly string[]).includes(intent)) throw invalidInput(`${field}.usageIntent must be one of ${USAGE_INTENTS.join(', ')}`, `${field}.usageIntent`);
  const block: AttachmentBlock = { type: 'attachment', attachmentId: b.attachmentId, usageIntent: intent as UsageIntent };
  if (b.maskFor !== undefined) {
    const mask = b.maskFor;
    if (mask === null || typeof mask !== 'object' || Array.isArray(mask)) throw invalidInput(`${field}.maskFor must be {type, id}`, `${field}.maskFor`);
    const { type, id } = mask as Record<string, unknown>;
    if (type !== 'attachment' && type !== 'artifact') throw invalidInput(`${field}.maskFor.type must be attachment or artifact`, `${field}.maskFor.type`);
    if (typeof id !== 'string' || id === '' || id.length > 200) throw invalidInput(`${field}.maskFor.id must be an id`, `${field}.maskFor.id`);
    block.maskFor = { type, id };
  }
  return block;
}

/** Rule 17: the closed subset, checked before anything is charged; 400 invalid_output_schema with a JSON pointer. */
function parseOutput(schema: unknown, mode: unknown): OutputRequest | undefined {
  if (schema === undefined || schema === null) {
    if (mode !== undefined && mode !== null) throw invalidInput('structuredOutputMode needs an outputSchema', 'structuredOutputMode');
    return undefined;
  }
  if (mode !== undefined && mode !== 'auto' && mode !== 'extract') throw invalidInput('structuredOutputMode must be auto or extract', 'structuredOutputMode');
  const check = checkOutputSchema(schema);
  if (!check.ok) throw new AppError('invalid_output_schema', `outputSchema${check.pointer}: ${check.message}`, { param: `outputSchema${check.pointer}` });
  return { schema: schema as Record<string, unknown>, mode: mode === 'extract' ? 'extract' : 'auto', hash: outputSchemaHash(schema) };
}

/** Rule 14: a known workflow and version, input fields of its types; missing required ones are asked for by the run. */
function parseWorkflow(id: unknown, version: unknown, input: unknown): WorkflowRequest | undefined {
  if (id === undefined || id === null) {
    if (version !== undefined || input !== undefined) throw invalidInput('workflowVersion and workflowInput need a workflowId', 'workflowId');
    return undefined;
  }
  if (typeof id !== 'string' || !findWorkflow(id)) throw invalidInput(`workflowId must be one of ${WORKFLOWS.map((w) => w.id).filter((w, i, all) => all.indexOf(w) === i).join(', ')} (GET /agent/workflows)`, 'workflowId');
  let wanted: number | undefined;
  if (version !== undefined && version !== null) {
    wanted = typeof version === 'string' && /^\d+$/.test(version) ? Number(version) : typeof version === 'number' ? version : Number.NaN;
    if (!Number.isSafeInteger(wanted) || !findWorkflow(id, wanted)) throw invalidInput(`workflowVersion ${String(version).slice(0, 20)} of ${id} does not exist`, 'workflowVersion');
  }
  const workflow = findWorkflow(id, wanted);
  if (!workflow) throw invalidInput(`workflowId ${id} does not exist`, 'workflowId');
  if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) throw invalidInput('workflowInput must be an object of the workflow\'s inputs', 'workflowInput');
  const given = (input ?? {}) as Record<string, unknown>;
  const problem = checkWorkflowInput(workflow, given);
  if (problem) throw invalidInput(`workflowInput.${problem.message}`, `workflowInput.${problem.field.slice(0, 80)}`);
  return { id: workflow.id, version: workflow.version, input: given };
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > 200) throw invalidInput(`${field} must be an id string`, field);
  return value;
}
