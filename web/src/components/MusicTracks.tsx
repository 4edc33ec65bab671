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

/** The tracks of a music result: cover, title, tags, duration, lyrics, and the ids to extend or cover one. */
export function MusicTracks(props: { taskId: string; model: string; output: Record<string, unknown> | null }) {
  const tracks = Array.isArray(props.output?.tracks) ? (props.output.tracks as Track[]) : [];
  if (tracks.length === 0) return null;
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
