/**
 * What an uploaded original is, checked when the upload is completed (SPEC "Attachment upload"): the
 * magic bytes must be those of the announced type, and the file must decode (pictures fully decoded,
 * sound and video measured, a PDF's structure found, text valid UTF-8, JSON parsed). Nothing here
 * trusts the name or the announced type alone.
 *
 * PDF and text files are read in the CPU pool (they can be 25 MiB of anything), and the text a run
 * will read of them is taken there once, kept with the attachment instead of read at every step.
 */
import { isMediaProbeError, probeMedia } from '../../../adapters/media/probe-media.ts';
import { CONTENT_TYPES, type MediaKind } from '../../../domain/files/media-format.ts';
import { AppError } from '../../../domain/errors.ts';
import { type CpuPool, isInputTooCostly, isTaskError } from '../../../ports/cpu-pool.port.ts';

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

/** `text`: what a run reads of a PDF or text file (at most TEXT_EXCERPT_CHARS), kept with the attachment. */
export type FileCheck = { ok: true; facts: FileFacts; text?: string } | { ok: false; error: string };

/** The most a run reads of one file (request-files.ts), so the most kept of it. */
export const TEXT_EXCERPT_CHARS = 20_000;

export async function checkUploadedFile(bytes: Buffer, mime: string, cpu: CpuPool): Promise<FileCheck> {
  const kind = ATTACHMENT_TYPES[mime];
  if (!kind) return { ok: false, error: `${mime} is not an accepted attachment type` };
  if (bytes.length === 0) return { ok: false, error: 'the file is empty' };
  switch (kind) {
    case 'image':
    case 'video':
    case 'audio':
      return checkMedia(bytes, mime, kind);
    case 'pdf':
    case 'text':
      return checkInPool(bytes, mime, kind, cpu);
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

/** A PDF's header, end, cross-reference and pages; text: UTF-8, no NUL, JSON syntax. Then the text a run reads. */
async function checkInPool(bytes: Buffer, mime: string, kind: 'pdf' | 'text', cpu: CpuPool): Promise<FileCheck> {
  try {
    if (kind === 'pdf') {
      const pdf = await cpu.run('inspectPdf', { bytes, maxChars: TEXT_EXCERPT_CHARS });
      if (!pdf.ok) return pdf;
      return { ok: true, facts: { kind: 'pdf', format: 'pdf', ...(pdf.pages !== undefined ? { pages: pdf.pages } : {}) }, text: pdf.text };
    }
    const text = await cpu.run('inspectText', { bytes, json: mime === 'application/json', maxChars: TEXT_EXCERPT_CHARS });
    if (!text.ok) return text;
    return { ok: true, facts: { kind: 'text', format: mime.split('/')[1] ?? 'plain', chars: text.chars }, text: text.text };
  } catch (error) {
    if (isInputTooCostly(error)) return { ok: false, error: `the file is too costly to check (${error.reason === 'deadline' ? 'it took too long' : 'it needed too much memory'})` };
    throw poolError(error);
  }
}

/** The pool could not take the task now: a 503 to retry, the upload kept for it. */
export function poolError(error: unknown): unknown {
  if (isTaskError(error) && (error.reason === 'busy' || error.reason === 'closed')) {
    return new AppError('service_unavailable', 'the server is busy checking other files; try again shortly', { retryAfter: 1, cause: error });
  }
  return error;
}
