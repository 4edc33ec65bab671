import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';
import { assertAllowedPort, assertPublicUrl } from '../../adapters/outbound/url-policy.ts';
import type { WebhookPolicy } from '../../config/config.types.ts';
import { invalidInput } from '../../domain/errors.ts';

/** What a user-given webhook destination must pass: the outbound address policy and the operator's ports and schemes. */
export interface WebhookUrlRules {
  allowPrivateUrls: boolean;
  policy: WebhookPolicy;
}

/**
 * A destination URL a user gives for webhooks, checked when it is saved (the address policy is
 * checked again at each delivery, since a name can come to point elsewhere); `field` names it in
 * the error. Returns the URL as parsed: the form the policy checked, which is stored and called.
 */
export function validateWebhookUrl(value: unknown, rules: WebhookUrlRules, field = 'url'): string {
  if (typeof value !== 'string' || value.length > 2048) throw invalidInput(`${field} must be an HTTPS URL of at most 2048 characters`, field);
  let parsed: URL;
  try {
    parsed = assertPublicUrl(value, rules.allowPrivateUrls);
    assertAllowedPort(parsed, rules.policy.ports);
  } catch (error) {
    if (isOutboundUrlError(error)) throw invalidInput(`${field} is refused: ${error.message}`, field);
    throw error;
  }
  // Plain http only when the operator says so (SWITCHBOARD_ALLOW_HTTP_WEBHOOKS, for development and
  // tests); allowing private addresses does not lift it.
  if (parsed.protocol !== 'https:' && !rules.policy.allowHttp) throw invalidInput(`${field} must be an HTTPS URL`, field);
  return parsed.href;
}
