/**
 * Chat requests carry URLs the upstream fetches for the caller: OpenAI `image_url`, Anthropic image
 * and document `source.url`. They get the address policy of media input URLs (input-urls.ts): no
 * private, loopback, link-local or metadata literal addresses and no localhost names, unless the
 * operator allows private addresses; the gateway's own file URLs are always allowed.
 */
import { assertPublicUrl } from '../../adapters/outbound/url-policy.ts';
import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';
import type { ChatRequest, NativePart } from '../../domain/chat/chat-request.types.ts';
import { echo } from '../../domain/echo.ts';
import { invalidInput } from '../../domain/errors.ts';

export interface ChatUrlPolicy {
  allowPrivate: boolean;
  /** `<PUBLIC_BASE_URL>/files/`: the gateway's own files. */
  ownFilesPrefix?: string | undefined;
}

export function assertChatUrlsPublic(request: ChatRequest, policy: ChatUrlPolicy): void {
  request.messages.forEach((message, i) => {
    if (message.role === 'system') return;
    message.content.forEach((part, j) => {
      const where = `messages[${i}].content[${j}]`;
      if (part.type === 'image' && part.source.kind === 'url') check(part.source.url, where, policy);
      else if (part.type === 'native') {
        const url = nativeSourceUrl(part);
        if (url !== undefined) check(url, where, policy);
      }
    });
  });
}

/** An Anthropic document (or image) block kept verbatim, whose source is a URL. */
function nativeSourceUrl(part: NativePart): string | undefined {
  const source = part.value.source;
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return undefined;
  const { type, url } = source as Record<string, unknown>;
  return type === 'url' && typeof url === 'string' ? url : undefined;
}

function check(url: string, where: string, policy: ChatUrlPolicy): void {
  if (policy.ownFilesPrefix && url.startsWith(policy.ownFilesPrefix)) return;
  try {
    assertPublicUrl(url, policy.allowPrivate);
  } catch (error) {
    if (isOutboundUrlError(error)) throw invalidInput(`${where}: the URL ${echo(url)} is refused: ${error.message}`, where);
    throw error;
  }
}
