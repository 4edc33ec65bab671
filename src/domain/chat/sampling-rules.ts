/**
 * Which sampling fields a text model takes (issue 30, item 8), applied before the hold. The rules
 * are the model's (catalog data, `models/chat-models.ts`), whatever route serves it: Claude Opus 4.7
 * refuses `temperature`, `top_p` and `top_k` at any value but the default, and extended thinking with
 * a token budget ("Migrating to Claude Opus 4.7", platform.claude.com/docs/en/about-claude/models/
 * migration-guide); the Claude 4.5 generation and Sonnet 4.6 refuse `temperature` together with
 * `top_p` ("`temperature` and `top_p` cannot both be specified for this model. Please use only one.").
 *
 * What happens to a field the model refuses follows the client's protocol:
 * - chat completions and Responses (`openai`): dropped, and named in the `x-switchboard-dropped-fields`
 *   response header. Anthropic's own OpenAI-compatible endpoint ignores what Claude does not take
 *   (docs.anthropic.com/en/api/openai-sdk), and OpenAI clients send `temperature` by habit; sampling
 *   changes neither the price nor what the answer is made of. Of two exclusive fields `top_p` goes.
 * - messages (`anthropic`): refused with a 400 naming the field, in Anthropic's words, before the
 *   hold, as Anthropic refuses it; a field at its default value (temperature 1) is dropped instead.
 */
import { invalidInput } from '../errors.ts';
import type { SamplingField, SamplingRules } from '../catalog/catalog.types.ts';
import type { ChatProtocol, ChatRequest } from './chat-request.types.ts';

export type { SamplingField, SamplingRules };

/** The response header that names the fields dropped, comma-separated, as the client sent them. */
export const DROPPED_FIELDS_HEADER = 'x-switchboard-dropped-fields';

/** Anthropic API reference: "temperature … Defaults to 1.0". No default is documented for the others. */
const DEFAULTS: Partial<Record<SamplingField, number>> = { temperature: 1 };

function sampled(request: ChatRequest, field: SamplingField): unknown {
  if (field === 'temperature') return request.temperature;
  if (field === 'top_p') return request.topP;
  return request.passthrough?.fields.top_k;
}

function remove(request: ChatRequest, field: SamplingField): void {
  if (field === 'temperature') delete request.temperature;
  else if (field === 'top_p') delete request.topP;
  else if (request.passthrough) {
    delete request.passthrough.fields.top_k;
    request.passthrough.keepAcross = request.passthrough.keepAcross.filter((f) => f !== 'top_k');
  }
}

/**
 * Applies the model's rules to the request: removes what is dropped and returns those names
 * (undefined when nothing was), or throws `invalid_input` naming the field refused.
 */
export function applySamplingRules(rules: SamplingRules | undefined, request: ChatRequest, protocol: ChatProtocol): string[] | undefined {
  if (rules === undefined) return undefined;
  let dropped: string[] | undefined;
  const drop = (field: SamplingField): void => {
    remove(request, field);
    dropped = [...(dropped ?? []), field];
  };
  for (const field of rules.refused ?? []) {
    const value = sampled(request, field);
    if (value === undefined) continue;
    if (protocol === 'anthropic' && value !== DEFAULTS[field]) {
      throw invalidInput(`\`${field}\` is deprecated for this model. ${request.model} takes no ${field}: leave it out.`, field);
    }
    drop(field);
  }
  const pair = rules.exclusive;
  if (pair && sampled(request, pair[0]) !== undefined && sampled(request, pair[1]) !== undefined) {
    if (protocol === 'anthropic') {
      throw invalidInput(`\`${pair[0]}\` and \`${pair[1]}\` cannot both be specified for this model. Please use only one.`, pair[1]);
    }
    drop(pair[1]);
  }
  const thinking = request.passthrough?.fields.thinking;
  if (rules.budgetThinkingRefused && typeof thinking === 'object' && thinking !== null && (thinking as { type?: unknown }).type === 'enabled') {
    throw invalidInput(`"thinking.type.enabled" is not supported for ${request.model}. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`, 'thinking.type');
  }
  return dropped;
}
