/**
 * A URL a user gave us that someone else will fetch (an upstream reads a reference picture, a chat
 * model reads an image or document): the address policy is applied to what the URL parser makes of
 * the text, and the parser's `href` is what travels on. Checking the raw text let spellings the parser
 * repairs (a leading space, `http:\\host\`, `http:/host`, `http:host`) through unchecked, and a
 * `/files/../` path out of the gateway's own prefix.
 */
import { isValidBlobKey } from '../blob/blob-keys.ts';
import { OutboundUrlError } from './outbound-url-error.ts';
import { assertPublicUrl } from './url-policy.ts';

export interface UserUrlPolicy {
  allowPrivate: boolean;
  /** `<PUBLIC_BASE_URL>/files/`: the gateway's own files, which pass whatever address they have. */
  ownFilesPrefix?: string | undefined;
}

/** The URL as it is forwarded (its parsed `href`), or an OutboundUrlError saying why it is refused. */
export function checkedUserUrl(raw: string, policy: UserUrlPolicy): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new OutboundUrlError('invalid_url', 'not an absolute URL', raw);
  }
  if (isOwnFileUrl(parsed, policy.ownFilesPrefix)) return parsed.href;
  return assertPublicUrl(parsed.href, policy.allowPrivate).href;
}

/** Whether the text is a URL the parser reads as http(s): what the address policy must look at. */
export function parsesAsHttpUrl(raw: string): boolean {
  if (!URL.canParse(raw)) return false;
  const { protocol } = new URL(raw);
  return protocol === 'http:' || protocol === 'https:';
}

/**
 * One of our own file URLs exactly as the blob stores write them, `<prefix><key>`, compared after
 * parsing (dot segments resolved, `%2e` read as a dot): a key has no escapes, query or fragment, so
 * anything else under the prefix is not one of ours and gets the address policy like any URL.
 */
function isOwnFileUrl(url: URL, prefix: string | undefined): boolean {
  if (!prefix || !URL.canParse(prefix)) return false;
  const base = new URL(prefix).href;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return false;
  return url.href.startsWith(base) && isValidBlobKey(url.href.slice(base.length));
}
