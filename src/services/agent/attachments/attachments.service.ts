/**
 * Attachments (SPEC rule 11, "Attachment upload"): a row with the announced name, type and size; the
 * bytes by an upload URL that carries no credentials of the user (a presigned S3 PUT signing type and
 * length, or the gateway's own URL with a one-off token); `complete` checks them once and makes the
 * original immutable. Incomplete uploads expire 24 hours after creation; a completed original, a
 * temporary conversation reference, 3 days after completion, whatever reads it meanwhile.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { newBlobKey } from '../../../adapters/blob/blob-keys.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { BlobSizeError, type BlobStore } from '../../../ports/blob-store.port.ts';
import { type CpuPool, isInputTooCostly, isTaskError } from '../../../ports/cpu-pool.port.ts';
import type { AgentLibraryStore, AttachmentRow } from '../../../ports/agent-library-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { AttachmentBlock, ContentBlock } from '../conversations/message-input.ts';
import { ATTACHMENT_TYPES, checkUploadedFile, type FileFacts, poolError, TEXT_EXCERPT_CHARS } from './file-checks.ts';
import { checkMask, DecodeSlots, imageSize } from './mask-checks.ts';

/** The conversation id of playground uploads: no conversation has it (ids are conv_…). */
export const PLAYGROUND_SCOPE = 'playground';
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
export const UPLOAD_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const REFERENCE_LIFETIME_MS = 3 * 24 * 60 * 60 * 1000;
const CLEANUP_BATCH = 200;
/** Mask decodes running at once in a process (libuv has four threads; each decode holds up to 16 MiB). */
const MASK_DECODE_SLOTS = 2;
const NAME_MAX = 255;

/** A file name: 1 to 255 characters, without path separators or control characters. */
function isFileName(name: string): boolean {
  if (name.length < 1 || name.length > NAME_MAX || name.includes('/') || name.includes('\\')) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/mp4': 'm4a',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/aac': 'aac',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
  'application/json': 'json',
};

export interface AttachmentUpload {
  attachmentId: string;
  uploadUrl: string;
  uploadMethod: 'PUT';
  /** Send these with the bytes: the type (and the length, which HTTP clients add) are checked. */
  uploadHeaders: Record<string, string>;
  expiresAt: string;
  maxBytes: number;
}

export interface AttachmentView {
  attachmentId: string;
  conversationId: string;
  name: string;
  mime: string;
  sizeBytes: number;
  status: string;
  facts: FileFacts | null;
  sha256: string | null;
  createdAt: string;
  uploadExpiresAt: string;
  completedAt: string | null;
  expiresAt: string | null;
}

export interface AttachmentsDeps {
  store: AgentLibraryStore;
  uow: UnitOfWork;
  blobs: BlobStore;
  /** The gateway's public base URL (for its own upload URL). */
  publicBaseUrl: () => string;
  logger: Logger;
  /** The clock every expiry is measured by (tests move it forward). */
  now: () => number;
  /** Where uploaded files are checked and read, off the event loop. */
  cpu: CpuPool;
}

export class AttachmentsService {
  readonly #deps: AttachmentsDeps;
  readonly #decodes = new DecodeSlots(MASK_DECODE_SLOTS);

  constructor(deps: AttachmentsDeps) {
    this.#deps = deps;
  }

  async create(caller: AgentCaller, conversationId: string, body: unknown): Promise<AttachmentUpload> {
    const input = parseCreate(body);
    const conversation = await this.#deps.store.findConversation(this.#deps.uow.direct, ownerOf(caller), conversationId);
    if (!conversation) throw new AppError('not_found', 'conversation not found');
    return this.#announce(caller, conversation.id, input);
  }

  /**
   * A playground upload (a file for a media field of a generation): the same row, upload URL and
   * checks as an attachment, under the scope PLAYGROUND_SCOPE instead of a conversation.
   */
  async createForPlayground(caller: AgentCaller, body: unknown): Promise<AttachmentUpload> {
    return this.#announce(caller, PLAYGROUND_SCOPE, parseCreate(body));
  }

  /** Completes a playground upload (idempotent, as `complete`) and gives the public URL of its original. */
  async completeForPlayground(caller: AgentCaller, uploadId: string): Promise<AttachmentView & { url: string }> {
    const row = await this.#ownedPlayground(caller, uploadId);
    const done = await this.#complete(row, () => this.#ownedPlayground(caller, uploadId));
    return { ...present(done), url: this.#deps.blobs.publicUrl(done.blob_key) };
  }

  async #ownedPlayground(caller: AgentCaller, uploadId: string): Promise<AttachmentRow> {
    const row = await this.#deps.store.findOwnedScopedAttachment(this.#deps.uow.direct, ownerOf(caller), PLAYGROUND_SCOPE, uploadId);
    if (!row) throw new AppError('not_found', 'upload not found');
    return row;
  }

  async #announce(caller: AgentCaller, scope: string, input: { name: string; mime: string; sizeBytes: number }): Promise<AttachmentUpload> {
    const { store, uow, blobs } = this.#deps;
    const now = this.#deps.now();
    const id = newId('att', now);
    const token = randomBytes(24).toString('base64url');
    const row: AttachmentRow = {
      id,
      user_id: caller.userId,
      storefront: caller.storefront.id,
      conversation_id: scope,
      name: input.name,
      mime: input.mime,
      size_bytes: input.sizeBytes,
      status: 'pending',
      blob_key: newBlobKey(id, 0, EXTENSIONS[input.mime] ?? 'bin'),
      upload_token_hash: hashToken(token),
      facts_json: null,
      text_excerpt: null,
      sha256: null,
      created_at: now,
      upload_expires_at: now + UPLOAD_LIFETIME_MS,
      completed_at: null,
      expires_at: null,
    };
    await store.createAttachment(uow.direct, row);
    const presigned = await blobs.presignPut(row.blob_key, row.mime, row.size_bytes, Math.floor(UPLOAD_LIFETIME_MS / 1000));
    const uploadUrl = presigned ?? `${this.#deps.publicBaseUrl().replace(/\/+$/u, '')}/uploads/agent/${id}?token=${token}`;
    return {
      attachmentId: id,
      uploadUrl,
      uploadMethod: 'PUT',
      uploadHeaders: { 'content-type': row.mime },
      expiresAt: new Date(row.upload_expires_at).toISOString(),
      maxBytes: MAX_ATTACHMENT_BYTES,
    };
  }

  /**
   * The gateway's own upload URL: the token proves the URL, the announced type and length must be
   * the ones sent, and the bytes stream to storage (never whole in memory). Until completion a new
   * upload replaces the earlier one; a completed original is immutable.
   */
  async receiveUpload(attachmentId: string, token: string, headers: { contentType: string | undefined; contentLength: string | undefined }, body: Readable): Promise<void> {
    const row = await this.#deps.store.findAttachment(this.#deps.uow.direct, attachmentId);
    if (!row || !tokenMatches(token, row.upload_token_hash)) throw new AppError('not_found', 'no upload at this URL');
    if (row.status === 'completed') throw new AppError('attachment_immutable', 'this attachment is completed: its original cannot be replaced');
    if (row.status === 'expired' || this.#deps.now() >= row.upload_expires_at) throw new AppError('attachment_expired', 'this upload URL has expired; create a new attachment');
    const type = headers.contentType?.split(';')[0]?.trim().toLowerCase();
    if (type !== row.mime) throw invalidInput(`Content-Type must be ${row.mime}, as announced`, 'Content-Type');
    if (headers.contentLength === undefined) throw new AppError('invalid_input', `send Content-Length: ${row.size_bytes}`, { status: 411, param: 'Content-Length' });
    if (headers.contentLength !== String(row.size_bytes)) throw invalidInput(`Content-Length must be ${row.size_bytes}, as announced`, 'Content-Length');
    try {
      await this.#deps.blobs.putStream(row.blob_key, body, row.mime, row.size_bytes);
    } catch (error) {
      if (error instanceof BlobSizeError) throw invalidInput(`the upload sent ${error.message}`, 'body');
      throw error;
    }
  }

  /** Idempotent: a completed attachment answers as it is; a failed check keeps it pending for a new upload. */
  async complete(caller: AgentCaller, attachmentId: string): Promise<AttachmentView> {
    return present(await this.#complete(await this.#owned(caller, attachmentId), () => this.#owned(caller, attachmentId)));
  }

  async #complete(row: AttachmentRow, reread: () => Promise<AttachmentRow>): Promise<AttachmentRow> {
    const { store, uow, blobs } = this.#deps;
    if (row.status === 'completed') return row;
    if (row.status === 'expired' || this.#deps.now() >= row.upload_expires_at) throw new AppError('attachment_expired', 'the upload expired before it was completed; create a new attachment');
    const info = await blobs.stat(row.blob_key);
    if (!info) throw new AppError('attachment_not_uploaded', 'nothing was uploaded yet: PUT the bytes to the uploadUrl first');
    if (info.bytes !== row.size_bytes) throw new AppError('invalid_attachment', `the upload holds ${info.bytes} bytes, not the announced ${row.size_bytes}`, { param: 'sizeBytes' });
    const { bytes, sha256 } = await readUpload(blobs, row.blob_key, row.size_bytes);
    const check = await checkUploadedFile(bytes, row.mime, this.#deps.cpu);
    if (!check.ok) throw new AppError('invalid_attachment', check.error, { param: 'file' });
    // The original moves to a key no upload URL can write (a presigned PUT stays valid until it
    // expires), which is what makes it immutable; the upload's key is then removed.
    const original = newBlobKey(row.id, 1, EXTENSIONS[row.mime] ?? 'bin');
    await blobs.put(original, bytes, row.mime);
    const now = this.#deps.now();
    const fields = {
      blob_key: original,
      facts_json: JSON.stringify(check.facts),
      text_excerpt: check.text ?? null,
      sha256,
      completed_at: now,
      expires_at: now + REFERENCE_LIFETIME_MS,
    };
    if (await store.completeAttachment(uow.direct, row.id, fields)) await blobs.delete(row.blob_key).catch(() => undefined);
    else await blobs.delete(original).catch(() => undefined);
    return reread();
  }

  /**
   * The files of a message (rule 11): each a completed, unexpired original of this conversation; a
   * mask a black-and-white PNG of its original's size, the original an image of this message or an
   * artifact of this conversation. Refused with 400 naming the block, before anything is written.
   */
  async checkForMessage(conversationId: string, content: ContentBlock[]): Promise<void> {
    const { store, uow } = this.#deps;
    const blocks = content.flatMap((block, index) => (block.type === 'attachment' ? [{ block, index }] : []));
    if (blocks.length === 0) return;
    const rows = new Map((await store.listAttachments(uow.direct, conversationId, blocks.map((b) => b.block.attachmentId))).map((r) => [r.id, r]));
    const now = this.#deps.now();
    for (const { block, index } of blocks) {
      const field = `content[${index}].attachmentId`;
      const row = rows.get(block.attachmentId);
      if (!row) throw invalidInput(`${block.attachmentId} is not an attachment of this conversation`, field);
      if (row.status === 'pending') throw invalidInput(`${block.attachmentId} is not completed: POST /agent/attachments/${row.id}/complete first`, field);
      if (row.status === 'expired' || (row.expires_at !== null && row.expires_at <= now)) throw new AppError('attachment_expired', `${block.attachmentId} has expired (attachments are kept 3 days after completion)`, { param: field });
    }
    for (const { block, index } of blocks) {
      if (block.maskFor) await this.#checkMask(conversationId, block, index, rows);
    }
  }

  async #checkMask(conversationId: string, block: AttachmentBlock, index: number, rows: Map<string, AttachmentRow>): Promise<void> {
    const field = `content[${index}].maskFor`;
    const mask = rows.get(block.attachmentId);
    const target = block.maskFor;
    if (!mask || !target) return;
    if (mask.mime !== 'image/png') throw invalidInput('a mask must be a PNG attachment', `content[${index}].attachmentId`);
    let original: { width: number; height: number } | undefined;
    if (target.type === 'attachment') {
      const row = rows.get(target.id);
      if (!row || target.id === block.attachmentId) throw invalidInput(`the original ${target.id} must be another attachment of the same message`, `${field}.id`);
      const facts = row.facts_json === null ? undefined : (JSON.parse(row.facts_json) as FileFacts);
      if (facts?.kind !== 'image' || facts.width === undefined || facts.height === undefined) throw invalidInput(`the original ${target.id} is not an image`, `${field}.id`);
      original = { width: facts.width, height: facts.height };
    } else {
      const [artifact] = await this.#deps.store.listConversationArtifacts(this.#deps.uow.direct, conversationId, [target.id]);
      if (artifact?.file_type !== 'image') throw invalidInput(`the original ${target.id} is not an image artifact of this conversation`, `${field}.id`);
      if (artifact.expires_at !== null && Number(artifact.expires_at) <= this.#deps.now()) throw new AppError('attachment_expired', `the original ${target.id} has expired`, { param: `${field}.id` });
      original = await imageSize(await readBlob(this.#deps.blobs, artifact.blob_key));
      if (!original) throw invalidInput(`the original ${target.id} has no readable size`, `${field}.id`);
    }
    let verdict: Awaited<ReturnType<typeof checkMask>>;
    try {
      verdict = await checkMask(await readBlob(this.#deps.blobs, mask.blob_key), original, { cpu: this.#deps.cpu, decodes: this.#decodes });
    } catch (error) {
      throw poolError(error);
    }
    if (!verdict.ok) throw new AppError('invalid_attachment', verdict.error ?? 'the mask was refused', { param: `content[${index}].attachmentId` });
  }

  /** The completed originals of a message's blocks, in order (expired ones left out). */
  async forBlocks(conversationId: string, content: ContentBlock[]): Promise<Array<{ block: AttachmentBlock; row: AttachmentRow; facts: FileFacts | null }>> {
    const blocks = content.filter((b): b is AttachmentBlock => b.type === 'attachment');
    const rows = new Map((await this.#deps.store.listAttachments(this.#deps.uow.direct, conversationId, blocks.map((b) => b.attachmentId))).map((r) => [r.id, r]));
    return blocks.flatMap((block) => {
      const row = rows.get(block.attachmentId);
      if (row?.status !== 'completed') return [];
      return [{ block, row, facts: row.facts_json === null ? null : (JSON.parse(row.facts_json) as FileFacts) }];
    });
  }

  /** The public URL of a completed, unexpired image original of this conversation, for a generation's references. */
  async referenceUrl(conversationId: string, attachmentId: string): Promise<{ ok: true; url: string } | { ok: false; error: string }> {
    const [row] = await this.#deps.store.listAttachments(this.#deps.uow.direct, conversationId, [attachmentId]);
    if (!row) return { ok: false, error: `${attachmentId} is not an attachment of this conversation` };
    if (row.status !== 'completed' || (row.expires_at !== null && row.expires_at <= this.#deps.now())) return { ok: false, error: `${attachmentId} has expired (attachments are kept 3 days)` };
    if (!row.mime.startsWith('image/')) return { ok: false, error: `${attachmentId} is ${row.mime}, not an image` };
    return { ok: true, url: this.#deps.blobs.publicUrl(row.blob_key) };
  }

  /** The bytes of a completed original (a picture to analyse). */
  async bytesOf(row: AttachmentRow): Promise<Buffer> {
    return readBlob(this.#deps.blobs, row.blob_key);
  }

  /**
   * What a run reads of a completed text or PDF original (at most TEXT_EXCERPT_CHARS): taken once
   * when it was completed. An original completed before that was kept is read once more, in the CPU
   * pool, and kept then; one too costly to read keeps an empty text (nothing read, said so).
   */
  async textOf(row: AttachmentRow): Promise<string> {
    if (row.text_excerpt !== null) return row.text_excerpt;
    const bytes = await readBlob(this.#deps.blobs, row.blob_key);
    let text = '';
    try {
      const read = row.mime === 'application/pdf' ? await this.#deps.cpu.run('inspectPdf', { bytes, maxChars: TEXT_EXCERPT_CHARS }) : await this.#deps.cpu.run('inspectText', { bytes, json: false, maxChars: TEXT_EXCERPT_CHARS });
      if (read.ok) text = read.text;
    } catch (error) {
      if (!isTaskError(error) || error.reason === 'crashed') throw error;
      // Busy or closing now: nothing is kept, the next step reads it again.
      if (!isInputTooCostly(error)) return '';
    }
    await this.#deps.store.setAttachmentText(this.#deps.uow.direct, row.id, text);
    return text;
  }

  async view(caller: AgentCaller, attachmentId: string): Promise<AttachmentView> {
    return present(await this.#owned(caller, attachmentId));
  }

  /**
   * Removes what has expired: the row moves to `expired` first (a completion racing this loses or
   * wins whole), then its bytes are deleted.
   */
  async cleanup(): Promise<number> {
    const { store, uow, blobs, logger } = this.#deps;
    let removed = 0;
    for (const row of await store.listExpiredAttachments(uow.direct, this.#deps.now(), CLEANUP_BATCH)) {
      if (row.status === 'expired' || !(await store.expireAttachment(uow.direct, row.id, row.status))) continue;
      await blobs.delete(row.blob_key).catch((error: unknown) => logger.warn({ err: error, attachmentId: row.id }, 'could not delete an expired attachment\'s bytes'));
      removed += 1;
    }
    return removed;
  }

  async #owned(caller: AgentCaller, attachmentId: string): Promise<AttachmentRow> {
    const row = await this.#deps.store.findOwnedAttachment(this.#deps.uow.direct, ownerOf(caller), attachmentId);
    if (!row) throw new AppError('not_found', 'attachment not found');
    return row;
  }
}

function parseCreate(body: unknown): { name: string; mime: string; sizeBytes: number } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be a JSON object with name, mime and sizeBytes', 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!['name', 'mime', 'sizeBytes'].includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: name, mime, sizeBytes`, key.slice(0, 80));
  const { name, mime, sizeBytes } = fields;
  if (typeof name !== 'string' || !isFileName(name)) throw invalidInput('name must be a file name of 1 to 255 characters, without / \\ or control characters', 'name');
  if (typeof mime !== 'string' || ATTACHMENT_TYPES[mime.toLowerCase()] === undefined) throw invalidInput(`mime must be one of ${Object.keys(ATTACHMENT_TYPES).join(', ')}`, 'mime');
  if (typeof sizeBytes !== 'number' || !Number.isSafeInteger(sizeBytes) || sizeBytes < 1) throw invalidInput('sizeBytes must be a whole number of bytes, at least 1', 'sizeBytes');
  if (sizeBytes > MAX_ATTACHMENT_BYTES) throw new AppError('payload_too_large', `an attachment is at most ${MAX_ATTACHMENT_BYTES} bytes (25 MiB)`, { status: 400, param: 'sizeBytes' });
  return { name, mime: mime.toLowerCase(), sizeBytes };
}

export function present(row: AttachmentRow): AttachmentView {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    attachmentId: row.id,
    conversationId: row.conversation_id,
    name: row.name,
    mime: row.mime,
    sizeBytes: row.size_bytes,
    status: row.status,
    facts: row.facts_json === null ? null : (JSON.parse(row.facts_json) as FileFacts),
    sha256: row.sha256,
    createdAt: new Date(row.created_at).toISOString(),
    uploadExpiresAt: new Date(row.upload_expires_at).toISOString(),
    completedAt: iso(row.completed_at),
    expiresAt: iso(row.expires_at),
  };
}

/**
 * An upload of a known size read whole, hashed as it arrives: each chunk is copied and hashed in its
 * own turn of the event loop (concatenating and hashing 25 MiB at the end held the loop 30 ms).
 */
async function readUpload(blobs: BlobStore, key: string, size: number): Promise<{ bytes: Buffer; sha256: string }> {
  const blob = await blobs.get(key);
  if (!blob) throw new AppError('attachment_not_uploaded', 'nothing was uploaded yet: PUT the bytes to the uploadUrl first');
  const bytes = Buffer.allocUnsafeSlow(size);
  const hash = createHash('sha256');
  let at = 0;
  for await (const chunk of blob.body) {
    const piece = chunk as Buffer;
    if (at + piece.length > size) throw new AppError('invalid_attachment', 'the upload changed while it was checked; complete it again', { param: 'file' });
    piece.copy(bytes, at);
    hash.update(piece);
    at += piece.length;
  }
  if (at !== size) throw new AppError('invalid_attachment', 'the upload changed while it was checked; complete it again', { param: 'file' });
  return { bytes, sha256: hash.digest('hex') };
}

async function readBlob(blobs: BlobStore, key: string): Promise<Buffer> {
  const blob = await blobs.get(key);
  if (!blob) throw new AppError('attachment_not_uploaded', 'nothing was uploaded yet: PUT the bytes to the uploadUrl first');
  const chunks: Buffer[] = [];
  for await (const chunk of blob.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function tokenMatches(token: string, hash: string): boolean {
  const given = Buffer.from(hashToken(token), 'hex');
  const stored = Buffer.from(hash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
