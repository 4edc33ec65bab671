/**
 * What an uploaded original is, checked when the upload is completed (SPEC "Attachment upload"): the
 * magic bytes must be those of the announced type, and the file must decode (pictures fully decoded,
 * sound and video measured, a PDF's structure found, text valid UTF-8, JSON parsed). Nothing here
 * trusts the name or the announced type alone.
 */
import { isMediaProbeError, probeMedia } from '../../../adapters/media/probe-media.ts';
import { CONTENT_TYPES, type MediaKind } from '../../../adapters/media/media-format.ts';

export type AttachmentKind = 'image' | 'video' | 'audio' | 'pdf' | 'text';

/** The types an attachment may have, with what it holds. */
export const ATTACHMENT_TYPES: Readonly<Record<string, AttachmentKind>> = {
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/webp': 'image',
  'image/gif': 'image',
  'video/mp4': 'video',
  'video/quicktime': 'video',
  'video/webm': 'video',
  'audio/mpeg': 'audio',
  'audio/wav': 'audio',
  'audio/mp4': 'audio',
  'audio/ogg': 'audio',
  'audio/flac': 'audio',
  'audio/aac': 'audio',
  'application/pdf': 'pdf',
  'text/plain': 'text',
  'text/markdown': 'text',
  'text/csv': 'text',
  'application/json': 'text',
};

export interface FileFacts {
  kind: AttachmentKind;
  format: string;
  width?: number;
  height?: number;
  durationS?: number;
  pages?: number;
  /** Characters of a text file. */
  chars?: number;
}

export type FileCheck = { ok: true; facts: FileFacts } | { ok: false; error: string };

const PDF_TAIL_BYTES = 2048;

export async function checkUploadedFile(bytes: Buffer, mime: string): Promise<FileCheck> {
  const kind = ATTACHMENT_TYPES[mime];
  if (!kind) return { ok: false, error: `${mime} is not an accepted attachment type` };
  if (bytes.length === 0) return { ok: false, error: 'the file is empty' };
  switch (kind) {
    case 'image':
    case 'video':
    case 'audio':
      return checkMedia(bytes, mime, kind);
    case 'pdf':
      return checkPdf(bytes);
    case 'text':
      return checkText(bytes, mime);
  }
}

async function checkMedia(bytes: Buffer, mime: string, kind: MediaKind): Promise<FileCheck> {
  try {
    const probe = await probeMedia(bytes, { kind });
    if (CONTENT_TYPES[probe.format] !== mime) return { ok: false, error: `the file is ${CONTENT_TYPES[probe.format]} (${probe.format}), not ${mime} as announced` };
    const facts: FileFacts = { kind, format: probe.format };
    if (probe.width !== undefined) facts.width = probe.width;
    if (probe.height !== undefined) facts.height = probe.height;
    if (probe.durationS !== undefined) facts.durationS = Math.round(probe.durationS * 1000) / 1000;
    return { ok: true, facts };
  } catch (error) {
    if (isMediaProbeError(error)) return { ok: false, error: `the file is not a readable ${kind} of type ${mime}: ${error.message}` };
    throw error;
  }
}

/** A PDF header, an end-of-file marker, a cross-reference and at least one page object. */
function checkPdf(bytes: Buffer): FileCheck {
  if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) return { ok: false, error: 'the file does not start like a PDF (%PDF-)' };
  const tail = bytes.subarray(Math.max(0, bytes.length - PDF_TAIL_BYTES)).toString('latin1');
  if (!tail.includes('%%EOF')) return { ok: false, error: 'the PDF is cut off (no %%EOF at its end)' };
  if (!tail.includes('startxref')) return { ok: false, error: 'the PDF has no cross-reference (startxref)' };
  const body = bytes.toString('latin1');
  const pages = body.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  if (pages === 0 && !/\/Type\s*\/ObjStm/.test(body)) return { ok: false, error: 'the PDF holds no page' };
  return { ok: true, facts: { kind: 'pdf', format: 'pdf', ...(pages > 0 ? { pages } : {}) } };
}

function checkText(bytes: Buffer, mime: string): FileCheck {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: 'the file is not valid UTF-8 text' };
  }
  if (text.includes('\u0000')) return { ok: false, error: 'the file holds NUL bytes: it is not text' };
  if (mime === 'application/json') {
    try {
      JSON.parse(text);
    } catch (error) {
      return { ok: false, error: `the file is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  return { ok: true, facts: { kind: 'text', format: mime.split('/')[1] ?? 'plain', chars: text.length } };
}
