/**
 * URLs in a generation's input that the gateway does not fetch itself (reference pictures an upstream
 * downloads, for instance) get the same address policy as the ones it fetches: no loopback, private or
 * link-local literal addresses, no localhost names (the upstream would be sent to reach into the
 * operator's network on the user's behalf). The gateway's own file URLs are allowed: they are ours.
 */
import { assertPublicUrl } from '../../adapters/outbound/url-policy.ts';
import { invalidInput } from '../../domain/errors.ts';
import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';

const HTTP_URL = /^https?:\/\//i;

export function assertInputUrlsPublic(input: unknown, options: { allowPrivate: boolean; ownFilesPrefix?: string }): void {
  visit(input, 'input', options);
}

function visit(value: unknown, path: string, options: { allowPrivate: boolean; ownFilesPrefix?: string }): void {
  if (typeof value === 'string') {
    if (!HTTP_URL.test(value)) return;
    if (options.ownFilesPrefix && value.startsWith(options.ownFilesPrefix)) return;
    try {
      assertPublicUrl(value, options.allowPrivate);
    } catch (error) {
      if (isOutboundUrlError(error)) throw invalidInput(`${path} must be a public http(s) URL: ${error.message}`, path);
      throw error;
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      visit(item, `${path}[${i}]`, options);
    });
    return;
  }
  if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) visit(item, `${path}.${key}`, options);
}
