import { useState } from 'react';
import { requestData } from '../api/client.ts';
import type { GenerationPage, RecentArtifact } from '../api/index.ts';
import { relativeTime } from '../format.ts';
import { ErrorNotice, Loading, useAsync } from './common.tsx';
import { MediaUpload } from './MediaUpload.tsx';

/** What the import API takes as its source (one of them). */
export type AssetSource = { artifactId: string } | { generationId: string; outputIndex: number } | { uploadId: string };

const RECENT = 12;

function keyOf(source: AssetSource | undefined): string {
  if (!source) return '';
  if ('artifactId' in source) return `artifact:${source.artifactId}`;
  if ('generationId' in source) return `generation:${source.generationId}:${source.outputIndex}`;
  return `upload:${source.uploadId}`;
}

/**
 * Where a project asset comes from, without typing an id: the newest agent artifacts, the newest
 * finished generations with each of their files, or a file uploaded from disk (through the
 * playground uploads API). One choice at a time; the form that owns it sends it to the import API.
 */
export function AssetSourcePicker(props: { value: AssetSource | undefined; onChange: (source: AssetSource | undefined) => void }) {
  const artifacts = useAsync((signal) => requestData<RecentArtifact[]>('GET', `/api/v1/agent/artifacts?limit=${RECENT}`, { signal }), []);
  const generations = useAsync((signal) => requestData<GenerationPage>('GET', `/api/v1/generations?limit=${RECENT}&status=finished`, { signal }), []);
  const [uploaded, setUploaded] = useState<{ uploadId: string; url: string } | undefined>();
  const chosen = keyOf(props.value);
  const finished = (generations.data?.items ?? []).filter((g) => g.files.length > 0);

  return (
    <div className="asset-source-picker">
      <fieldset className="field-group artifact-picker">
        <legend>Recent artifacts</legend>
        <ErrorNotice error={artifacts.error} what="Recent artifacts could not be loaded" />
        {artifacts.loading && !artifacts.data ? <Loading label="Loading artifacts…" /> : null}
        {artifacts.data?.length === 0 ? <p className="muted small">No artifacts yet: files the agent makes appear here.</p> : null}
        <ul className="plain-list artifact-picker-list">
          {artifacts.data?.map((a) => (
            <li key={a.artifactId}>
              <label className="artifact-picker-choice">
                <input type="radio" name="asset-source" checked={chosen === keyOf({ artifactId: a.artifactId })} onChange={() => props.onChange({ artifactId: a.artifactId })} />
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

      <fieldset className="field-group artifact-picker" data-testid="recent-generations">
        <legend>Recent generations</legend>
        <ErrorNotice error={generations.error} what="Recent generations could not be loaded" />
        {generations.loading && !generations.data ? <Loading label="Loading generations…" /> : null}
        {generations.data && finished.length === 0 ? <p className="muted small">No generations with files yet: make one in the Playground.</p> : null}
        <ul className="plain-list artifact-picker-list">
          {finished.map((g) => (
            <li key={g.taskId}>
              <p className="small asset-source-title">
                {g.title ?? g.prompt?.slice(0, 80) ?? g.model} <span className="muted">· {g.model}</span>
              </p>
              <ul className="plain-list">
                {g.files.map((file, i) => {
                  const source = { generationId: g.taskId, outputIndex: i };
                  const name = `${g.title ?? g.model} file ${i + 1} (${file.fileType === 'music' ? 'audio' : file.fileType})`;
                  return (
                    <li key={file.fileUrl}>
                      <label className="artifact-picker-choice">
                        <input type="radio" name="asset-source" aria-label={name} checked={chosen === keyOf(source)} onChange={() => props.onChange(source)} />
                        {file.fileType === 'image' ? <img src={file.fileUrl} alt="" width={48} height={48} loading="lazy" /> : <span className="badge">{file.fileType === 'music' ? 'audio' : file.fileType}</span>}
                        <span className="small">
                          File {i + 1} of {g.files.length}
                          <span className="muted"> · {relativeTime(g.createdTime)}</span>
                        </span>
                      </label>
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ul>
      </fieldset>

      <fieldset className="field-group artifact-picker">
        <legend>From disk</legend>
        <MediaUpload
          id="asset-upload"
          label="the project"
          mediaKind={undefined}
          onUploaded={(url, uploadId) => {
            setUploaded({ uploadId, url });
            props.onChange({ uploadId });
          }}
        />
        {uploaded ? (
          <label className="artifact-picker-choice">
            <input type="radio" name="asset-source" checked={chosen === keyOf({ uploadId: uploaded.uploadId })} onChange={() => props.onChange({ uploadId: uploaded.uploadId })} />
            <span className="small">
              Uploaded file <span className="mono">{uploaded.uploadId}</span>
            </span>
          </label>
        ) : null}
      </fieldset>
    </div>
  );
}
