/**
 * The body of POST /agent/conversations/{id}/messages, checked before anything is written: unknown
 * fields, shapes and sizes are refused with 400 naming the field, so that the body stored (and
 * hashed for clientMessageId retries) is always small and flat.
 */
import { parseRunLimit } from '../../domain/agent/agent-settings.ts';
import { invalidInput } from '../../domain/errors.ts';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ParsedMessage {
  clientMessageId: string | undefined;
  content: TextBlock[];
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
export const MAX_TEXT_CHARS = 100_000;

export function parseMessage(body: unknown): ParsedMessage {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be a JSON object with content', 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!FIELDS.includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: ${FIELDS.join(', ')}`, key.slice(0, 80));
  for (const key of ['workflowId', 'workflowVersion', 'workflowInput', 'outputSchema', 'structuredOutputMode']) {
    if (fields[key] !== undefined) throw invalidInput(`${key}: workflows and structured output are not available on this gateway yet`, key);
  }
  const clientMessageId = fields.clientMessageId;
  if (clientMessageId !== undefined && (typeof clientMessageId !== 'string' || !CLIENT_ID.test(clientMessageId))) {
    throw invalidInput('clientMessageId must be 1 to 200 visible ASCII characters', 'clientMessageId');
  }
  const content = parseContent(fields.content);
  const text = content.map((b) => b.text).join('\n').trim();
  if (text === '') throw invalidInput('content needs at least one non-empty text block', 'content');
  const maxCostMicro = fields.maxCostMicroUsd === undefined ? undefined : parseRunLimit(fields.maxCostMicroUsd, 'maxCostMicroUsd');
  const deliveryMode = fields.deliveryMode;
  if (deliveryMode !== undefined && deliveryMode !== 'followup' && deliveryMode !== 'steer') throw invalidInput('deliveryMode must be followup or steer', 'deliveryMode');
  const replyToRunId = optionalString(fields.replyToRunId, 'replyToRunId');
  const questionId = optionalString(fields.questionId, 'questionId');
  if ((replyToRunId === undefined) !== (questionId === undefined)) throw invalidInput('a clarification reply needs both replyToRunId and questionId', replyToRunId === undefined ? 'replyToRunId' : 'questionId');
  if (replyToRunId !== undefined && deliveryMode !== undefined) throw invalidInput('a clarification reply takes no deliveryMode', 'deliveryMode');
  if (deliveryMode === 'steer' && maxCostMicro !== undefined) throw invalidInput('steering keeps the run\'s maxCostMicroUsd (rule 3); change it with PATCH /agent/runs/{runId}/budget', 'maxCostMicroUsd');
  const canonical: Record<string, unknown> = { content };
  if (fields.maxCostMicroUsd !== undefined) canonical.maxCostMicroUsd = fields.maxCostMicroUsd;
  if (deliveryMode !== undefined) canonical.deliveryMode = deliveryMode;
  if (replyToRunId !== undefined) canonical.replyToRunId = replyToRunId;
  if (questionId !== undefined) canonical.questionId = questionId;
  return { clientMessageId: clientMessageId as string | undefined, content, text, maxCostMicro, deliveryMode, replyToRunId, questionId, canonical };
}

function parseContent(value: unknown): TextBlock[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidInput('content must be a non-empty array of blocks', 'content');
  if (value.length > MAX_BLOCKS) throw invalidInput(`content holds at most ${MAX_BLOCKS} blocks`, 'content');
  let chars = 0;
  return value.map((block, i) => {
    const field = `content[${i}]`;
    if (block === null || typeof block !== 'object' || Array.isArray(block)) throw invalidInput(`${field} must be a block object`, field);
    const b = block as Record<string, unknown>;
    if (b.type === 'attachment') throw invalidInput(`${field}: attachments are not available on this gateway yet`, `${field}.type`);
    if (b.type !== 'text') throw invalidInput(`${field}.type must be text or attachment`, `${field}.type`);
    for (const key of Object.keys(b)) if (key !== 'type' && key !== 'text') throw invalidInput(`${field}: unknown field ${key.slice(0, 80)} of a text block`, field);
    if (typeof b.text !== 'string') throw invalidInput(`${field}.text must be a string`, `${field}.text`);
    chars += b.text.length;
    if (chars > MAX_TEXT_CHARS) throw invalidInput(`the text of a message is at most ${MAX_TEXT_CHARS} characters`, `${field}.text`);
    return { type: 'text', text: b.text };
  });
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > 200) throw invalidInput(`${field} must be an id string`, field);
  return value;
}
