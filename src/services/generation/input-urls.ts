/**
 * URLs in a generation's input that the gateway does not fetch itself (reference pictures an upstream
 * downloads, for instance) get the same address policy as the ones it fetches: no loopback, private or
 * link-local literal addresses, no localhost names (the upstream would be sent to reach into the
 * operator's network on the user's behalf). The gateway's own file URLs are allowed: they are ours.
 *
 * The check is on what a URL parser makes of each string, not on its spelling: the catalog's URL
 * fields already hold the parsed `href` (validate.ts), and any other string a parser would read as an
 * http(s) URL (` http:169.254.169.254`, `http:\\10.0.0.5\`) is checked the same way.
 */
import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';
import { checkedUserUrl, parsesAsHttpUrl, type UserUrlPolicy } from '../../adapters/outbound/user-url.ts';
import { invalidInput } from '../../domain/errors.ts';

export function assertInputUrlsPublic(input: unknown, policy: UserUrlPolicy): void {
  visit(input, 'input', policy);
}

function visit(value: unknown, path: string, policy: UserUrlPolicy): void {
  if (typeof value === 'string') {
    if (!parsesAsHttpUrl(value)) return;
    try {
      checkedUserUrl(value, policy);
    } catch (error) {
      if (isOutboundUrlError(error)) throw invalidInput(`${path} must be a public http(s) URL: ${error.message}`, path);
      throw error;
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      visit(item, `${path}[${i}]`, policy);
    });
    return;
  }
  if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) visit(item, `${path}.${key}`, policy);
}
