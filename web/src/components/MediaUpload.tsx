import { useState } from 'react';
import { errorMessage, requestData } from '../api/client.ts';
import { typeOf } from '../pages/agent/useUploads.ts';

interface UploadSlot {
  attachmentId: string;
  uploadUrl: string;
}

const ACCEPT: Record<string, string> = {
  image: 'image/png,image/jpeg,image/webp,image/gif',
  video: 'video/mp4,video/quicktime,video/webm',
  audio: 'audio/mpeg,audio/wav,audio/mp4,audio/ogg,audio/flac,audio/aac,.mp3,.wav,.m4a,.ogg,.flac,.aac',
};

/**
 * A file from disk for a media field (issue 21, item 16): announced, PUT to its upload URL, checked
 * by the gateway, and then the field holds the gateway file URL the model receives.
 */
export function MediaUpload(props: { id: string; label: string; mediaKind: string | undefined; onUploaded: (url: string, uploadId: string) => void }) {
  const [state, setState] = useState<{ busy: boolean; error?: string; name?: string }>({ busy: false });

  async function upload(file: File): Promise<void> {
    const mime = typeOf(file);
    setState({ busy: true, name: file.name });
    try {
      const slot = await requestData<UploadSlot>('POST', '/api/v1/playground/uploads', { body: { name: file.name, mime, sizeBytes: file.size } });
      const put = await fetch(slot.uploadUrl, { method: 'PUT', headers: { 'content-type': mime }, body: file, credentials: 'omit' });
      if (!put.ok) throw new Error(`the upload was refused (${put.status}) ${(await put.text()).slice(0, 200)}`);
      const done = await requestData<{ url: string }>('POST', `/api/v1/playground/uploads/${encodeURIComponent(slot.attachmentId)}/complete`);
      props.onUploaded(done.url, slot.attachmentId);
      setState({ busy: false, name: file.name });
    } catch (error) {
      setState({ busy: false, error: errorMessage(error) });
    }
  }

  return (
    <span className="media-upload">
      <label className="button button-small" htmlFor={props.id}>
        {state.busy ? `Uploading ${state.name ?? ''}…` : 'Upload from disk'}
      </label>
      <input
        id={props.id}
        className="visually-hidden"
        type="file"
        aria-label={`Upload a file for ${props.label}`}
        accept={ACCEPT[props.mediaKind ?? ''] ?? undefined}
        disabled={state.busy}
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void upload(file);
        }}
      />
      {state.error ? (
        <span className="field-error" role="alert">
          {state.error}
        </span>
      ) : null}
    </span>
  );
}
