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

/** Push-style: the caller hands over each network chunk and gets the messages it completed. */
export class SseParser {
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #event: string | undefined;
  #data: string[] = [];
  #hasData = false;

  /** The messages completed by this chunk (often none or one). */
  push(chunk: Uint8Array | string): SseMessage[] {
    const messages: SseMessage[] = [];
    const buffer = this.#buffer + (typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true }));
    let start = 0;
    for (let end = buffer.indexOf('\n', start); end !== -1; end = buffer.indexOf('\n', start)) {
      const message = this.#line(buffer.slice(start, end));
      start = end + 1;
      if (message) messages.push(message);
    }
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
    return messages;
  }

  /** At the end of the bytes: a final message without its blank line is still delivered. */
  end(): SseMessage[] {
    const messages: SseMessage[] = [];
    const rest = this.#buffer + this.#decoder.decode();
    this.#buffer = '';
    if (rest !== '') {
      const message = this.#line(rest);
      if (message) messages.push(message);
    }
    const last = this.#line('');
    if (last) messages.push(last);
    return messages;
  }

  #line(raw: string): SseMessage | undefined {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text === '') {
      const message = this.#hasData ? { event: this.#event, data: this.#data.length === 1 ? (this.#data[0] as string) : this.#data.join('\n') } : undefined;
      this.#event = undefined;
      this.#data = [];
      this.#hasData = false;
      return message;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#data.push(value);
      this.#hasData = true;
    } else if (field === 'event') this.#event = value;
    return undefined;
  }
}

/** The same parser over an async iterable of chunks. */
export async function* readSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  const parser = new SseParser();
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.end();
}
