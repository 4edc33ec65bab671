import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { ValidatedInput } from '../../domain/catalog/catalog.types.ts';
import { invalidInput } from '../../domain/errors.ts';

export interface GenerationRequest {
  model: string;
  input: ValidatedInput;
  webhook: string | undefined;
}

const TOP_LEVEL = ['model', 'input', 'webhook'];

/** Parses the create-generation (and estimate) body: `{model, input, webhook?}`, nothing else. */
export function parseGenerationRequest(catalog: Catalog, body: unknown): GenerationRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidInput('the request body must be a JSON object with model and input', 'body');
  }
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!TOP_LEVEL.includes(key)) throw invalidInput(`unknown field ${key}; allowed: ${TOP_LEVEL.join(', ')}`, key);
  }
  const model = fields.model;
  if (typeof model !== 'string' || model === '') throw invalidInput('model is required and must be a media model id from GET /api/v1/catalog', 'model');
  if (!catalog.media(model)) {
    throw invalidInput(`model ${JSON.stringify(model)} is not a media model; see GET /api/v1/catalog for the ids`, 'model');
  }
  if (fields.input === undefined) throw invalidInput('input is required', 'input');
  const input = catalog.validate(model, fields.input);
  const webhook = fields.webhook;
  if (webhook !== undefined && webhook !== null) {
    if (typeof webhook !== 'string') throw invalidInput('webhook must be an http or https URL', 'webhook');
    let url: URL;
    try {
      url = new URL(webhook);
    } catch {
      throw invalidInput('webhook must be an http or https URL', 'webhook');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidInput('webhook must be an http or https URL', 'webhook');
    if (webhook.length > 2048) throw invalidInput('webhook must be at most 2048 characters', 'webhook');
  }
  return { model, input, webhook: typeof webhook === 'string' ? webhook : undefined };
}
