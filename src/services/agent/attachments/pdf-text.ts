/**
 * Free local text extraction from a PDF (SPEC rule 11: "local text extraction is free"): the text
 * shown by the page content streams' text operators (Tj, TJ, ', "), with Flate-compressed streams
 * inflated. It reads the PDFs most tools write with standard encodings; a PDF whose text is in
 * embedded fonts with custom encodings, or only scanned pictures, yields little or nothing, and the
 * agent says so instead of guessing.
 */
import { inflateSync } from 'node:zlib';

const MAX_STREAM_BYTES = 8 * 1024 * 1024;

export function extractPdfText(pdf: Buffer, maxChars: number): string {
  const source = pdf.toString('latin1');
  const parts: string[] = [];
  let chars = 0;
  const streams = /<<((?:(?!>>\s*stream)[\s\S]){0,2000})>>\s*stream\r?\n/g;
  for (let match = streams.exec(source); match !== null && chars < maxChars; match = streams.exec(source)) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    if (end === -1) break;
    const dictionary = match[1] ?? '';
    if (/\/Subtype\s*\/Image|\/Type\s*\/XObject|\/Length1/.test(dictionary)) continue;
    let content = pdf.subarray(start, Math.min(end, start + MAX_STREAM_BYTES));
    if (/\/FlateDecode/.test(dictionary)) {
      try {
        content = inflateSync(content);
      } catch {
        continue;
      }
    } else if (/\/Filter/.test(dictionary)) continue;
    const text = textOfContent(content.toString('latin1'));
    if (text.trim() === '') continue;
    parts.push(text);
    chars += text.length;
  }
  return parts.join('\n').replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim().slice(0, maxChars);
}

/** The strings of BT…ET blocks, with a line break for each line move and a space between pieces. */
function textOfContent(content: string): string {
  let out = '';
  const blocks = /BT([\s\S]*?)ET/g;
  for (let block = blocks.exec(content); block !== null; block = blocks.exec(content)) {
    const body = block[1] ?? '';
    const tokens = /\((?:\\[\s\S]|[^\\)])*\)|\[[^\]]*\]\s*TJ|T\*|Td|TD|'|"/g;
    for (let token = tokens.exec(body); token !== null; token = tokens.exec(body)) {
      const value = token[0];
      if (value === 'T*' || value === 'Td' || value === 'TD' || value === "'" || value === '"') out += '\n';
      else if (value.startsWith('[')) {
        for (const piece of value.match(/\((?:\\[\s\S]|[^\\)])*\)/g) ?? []) out += decodePdfString(piece.slice(1, -1));
      } else out += decodePdfString(value.slice(1, -1));
    }
    out += '\n';
  }
  return out;
}

function decodePdfString(raw: string): string {
  return raw.replace(/\\([nrtbf()\\]|[0-7]{1,3}|\r?\n)/g, (_all, code: string) => {
    switch (code) {
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'b':
      case 'f':
        return '';
      case '(':
      case ')':
      case '\\':
        return code;
      default:
        return /^[0-7]+$/.test(code) ? String.fromCharCode(Number.parseInt(code, 8)) : '';
    }
  });
}
