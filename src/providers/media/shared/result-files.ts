/** Turning an upstream's result URLs into `UpstreamFile`s of the right type. */
import type { OutputSpec } from '../../../domain/catalog/catalog.types.ts';
import type { ResultFileType, UpstreamFile } from '../media-provider.ts';

const BY_EXTENSION: Readonly<Record<string, ResultFileType>> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  webp: 'image',
  gif: 'image',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  mp3: 'music',
  wav: 'music',
  m4a: 'music',
  flac: 'music',
  ogg: 'music',
};

/** The type of a file from its declared content type or its URL's extension. */
export function guessFileType(url: string | undefined, contentType?: string): ResultFileType | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type?.startsWith('image/')) return 'image';
  if (type?.startsWith('video/')) return 'video';
  if (type?.startsWith('audio/')) return 'music';
  if (!url) return undefined;
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not absolute: use as is
  }
  const ext = /\.([a-z0-9]{2,5})$/iu.exec(path)?.[1]?.toLowerCase();
  return ext ? BY_EXTENSION[ext] : undefined;
}

/** What the request was expected to produce, as a file type. */
export function expectedFileType(spec: OutputSpec): ResultFileType {
  switch (spec.kind) {
    case 'image':
      return 'image';
    case 'video':
      return 'video';
    case 'audio':
      return 'music';
    case 'data':
      return 'image';
  }
}

/** A URL result: its type from the URL when it tells, else what the request expected. */
export function urlFile(url: string, spec: OutputSpec, contentType?: string): UpstreamFile {
  const fileType = guessFileType(url, contentType) ?? expectedFileType(spec);
  return contentType ? { fileType, url, contentType } : { fileType, url };
}

export function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\//iu.test(value);
}
