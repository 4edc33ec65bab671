import type { ErrorCode } from '../../../src/domain/errors.ts';
import { centsToDollars, formatDollarsInText, microUsdToDollars } from '../format.ts';

/**
 * What the dashboard says for an API error. The API keeps its precise messages (JSON paths, routes,
 * micro-USD: right for a developer); a person reads labels and dollars. Each code has its own words;
 * the server's message is kept only where it says something the words cannot (which field, which
 * limit), and then with every path, route and micro-amount put into words.
 */
const WORDS: Record<ErrorCode | 'network_error', string> = {
  invalid_input: 'Something in the form needs a change.',
  unauthorized: 'You are signed out. Sign in again to continue.',
  forbidden: 'You are not allowed to do that.',
  insufficient_balance: 'Your balance is too low for this. Add funds on the Billing page.',
  key_spend_cap_reached: 'This API key has reached its spending limit. Raise the limit on the Keys page, or use another key.',
  task_not_found: 'That generation no longer exists.',
  not_found: 'That no longer exists, or the link is wrong.',
  user_not_found: 'No such user.',
  model_not_found: 'That model is not offered here.',
  conflict: 'That clashes with something that already exists.',
  idempotency_key_reused: 'This request was already sent with other values. Reload the page and try again.',
  idempotency_in_progress: 'The same request is still being handled. Wait a moment.',
  version_conflict: 'Someone changed this meanwhile. Reload to see the latest version, then try again.',
  conversation_busy: 'The assistant is still working on this conversation. Wait for it, or stop it.',
  followup_queue_full: 'Too many follow-ups are waiting. Wait for the current run to finish.',
  steer_not_allowed: 'This run cannot be steered now.',
  proposal_stale: 'That proposal is out of date. Look at the latest one.',
  question_not_pending: 'That question was already answered.',
  run_not_resumable: 'This run cannot be resumed.',
  webhook_revoked: 'This webhook was revoked; add a new one.',
  webhook_disabled: 'This webhook is disabled; add a new one once the receiver works.',
  agent_runs_disabled: 'The assistant is turned off on this site.',
  invalid_attachment: 'That file cannot be used.',
  attachment_not_uploaded: 'The file has not finished uploading.',
  attachment_immutable: 'That file was already completed.',
  attachment_expired: 'That file has expired. Upload it again.',
  invalid_output_schema: 'The requested result format is not valid.',
  storage_plan_required: 'This needs a storage plan. Choose one on the Storage page.',
  source_not_found: 'That file was not found: it is not yours, or it is gone (generated files are kept 3 days). Pick another one.',
  storage_quota_exceeded: 'Your storage is full. Delete files or choose a bigger plan.',
  storage_quote_invalid: 'That price quote has expired. Ask for a new one.',
  topups_disabled: 'Card payments are not set up on this gateway.',
  redeem_code_invalid: 'That code is not valid.',
  redeem_code_already_redeemed: 'You have already redeemed this code.',
  payload_too_large: 'That is too large to send.',
  uri_too_long: 'That address is too long.',
  rate_limited: 'Too many attempts. Wait a little and try again.',
  upstream_error: 'The model provider failed. Try again, or pick another model.',
  upstream_timeout: 'The model provider took too long. Try again.',
  service_unavailable: 'The gateway is busy or briefly unavailable. Try again in a moment.',
  storage_full: 'The gateway has run out of disk space, so nothing was saved. Try again later.',
  internal_error: 'Something went wrong on our side. Try again.',
  network_error: 'The gateway could not be reached. Check your connection and try again.',
};

/** Codes whose server message adds what the words cannot (which field, which limit): it follows them, cleaned. */
const DETAILED = new Set<string>(['invalid_input', 'invalid_attachment', 'invalid_output_schema', 'conflict', 'forbidden', 'payload_too_large', 'storage_quota_exceeded', 'model_not_found']);

/** Codes whose message is the upstream provider's: it follows the words, cleaned, as what the provider said. */
const PROVIDER_SAID = new Set<string>(['upstream_error', 'upstream_timeout']);

/** Field names the API uses, as a person calls them. */
const LABELS: Record<string, string> = {
  amountCents: 'Amount',
  balanceCents: 'Balance',
  maxCostMicroUsd: 'Run limit',
  limitMicroUsd: 'Run limit',
  email: 'Email',
  password: 'Password',
  currentPassword: 'Current password',
  newPassword: 'New password',
  name: 'Name',
  prompt: 'Prompt',
  urls: 'Reference files',
  imageUrls: 'Reference images',
  gptDescriptionPrompt: 'Song description',
  customMode: 'Custom mode',
  instrumental: 'Instrumental',
  from: 'From',
  to: 'To',
  expectedVersion: 'Version',
  model: 'Model',
  url: 'Address',
  code: 'Code',
  content: 'Message',
};

/** A field name or JSON path (`input.urls[0]`, `body.amountCents`, `/input/prompt`) as a label. */
export function fieldLabel(path: string): string {
  const segments = path.split(/[./[\]]+/).filter((s) => s !== '' && !/^\d+$/.test(s) && !['body', 'input', 'query', 'params', 'data'].includes(s));
  const last = segments.at(-1) ?? path;
  const known = LABELS[last];
  if (known) return known;
  const words = last
    .replace(/(MicroUsd|Micro|Cents)$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim();
  return words === '' ? 'This field' : words[0]?.toUpperCase() + words.slice(1);
}

/** The server's words with routes, HTTP verbs, JSON paths and micro-amounts put into plain language. */
export function plainMessage(message: string, param?: string): string {
  let text = message;
  // "Raise maxCostMicroUsd with PATCH /agent/runs/{runId}/budget", "see GET /api/v1/agent/storage/plans".
  text = text.replace(/\b(?:with|see|via|using|call)\s+(?:GET|POST|PUT|PATCH|DELETE)\s+\S+/gi, '');
  text = text.replace(/\b(?:GET|POST|PUT|PATCH|DELETE)\s+\/\S+/g, '');
  text = text.replace(/(?:https?:\/\/\S+)?\/(?:api|admin|agent)\/\S*/g, 'the dashboard');
  // Amounts: "1500000 micro-USD", and numbers about a field counted in cents or micro-USD.
  text = text.replace(/(-?\d[\d,]*)\s*micro-?USD/gi, (_, n: string) => formatDollarsInText(microUsdToDollars(n.replace(/,/g, ''))));
  const toDollars = /(MicroUsd|Micro)\b/.test(param ?? '') || /\w+MicroUsd\b/.test(message) ? microUsdToDollars : /Cents\b/.test(param ?? '') || /\w+Cents\b/.test(message) ? centsToDollars : undefined;
  if (toDollars !== undefined) text = text.replace(/(?<![\w.$])(-?\d{2,})(?![\w.])/g, (_, n: string) => formatDollarsInText(toDollars(Number(n))));
  // JSON paths and API field names.
  const inText = (path: string) => fieldLabel(path).toLowerCase();
  text = text.replace(/\b(?:body|input|query|params)(?:\.[A-Za-z_]\w*|\[\d+\])+/g, inText);
  text = text.replace(/\/(?:input|body)(?:\/[\w]+)+/g, inText);
  text = text.replace(/\b[a-z]+(?:[A-Z][a-z0-9]*)+(?:\[\d+\])?/g, inText);
  text = text.replace(/\bmicro-?usd\b/gi, 'dollars');
  text = text.replace(/\s{2,}/g, ' ').replace(/\s+([.,;:])/g, '$1').replace(/[,;:]\s*$/, '').trim();
  return text === '' ? '' : text[0]?.toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.');
}

/** Schema keywords a refusal can point at, as a person calls them. */
const SCHEMA_KEYWORDS: Record<string, string> = {
  type: 'its type',
  properties: 'its fields',
  required: 'its list of required fields',
  additionalProperties: 'its extra-fields setting',
  items: 'its items',
  enum: 'its allowed values',
  anyOf: 'its choices',
  $ref: 'its reference',
  $defs: 'its definitions',
  pattern: 'its pattern',
  format: 'its format',
  multipleOf: 'its step',
  minimum: 'its minimum',
  maximum: 'its maximum',
  exclusiveMinimum: 'its minimum',
  exclusiveMaximum: 'its maximum',
  minItems: 'its least number of items',
  maxItems: 'its greatest number of items',
};

/**
 * A JSON pointer into a result schema (`outputSchema/properties/address/properties/zip/pattern`) as
 * a place a person finds: "the field address › zip, its pattern". Long pointers are cut to their end.
 */
export function schemaPlaceWords(pointer: string): string {
  const tokens = pointer
    .replace(/^outputSchema/, '')
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path: string[] = [];
  let keyword: string | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    const next = tokens[i + 1];
    if ((token === 'properties' || token === '$defs') && next !== undefined) {
      path.push(token === '$defs' ? `definition ${next}` : next);
      i++;
    } else if (token === 'items') {
      if (next === undefined) keyword = SCHEMA_KEYWORDS.items;
      else path.push('each item');
    } else if ((token === 'anyOf' || token === 'enum' || token === 'type') && next !== undefined && /^\d+$/.test(next)) {
      if (token === 'anyOf') path.push(`choice ${Number(next) + 1}`);
      else keyword = token === 'enum' ? `allowed value ${Number(next) + 1}` : SCHEMA_KEYWORDS.type;
      i++;
    } else {
      keyword = SCHEMA_KEYWORDS[token] ?? `its ${fieldLabel(token).toLowerCase()}`;
    }
  }
  const shown = path.length > 6 ? ['…', ...path.slice(-5)] : path;
  const place = shown.length ? `the field ${shown.join(' › ')}` : 'the top level';
  return keyword ? `${place}, ${keyword}` : place;
}

/** A refused result schema: where (the pointer in words) and why (the server's reason, cleaned). */
function schemaErrorWords(error: { message: string; param?: string | undefined }): string {
  const pointer = error.param ?? /^(outputSchema\S*):/.exec(error.message)?.[1];
  const reason = plainMessage(error.message.replace(/^outputSchema\S*:\s*/, ''));
  const where = pointer?.startsWith('outputSchema') ? ` at ${schemaPlaceWords(pointer)}` : '';
  return `The result format is not valid${where}${reason ? `: ${reason}` : '.'}`;
}

/**
 * The words for an error the API answered with. `context` `admin` is an operator acting on another
 * user's account (a correction below zero is not the operator's balance).
 */
export function describeApiError(error: { code: string; message: string; param?: string | undefined; status: number }, context?: 'admin'): string {
  if (context === 'admin' && error.code === 'insufficient_balance') return "The user's balance cannot go below zero: correct by at most what they have.";
  const words = (WORDS as Record<string, string>)[error.code] ?? (error.status >= 500 ? WORDS.internal_error : WORDS.invalid_input);
  if (PROVIDER_SAID.has(error.code)) {
    // The provider's own reason (a refusal, a policy, an outage) helps a person decide what to do next.
    const said = plainMessage(error.message);
    return said === '' ? words : `${words} The provider said: ${said}`;
  }
  if (error.code === 'invalid_output_schema') return schemaErrorWords(error);
  if (!DETAILED.has(error.code)) return words;
  const detail = plainMessage(error.message, error.param);
  if (detail === '') return words;
  const label = error.param ? fieldLabel(error.param) : undefined;
  return label && !detail.toLowerCase().startsWith(label.toLowerCase()) ? `${label}: ${detail}` : detail;
}
