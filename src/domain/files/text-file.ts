/**
 * What an uploaded text file is (SPEC "Attachment upload"): valid UTF-8 without NUL bytes, and for
 * `application/json` one JSON value; and the text a run will read of it, kept with the attachment.
 * Runs in the CPU pool: 25 MiB of text is decoded and checked in one pass each.
 */
import { jsonSyntaxError } from './json-syntax.ts';

export type TextInspection = { ok: true; chars: number; text: string } | { ok: false; error: string };

export function inspectText(bytes: Uint8Array, json: boolean, maxChars: number): TextInspection {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: 'the file is not valid UTF-8 text' };
  }
  if (text.includes('\u0000')) return { ok: false, error: 'the file holds NUL bytes: it is not text' };
  if (json) {
    const problem = jsonSyntaxError(text);
    if (problem !== undefined) return { ok: false, error: `the file is not valid JSON: ${problem}` };
  }
  return { ok: true, chars: text.length, text: text.slice(0, maxChars) };
}
