/**
 * A server-sent events parser over a byte stream (the WHATWG rules that upstreams use): `event:` and
 * `data:` fields, multi-line data joined with newlines, comments ignored, a blank line ends a message.
 * Bytes are decoded as a stream, so a UTF-8 character split across network chunks stays whole. Lines
 * end in LF or CRLF; a lone CR (allowed by the spec, used by no upstream) is not treated as an end.
 */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

export async function* readSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  let hasData = false;

  const line = (raw: string): SseMessage | undefined => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text === '') {
      const message = hasData ? { event, data: data.join('\n') } : undefined;
      event = undefined;
      data = [];
      hasData = false;
      return message;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data.push(value);
      hasData = true;
    } else if (field === 'event') event = value;
    return undefined;
  };

  for await (const chunk of chunks) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf('\n', start); end !== -1; end = buffer.indexOf('\n', start)) {
      const message = line(buffer.slice(start, end));
      start = end + 1;
      if (message) yield message;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  // A final message without its blank line is still delivered; the decoder decides if it was enough.
  if (buffer !== '') {
    const message = line(buffer);
    if (message) yield message;
  }
  const last = line('');
  if (last) yield last;
}
