import { requestData } from '../api/client.ts';
import type { RecentArtifact } from '../api/index.ts';
import { relativeTime } from '../format.ts';
import { ErrorNotice, Loading, useAsync } from './common.tsx';

/**
 * The newest agent artifacts as choices, each with a preview, so importing one does not mean copying
 * its `art_…` id out of a conversation. The chosen id is reported to the form that owns it.
 */
export function ArtifactPicker(props: { value: string; onChange: (artifactId: string) => void }) {
  const recent = useAsync((signal) => requestData<RecentArtifact[]>('GET', '/api/v1/agent/artifacts?limit=12', { signal }), []);
  return (
    <fieldset className="field-group artifact-picker">
      <legend>Recent artifacts</legend>
      <ErrorNotice error={recent.error} what="Recent artifacts could not be loaded" />
      {recent.loading && !recent.data ? <Loading label="Loading artifacts…" /> : null}
      {recent.data?.length === 0 ? <p className="muted small">No artifacts yet: files the agent makes appear here.</p> : null}
      <ul className="plain-list artifact-picker-list">
        {recent.data?.map((a) => (
          <li key={a.artifactId}>
            <label className="artifact-picker-choice">
              <input type="radio" name="artifact-pick" value={a.artifactId} checked={props.value === a.artifactId} onChange={() => props.onChange(a.artifactId)} />
              {a.type === 'image' && a.url ? <img src={a.url} alt="" width={48} height={48} loading="lazy" /> : <span className="badge">{a.type}</span>}
              <span>
                <span className="mono small">{a.artifactId}</span>
                <span className="muted small"> · {relativeTime(a.createdAt)}</span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
