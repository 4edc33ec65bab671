/**
 * What Anthropic refuses per model beyond the request type (issue 30, item 8), with Anthropic's 400
 * `invalid_request_error` messages, for the strict messages fake. Kept apart from the catalog's
 * rules on purpose: this is the vendor's behaviour, which the gateway must not send into.
 * - Claude Opus 4.7 ("Migrating to Claude Opus 4.7", platform.claude.com/docs/en/about-claude/models/
 *   migration-guide): `temperature`, `top_p` and `top_k` at a non-default value are a 400 ("`temperature`
 *   is deprecated for this model.", as reported in github.com/Comfy-Org/ComfyUI/issues/13923 and
 *   github.com/sipeed/picoclaw/issues/2939); `thinking.type: "enabled"` (a thinking budget) is a 400
 *   (github.com/NousResearch/hermes-agent/issues/11137). Only temperature has a documented default
 *   (1.0), so any `top_p` or `top_k` is refused here.
 * - Opus 4.1 and later 4.x, Sonnet 4.5 and 4.6, Haiku 4.5: `temperature` with `top_p` is a 400
 *   ("`temperature` and `top_p` cannot both be specified for this model. Please use only one.";
 *   github.com/Vali-98/ChatterUI/issues/564 for Sonnet 4.6, github.com/aws-samples/bedrock-access-gateway/pull/238).
 * Model ids match by prefix, so dated snapshots (`claude-haiku-4-5-20251001`) follow their alias.
 */
import { isRecord } from './fake-upstream.ts';

const NO_SAMPLING = ['claude-opus-4-7'];
const ONE_SAMPLER = ['claude-opus-4-1', 'claude-opus-4-5', 'claude-opus-4-6', 'claude-sonnet-4-5', 'claude-sonnet-4-6', 'claude-haiku-4-5'];

const matches = (model: string, ids: readonly string[]): boolean => ids.some((id) => model === id || model.startsWith(`${id}-`));

/** Anthropic's message for a body this model refuses, or undefined. */
export function anthropicModelRefusal(body: Record<string, unknown>): string | undefined {
  const model = String(body.model);
  if (matches(model, NO_SAMPLING)) {
    if (body.temperature !== undefined && body.temperature !== 1) return '`temperature` is deprecated for this model.';
    for (const field of ['top_p', 'top_k']) if (body[field] !== undefined) return `\`${field}\` is deprecated for this model.`;
    if (isRecord(body.thinking) && body.thinking.type === 'enabled') {
      return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
    }
  }
  if (matches(model, ONE_SAMPLER) && body.temperature !== undefined && body.top_p !== undefined) {
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  }
  return undefined;
}
