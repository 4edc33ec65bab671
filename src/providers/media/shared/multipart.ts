/** A multipart/form-data body built in memory (OpenAI image edits). */
import { randomBytes } from 'node:crypto';

export type MultipartPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; data: Buffer };

export function multipartBody(parts: readonly MultipartPart[]): { body: Buffer; contentType: string } {
  const boundary = `----switchboard${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  const quote = (s: string) => s.replace(/["\r\n\\]/gu, '_');
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('data' in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${quote(part.name)}"; filename="${quote(part.filename)}"\r\nContent-Type: ${part.contentType}\r\n\r\n`));
      chunks.push(part.data);
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${quote(part.name)}"\r\n\r\n${part.value}`));
    }
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The bytes of a `data:` URI, or undefined when it is not one. */
export function decodeDataUri(uri: string): { data: Buffer; contentType: string } | undefined {
  const m = /^data:([^;,]+)?((?:;[^;,]*)*?)(;base64)?,(.*)$/su.exec(uri);
  if (!m) return undefined;
  const payload = m[4] ?? '';
  const data = m[3] ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
  return { data, contentType: m[1] ?? 'application/octet-stream' };
}
