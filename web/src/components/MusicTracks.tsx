import type { ReactNode } from 'react';
import type { MediaFile } from '../api/index.ts';
import { Link } from '../router.tsx';
import { CopyButton } from './common.tsx';

interface Track {
  audioId?: string;
  title?: string;
  duration?: number;
  lyrics?: string | null;
  tags?: string | null;
  coverImageUrls?: string[];
}

function duration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A music result named by its song: the distinct titles of its tracks (as the generations list names it), or undefined. */
export function songTitleOf(output: Record<string, unknown> | null): string | undefined {
  const tracks = Array.isArray(output?.tracks) ? (output.tracks as Track[]) : [];
  const titles = [...new Set(tracks.map((t) => (typeof t.title === 'string' ? t.title.trim() : '')).filter((t) => t !== ''))];
  return titles.length > 0 ? titles.join(' / ') : undefined;
}

function tracksOf(output: Record<string, unknown> | null): Track[] {
  return Array.isArray(output?.tracks) ? (output.tracks as Track[]) : [];
}

/**
 * Which file plays which track: the result's audio files are stored in the order of its tracks, so
 * the n-th audio file is the n-th track's. Answers the file's position in `files` (for Keep).
 */
function audioOfTracks(tracks: Track[], files: MediaFile[]): Array<{ file: MediaFile; index: number } | undefined> {
  const audio = files.map((file, index) => ({ file, index })).filter((f) => f.file.fileType === 'music');
  return tracks.map((_, i) => audio[i]);
}

/**
 * The files a result shows outside its track cards: all of them for a result without tracks;
 * otherwise those no card plays and that are not a card's cover.
 */
export function filesOutsideTracks(output: Record<string, unknown> | null, files: MediaFile[]): MediaFile[] {
  const tracks = tracksOf(output);
  if (tracks.length === 0) return files;
  const inCards = new Set<string>();
  for (const entry of audioOfTracks(tracks, files)) if (entry) inCards.add(entry.file.fileUrl);
  for (const track of tracks) for (const url of track.coverImageUrls ?? []) inCards.add(url);
  return files.filter((f) => !inCards.has(f.fileUrl));
}

/**
 * The tracks of a music result, one card each: cover, title, duration and tags, the player and its
 * download, lyrics, and the ids to extend or cover it. `extra` adds per-file controls (Keep).
 */
export function MusicTracks(props: { taskId: string; model: string; output: Record<string, unknown> | null; files: MediaFile[]; extra?: (outputIndex: number) => ReactNode }) {
  const tracks = tracksOf(props.output);
  if (tracks.length === 0) return null;
  const audio = audioOfTracks(tracks, props.files);
  // Extend continues from the track's last whole second: a value the upstream takes (below its length).
  const continueAt = (track: Track) => (track.duration !== undefined && Number.isFinite(track.duration) && track.duration > 1 ? `&continueAt=${Math.floor(track.duration - 1)}` : '');
  const follow = (action: string, track: Track) =>
    `/playground?model=${encodeURIComponent(props.model)}&action=${action}&sourceTaskId=${encodeURIComponent(props.taskId)}${track.audioId ? `&audioId=${encodeURIComponent(track.audioId)}` : ''}${action === 'extend' ? continueAt(track) : ''}`;
  return (
    <ul className="tracks" aria-label="Tracks">
      {tracks.map((track, i) => (
        <li key={track.audioId ?? i} className="track" data-testid="music-track">
          {track.coverImageUrls?.[0] ? <img className="track-cover" src={track.coverImageUrls[0]} alt={`Cover of ${track.title ?? `track ${i + 1}`}`} /> : null}
          <div className="track-body">
            <h3 className="track-title">{track.title || `Track ${i + 1}`}</h3>
            <p className="small">
              <span data-testid="track-duration">{duration(track.duration)}</span>
              {track.tags ? <span className="muted"> · {track.tags}</span> : null}
            </p>
            {audio[i] ? (
              <div className="track-player">
                {/* biome-ignore lint/a11y/useMediaCaption: generated music comes without captions. */}
                <audio src={audio[i].file.fileUrl} controls preload="metadata" aria-label={`Play ${track.title || `track ${i + 1}`}`} />
                <p className="small">
                  <a href={audio[i].file.fileUrl} download target="_blank" rel="noreferrer">
                    Download {track.title || `track ${i + 1}`}
                  </a>
                </p>
                {props.extra?.(audio[i].index)}
              </div>
            ) : null}
            {track.audioId ? (
              <p className="small">
                Track id <code data-testid="track-id">{track.audioId}</code> <CopyButton text={track.audioId} label="Copy track id" />
              </p>
            ) : null}
            <p className="small">
              <Link to={follow('extend', track)}>Extend</Link> · <Link to={follow('music-cover', track)}>Cover</Link>
            </p>
            {track.lyrics ? (
              <details>
                <summary>Lyrics</summary>
                <pre className="lyrics">{track.lyrics}</pre>
              </details>
            ) : null}
          </div>
        </li>
      ))}
    </ul>
  );
}
