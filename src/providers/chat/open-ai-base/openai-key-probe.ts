/**
 * The key test of an OpenAI-compatible upstream: `GET {baseUrl}/models` (OpenAI's "List models",
 * `client.models.list()` in openai-node), free and read-only, with the key sent as the chat adapter
 * sends it (`Authorization: Bearer`, or the vendor's own header) and the operator's extra headers.
 * Without a key the call goes unauthenticated, as the adapter's calls do (a vLLM or Ollama next door).
 */
import type { KeyCheckTarget, KeyProbe } from '../../key-check/key-check.types.ts';
import { baseUrlOf, chatVerdict, noBaseUrl } from '../../key-check/key-check-verdicts.ts';
import { readStringRecord } from '../provider-options.ts';
import type { OpenAiCompatibleVendor } from './open-ai-base.provider.ts';

export function openAiCompatibleKeyProbe(vendor: OpenAiCompatibleVendor, target: KeyCheckTarget): KeyProbe {
  const call = 'GET /models';
  const baseUrl = baseUrlOf(target.baseUrl, vendor.defaultBaseUrl);
  if (baseUrl === undefined) return noBaseUrl(call, target.type);
  const headers: Record<string, string> = { ...vendor.headers, ...readStringRecord(target.options.headers) };
  if (target.secret) {
    if (vendor.apiKeyHeader === undefined) headers.authorization = `Bearer ${target.secret}`;
    else headers[vendor.apiKeyHeader] = target.secret;
  }
  return {
    kind: 'http',
    call: `GET ${new URL(`${baseUrl}/models`).pathname}`,
    method: 'GET',
    url: `${baseUrl}/models`,
    headers,
    read: (response) => chatVerdict(target.type, response),
  };
}
