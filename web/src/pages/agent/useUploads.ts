import { useCallback, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { AttachmentSlot } from '../../api/index.ts';

/** A file on its way to becoming an attachment of the next message. */
export interface Upload {
  key: string;
  name: string;
  mime: string;
  /** For image previews and mask painting. */
  previewUrl: string | undefined;
  status: 'uploading' | 'ready' | 'failed';
  /** 0 to 1 while the bytes go up. */
  progress: number;
  attachmentId?: string;
  error?: string;
  /** A mask: the key of the upload it edits. */
  maskFor?: string;
  /** What the agent does with the file (SPEC: the attachment block's usageIntent); a mask has none. */
  usageIntent: UsageIntent;
}

export const USAGE_INTENTS = ['auto', 'analyze', 'reference', 'both'] as const;
export type UsageIntent = (typeof USAGE_INTENTS)[number];

/** The choices offered for a file, in words. */
export const USAGE_INTENT_LABELS: Record<UsageIntent, string> = {
  auto: 'Let the agent decide',
  analyze: 'Read or look at it',
  reference: 'Use it as a reference',
  both: 'Both',
};

const TYPES_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
};

export function typeOf(file: File): string {
  const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
  return TYPES_BY_EXTENSION[extension] ?? (file.type || 'application/octet-stream');
}

/** PUT with upload progress (fetch cannot report it): the bytes only, no credentials. */
function putWithProgress(url: string, file: Blob, contentType: string, onProgress: (share: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.withCredentials = false;
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`the upload was refused (${xhr.status}) ${xhr.responseText.slice(0, 200)}`)));
    xhr.onerror = () => reject(new Error('the upload failed: the connection was lost'));
    xhr.send(file);
  });
}

/**
 * The attachments of the message being written: each file is announced, its bytes PUT to the upload
 * URL with progress, then completed (checked by the gateway); a mask painted on an image is uploaded
 * the same way and sent with `maskFor`.
 */
export function useUploads(conversationId: string) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const update = useCallback((key: string, change: Partial<Upload>) => setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u))), []);

  const add = useCallback(
    async (file: Blob, name: string, mime: string, maskFor?: string) => {
      const key = crypto.randomUUID();
      const previewUrl = mime.startsWith('image/') ? URL.createObjectURL(file) : undefined;
      setUploads((all) => [...all, { key, name, mime, previewUrl, status: 'uploading', progress: 0, usageIntent: 'auto', ...(maskFor ? { maskFor } : {}) }]);
      try {
        const created = await requestData<AttachmentSlot>('POST', `/api/v1/agent/conversations/${encodeURIComponent(conversationId)}/attachments`, {
          body: { name, mime, sizeBytes: file.size },
        });
        await putWithProgress(created.uploadUrl, file, mime, (progress) => update(key, { progress }));
        await requestData('POST', `/api/v1/agent/attachments/${encodeURIComponent(created.attachmentId)}/complete`);
        update(key, { status: 'ready', progress: 1, attachmentId: created.attachmentId });
      } catch (error) {
        update(key, { status: 'failed', error: errorMessage(error) });
      }
    },
    [conversationId, update],
  );

  const setIntent = useCallback((key: string, usageIntent: UsageIntent) => update(key, { usageIntent }), [update]);
  const remove = useCallback((key: string) => setUploads((all) => all.filter((u) => u.key !== key && u.maskFor !== key)), []);
  const clear = useCallback(() => setUploads([]), []);

  /** The message's attachment blocks: ready files, masks after their originals. */
  const blocks = uploads.flatMap((u) => {
    if (u.status !== 'ready' || !u.attachmentId) return [];
    const original = u.maskFor ? uploads.find((o) => o.key === u.maskFor) : undefined;
    if (u.maskFor && !original?.attachmentId) return [];
    return [
      {
        type: 'attachment',
        attachmentId: u.attachmentId,
        ...(original?.attachmentId ? { maskFor: { type: 'attachment', id: original.attachmentId } } : {}),
        ...(!u.maskFor && u.usageIntent !== 'auto' ? { usageIntent: u.usageIntent } : {}),
      },
    ];
  });

  return { uploads, add, remove, setIntent, clear, blocks, busy: uploads.some((u) => u.status === 'uploading') };
}
