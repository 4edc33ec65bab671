/**
 * Free local text extraction from a PDF (SPEC rule 11: "local text extraction is free"): the text
 * shown by the page content streams' text operators (Tj, TJ, ', "), with Flate-compressed streams
 * inflated. It reads the PDFs most tools write with standard encodings; a PDF whose text is in
 * embedded fonts with custom encodings, or only scanned pictures, yields little or nothing, and the
 * agent says so instead of guessing.
 *
 * The bytes are the user's, so the work is linear in them: one forward pass over the file finds each
 * stream after its dictionary, one pass over each content stream reads its tokens, and no regular
 * expression with backtracking runs over user bytes. Inflation is bounded per stream and in total (a
 * few hundred bytes of Flate data can claim gigabytes), and the text kept is bounded by `maxChars`.
 * It runs in the CPU pool (src/adapters/cpu), never on the event loop.
 */
import { inflateSync } from 'node:zlib';

export interface PdfTextLimits {
  /** Compressed bytes of one stream read at most. */
  maxStreamBytes: number;
  /** Bytes one stream may inflate to; a stream that would inflate to more is skipped. */
  maxInflatedStreamBytes: number;
  /** Bytes all streams together may inflate to (a failed inflation counts in full); then reading stops. */
  maxInflatedTotalBytes: number;
}

export const PDF_TEXT_LIMITS: PdfTextLimits = {
  maxStreamBytes: 8 * 1024 * 1024,
  maxInflatedStreamBytes: 16 * 1024 * 1024,
  maxInflatedTotalBytes: 64 * 1024 * 1024,
};

/** A stream dictionary longer than this is no page content's (they are a few dozen bytes). */
const MAX_DICTIONARY_BYTES = 64 * 1024;
const ENDSTREAM = Buffer.from('endstream', 'latin1');
const STREAM = Buffer.from('stream', 'latin1');

export function extractPdfText(pdf: Uint8Array, maxChars: number, limits: PdfTextLimits = PDF_TEXT_LIMITS): string {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  // Raw text kept before tidying; tidying only shortens it, so twice the answer is plenty.
  const rawBudget = 2 * maxChars;
  const parts: string[] = [];
  let chars = 0;
  let inflateBudget = limits.maxInflatedTotalBytes;
  let depth = 0;
  let dictionaryStart = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n && chars < maxChars && inflateBudget > 0) {
    const c = bytes[i] as number;
    if (c === 0x25 /* % */) {
      i = endOfLine(bytes, i);
    } else if (c === 0x28 /* ( */ && depth > 0) {
      i = skipLiteral(bytes, i);
    } else if (c === 0x3c /* < */) {
      if (bytes[i + 1] === 0x3c) {
        if (depth === 0) dictionaryStart = i;
        depth++;
        i += 2;
      } else i = skipHex(bytes, i);
    } else if (c === 0x3e /* > */ && bytes[i + 1] === 0x3e) {
      i += 2;
      if (depth === 0 || --depth > 0) continue;
      const start = streamStart(bytes, i);
      if (start === -1) continue;
      const end = bytes.indexOf(ENDSTREAM, start);
      if (end === -1) break;
      const dictionary = i - dictionaryStart <= MAX_DICTIONARY_BYTES ? bytes.toString('latin1', dictionaryStart, i) : undefined;
      const content = contentOf(dictionary, bytes.subarray(start, Math.min(end, start + limits.maxStreamBytes)), limits, inflateBudget);
      inflateBudget -= content.inflated;
      if (content.bytes) {
        const text = textOfContent(content.bytes, rawBudget - chars);
        if (text.trim() !== '') {
          parts.push(text);
          chars += text.length;
        }
      }
      i = end + ENDSTREAM.length;
    } else i++;
  }
  return tidy(parts.join('\n')).slice(0, maxChars);
}

/** Where a stream's data starts when the dictionary ending at `at` is followed by `stream` and an end of line; else -1. */
function streamStart(bytes: Buffer, at: number): number {
  let j = at;
  while (j < bytes.length && isWhite(bytes[j] as number)) j++;
  if (bytes.compare(STREAM, 0, STREAM.length, j, j + STREAM.length) !== 0) return -1;
  j += STREAM.length;
  if (bytes[j] === 0x0d) j++;
  return bytes[j] === 0x0a ? j + 1 : -1;
}

/** The bytes to read of one stream (inflated when Flate), or none for pictures, fonts and other filters. */
function contentOf(dictionary: string | undefined, raw: Buffer, limits: PdfTextLimits, budget: number): { bytes?: Buffer; inflated: number } {
  if (dictionary === undefined || isNotPageContent(dictionary)) return { inflated: 0 };
  if (dictionary.includes('/FlateDecode')) {
    const cap = Math.min(limits.maxInflatedStreamBytes, budget);
    try {
      const bytes = inflateSync(raw, { maxOutputLength: cap });
      return { bytes, inflated: bytes.length };
    } catch {
      // Damaged, or past the cap: skipped, and counted in full so that many such streams still end.
      return { inflated: cap };
    }
  }
  if (dictionary.includes('/Filter')) return { inflated: 0 };
  return { bytes: raw, inflated: 0 };
}

/** Pictures, forms, embedded fonts, cross-reference and object streams. The dictionary is short (bounded above). */
function isNotPageContent(dictionary: string): boolean {
  return /\/Subtype\s*\/Image|\/Type\s*\/(?:XObject|XRef|ObjStm)|\/Length1/.test(dictionary);
}

/**
 * The strings shown in BT…ET blocks, with a line break for each line move (T*, Td, TD, ', ") and at
 * each block's end; TJ arrays read without their spacing numbers. At most `budget` characters.
 */
function textOfContent(content: Buffer, budget: number): string {
  let out = '';
  let inBlock = false;
  let arrayDepth = 0;
  let arrayText = '';
  /** The text of an array that has just closed, shown if TJ follows. */
  let pending: string | undefined;
  let i = 0;
  const n = content.length;
  while (i < n && out.length < budget) {
    const c = content[i] as number;
    if (isWhite(c)) {
      i++;
      continue;
    }
    if (c === 0x25 /* % */) {
      i = endOfLine(content, i);
      continue;
    }
    if (c === 0x28 /* ( */) {
      const keep = inBlock ? budget - out.length - arrayText.length : 0;
      const literal = readLiteral(content, i, keep);
      if (inBlock) {
        if (arrayDepth > 0) arrayText += literal.text;
        else out += literal.text;
      }
      i = literal.next;
      pending = undefined;
      continue;
    }
    if (c === 0x5b /* [ */) {
      if (arrayDepth++ === 0) arrayText = '';
      i++;
      pending = undefined;
      continue;
    }
    if (c === 0x5d /* ] */) {
      if (arrayDepth > 0 && --arrayDepth === 0) pending = arrayText;
      i++;
      continue;
    }
    if (c === 0x3c /* < */) {
      i = content[i + 1] === 0x3c ? i + 2 : skipHex(content, i);
      pending = undefined;
      continue;
    }
    if (isDelimiter(c)) {
      i++;
      pending = undefined;
      continue;
    }
    // A name (/F1) or a regular token: a number or an operator.
    let end = i + 1;
    while (end < n && !isWhite(content[end] as number) && !isDelimiter(content[end] as number)) end++;
    if (c !== 0x2f /* / */) {
      const op = end - i <= 2 ? content.toString('latin1', i, end) : '';
      if (op === 'BT') inBlock = true;
      else if (op === 'ET') {
        if (inBlock) out += '\n';
        inBlock = false;
      } else if (inBlock && (op === 'T*' || op === 'Td' || op === 'TD' || op === "'" || op === '"')) out += '\n';
      else if (inBlock && op === 'TJ' && pending !== undefined) out += pending;
      else if (op === 'ID') end = endOfInlineImage(content, end);
    }
    pending = undefined;
    i = end;
  }
  return out.slice(0, budget);
}

/**
 * A literal string from its `(` to its matching `)` (parentheses nest; escapes as PDF defines them),
 * its text cut at `keep` characters while the rest is skipped.
 */
function readLiteral(bytes: Buffer, at: number, keep: number): { text: string; next: number } {
  let text = '';
  let depth = 1;
  let i = at + 1;
  const n = bytes.length;
  const add = (s: string) => {
    if (text.length < keep) text += s;
  };
  while (i < n) {
    const c = bytes[i] as number;
    if (c === 0x5c /* \ */) {
      const e = bytes[i + 1];
      if (e === undefined) break;
      const escaped = ESCAPES.get(e);
      if (escaped !== undefined) {
        add(escaped);
        i += 2;
      } else if (e >= 0x30 && e <= 0x37) {
        let code = 0;
        let j = i + 1;
        while (j < i + 4 && j < n && (bytes[j] as number) >= 0x30 && (bytes[j] as number) <= 0x37) code = code * 8 + (bytes[j++] as number) - 0x30;
        add(String.fromCharCode(code));
        i = j;
      } else if (e === 0x0a) i += 2;
      else if (e === 0x0d && bytes[i + 2] === 0x0a) i += 3;
      else {
        // An escape PDF does not define: the backslash is kept, the next byte read as usual.
        add('\\');
        i++;
      }
      continue;
    }
    if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return { text, next: i + 1 };
    add(String.fromCharCode(c));
    i++;
  }
  return { text, next: n };
}

/** n r t b f ( ) \ after a backslash. */
const ESCAPES = new Map<number, string>([
  [0x6e, '\n'],
  [0x72, '\r'],
  [0x74, '\t'],
  [0x62, ''],
  [0x66, ''],
  [0x28, '('],
  [0x29, ')'],
  [0x5c, '\\'],
]);

function skipLiteral(bytes: Buffer, at: number): number {
  let depth = 1;
  for (let i = at + 1; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x5c) i++;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return bytes.length;
}

function skipHex(bytes: Buffer, at: number): number {
  const end = bytes.indexOf(0x3e, at + 1);
  return end === -1 ? bytes.length : end + 1;
}

function endOfLine(bytes: Buffer, at: number): number {
  for (let i = at; i < bytes.length; i++) if (bytes[i] === 0x0a || bytes[i] === 0x0d) return i + 1;
  return bytes.length;
}

/** After `ID`: the picture's bytes run to an `EI` between white space (or the end). */
function endOfInlineImage(bytes: Buffer, from: number): number {
  for (let i = from + 1; i + 1 < bytes.length; i++) {
    if (bytes[i] === 0x45 && bytes[i + 1] === 0x49 && isWhite(bytes[i - 1] as number) && (i + 2 === bytes.length || isWhite(bytes[i + 2] as number) || isDelimiter(bytes[i + 2] as number))) return i + 2;
  }
  return bytes.length;
}

function isWhite(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
}

function isDelimiter(c: number): boolean {
  return c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;
}

/**
 * Blanks before a line break removed, three or more line breaks made two, the ends trimmed: what
 * `.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim()` did, in one linear pass (the first
 * of those patterns is quadratic on a long run of blanks).
 */
export function tidy(text: string): string {
  let out = '';
  let blanksFrom = -1;
  let breaks = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      if (blanksFrom === -1) blanksFrom = i;
    } else if (c === 0x0a) {
      blanksFrom = -1;
      breaks++;
    } else {
      if (breaks > 0) out += breaks === 1 ? '\n' : '\n\n';
      if (blanksFrom !== -1) out += text.slice(blanksFrom, i);
      out += text[i];
      breaks = 0;
      blanksFrom = -1;
    }
  }
  if (breaks > 0) out += breaks === 1 ? '\n' : '\n\n';
  if (blanksFrom !== -1) out += text.slice(blanksFrom);
  return out.trim();
}
