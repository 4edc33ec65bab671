import type { Artifact } from './agent-types.ts';

const ARTIFACT_ID = /\bart_[0-9a-z]+\b/g;

/** The anchor of an artifact's figure in the thread, so a reply can link to it. */
export function artifactAnchor(artifactId: string): string {
  return `artifact-${artifactId}`;
}

/**
 * An agent's reply with each `art_…` id it mentions shown as a link to that file in the thread, named by
 * its label (and a thumbnail for an image): ids mean nothing to a reader. Ids of other runs stay as text.
 */
export function ReplyText(props: { text: string; artifacts: Artifact[]; labels: Map<string, string> }) {
  const byId = new Map(props.artifacts.map((a) => [a.artifactId, a]));
  const parts: Array<string | Artifact> = [];
  let last = 0;
  for (const match of props.text.matchAll(ARTIFACT_ID)) {
    const artifact = byId.get(match[0]);
    if (!artifact) continue;
    parts.push(props.text.slice(last, match.index), artifact);
    last = match.index + match[0].length;
  }
  parts.push(props.text.slice(last));
  return (
    <>
      {parts.map((part, i) =>
        typeof part === 'string' ? (
          part
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text never reorder.
          <a key={i} href={`#${artifactAnchor(part.artifactId)}`} className="artifact-ref" data-testid="artifact-ref" title={part.artifactId}>
            {part.contentType.startsWith('image/') ? <img src={part.url} alt="" className="artifact-ref-thumb" loading="lazy" /> : null}
            {props.labels.get(part.artifactId) ?? part.type}
          </a>
        ),
      )}
    </>
  );
}
