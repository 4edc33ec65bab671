import { Link } from '../../router.tsx';
import type { Artifact } from './agent-types.ts';
import { artifactAnchor } from './ReplyText.tsx';

/** An artifact shown in the thread: the image, a video player or an audio player, and its source. */
export function ArtifactMedia(props: { artifact: Artifact; name: string; label: string }) {
  const { artifact, name, label } = props;
  const kind = artifact.contentType.split('/')[0] ?? artifact.type;
  return (
    <figure id={artifactAnchor(artifact.artifactId)} className="preview agent-artifact" data-testid="agent-artifact" data-artifact-type={kind}>
      {kind === 'image' ? (
        <img src={artifact.url} alt={label} loading="lazy" />
      ) : kind === 'video' ? (
        // biome-ignore lint/a11y/useMediaCaption: generated clips have no caption track; the figure caption describes them.
        <video src={artifact.url} controls preload="metadata" aria-label={label} />
      ) : (
        // biome-ignore lint/a11y/useMediaCaption: generated music has no caption track; the figure caption describes it.
        <audio src={artifact.url} controls preload="metadata" aria-label={label} />
      )}
      <figcaption className="small muted">
        <span title={artifact.artifactId}>{name}</span>
        {artifact.generationId ? (
          <>
            {' '}
            · from <Link to={`/generations/${encodeURIComponent(artifact.generationId)}`}>generation {artifact.generationId}</Link>
          </>
        ) : null}{' '}
        · <a href={artifact.url}>download</a>
      </figcaption>
    </figure>
  );
}
