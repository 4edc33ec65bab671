/**
 * What an uploaded PDF is, checked once when its upload is completed (SPEC "Attachment upload"): a
 * PDF header, an end-of-file marker, a cross-reference and at least one page object; and the text a
 * run will read of it, extracted here once and kept with the attachment instead of at every step.
 * Runs in the CPU pool: the file can be 25 MiB of anything.
 */
import { extractPdfText } from './pdf-text.ts';

export type PdfInspection = { ok: true; pages?: number; text: string } | { ok: false; error: string };

const TAIL_BYTES = 2048;
const HEADER = Buffer.from('%PDF-', 'latin1');

export function inspectPdf(pdf: Uint8Array, maxChars: number): PdfInspection {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  if (!bytes.subarray(0, HEADER.length).equals(HEADER)) return { ok: false, error: 'the file does not start like a PDF (%PDF-)' };
  const tail = bytes.toString('latin1', Math.max(0, bytes.length - TAIL_BYTES));
  if (!tail.includes('%%EOF')) return { ok: false, error: 'the PDF is cut off (no %%EOF at its end)' };
  if (!tail.includes('startxref')) return { ok: false, error: 'the PDF has no cross-reference (startxref)' };
  const pages = countTyped(bytes, PAGE);
  if (pages === 0 && countTyped(bytes, OBJECT_STREAM) === 0) return { ok: false, error: 'the PDF holds no page' };
  return { ok: true, ...(pages > 0 ? { pages } : {}), text: extractPdfText(bytes, maxChars) };
}

const TYPE = Buffer.from('/Type', 'latin1');
const PAGE = Buffer.from('/Page', 'latin1');
const OBJECT_STREAM = Buffer.from('/ObjStm', 'latin1');

/**
 * Objects of a type: `/Type /Page` not followed by a letter (not /Pages), white space allowed
 * between. One pass with indexOf; each `/Type` looks only at what follows it.
 */
function countTyped(bytes: Buffer, name: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(TYPE); at !== -1; at = bytes.indexOf(TYPE, at + TYPE.length)) {
    let j = at + TYPE.length;
    while (j < bytes.length && isSpace(bytes[j] as number)) j++;
    if (bytes.compare(name, 0, name.length, j, j + name.length) !== 0) continue;
    const next = bytes[j + name.length];
    if (next === undefined || !isLetter(next)) count++;
  }
  return count;
}

/** What `\s` matches in a Latin-1 string. */
function isSpace(c: number): boolean {
  return (c >= 0x09 && c <= 0x0d) || c === 0x20 || c === 0xa0;
}

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
