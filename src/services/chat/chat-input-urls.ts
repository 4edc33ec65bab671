/**
 * Chat requests carry URLs the upstream fetches for the caller: OpenAI `image_url`, Anthropic image
 * and document `source.url`. They get the address policy of media input URLs (input-urls.ts): no
 * private, loopback, link-local or metadata literal addresses and no localhost names, unless the
 * operator allows private addresses; the gateway's own file URLs are always allowed. The policy looks
 * at the parsed URL, and the request then carries the parsed `href` (user-url.ts), so the upstream
 * fetches exactly what was checked.
 */
import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';
import { checkedUserUrl, type UserUrlPolicy } from '../../adapters/outbound/user-url.ts';
import type { ChatRequest, NativePart } from '../../domain/chat/chat-request.types.ts';
import { echo } from '../../domain/echo.ts';
import { invalidInput } from '../../domain/errors.ts';

export type ChatUrlPolicy = UserUrlPolicy;

/** Checks every URL the upstream would fetch and rewrites it, in place, to its parsed form. */
export function assertChatUrlsPublic(request: ChatRequest, policy: ChatUrlPolicy): void {
  request.messages.forEach((message, i) => {
    if (message.role === 'system') return;
    message.content.forEach((part, j) => {
      const where = `messages[${i}].content[${j}]`;
      if (part.type === 'image' && part.source.kind === 'url') part.source = { kind: 'url', url: check(part.source.url, where, policy) };
      else if (part.type === 'native') {
        const source = nativeUrlSource(part);
        if (source !== undefined) part.value = { ...part.value, source: { ...source, url: check(source.url, where, policy) } };
      }
    });
  });
}

/** The source of an Anthropic document (or image) block kept verbatim, when it is a URL. */
function nativeUrlSource(part: NativePart): (Record<string, unknown> & { url: string }) | undefined {
  const source = part.value.source;
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return undefined;
  const fields = source as Record<string, unknown>;
  const url = fields.url;
  return fields.type === 'url' && typeof url === 'string' ? { ...fields, url } : undefined;
}

function check(url: string, where: string, policy: ChatUrlPolicy): string {
  try {
    return checkedUserUrl(url, policy);
  } catch (error) {
    if (isOutboundUrlError(error)) throw invalidInput(`${where}: the URL ${echo(url)} is refused: ${error.message}`, where);
    throw error;
  }
}
