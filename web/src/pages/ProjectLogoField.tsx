import type { Asset } from '../api/index.ts';
import { describedBy, Field } from '../components/common.tsx';

/**
 * The brand logo: one of the project's assets, or none. Deleting the file in Storage leaves the
 * project naming it (docs/decisions.md, "Deleting a project's logo"), so a logo that is not among
 * the assets any more says so here and asks for another; the gateway refuses to save it as it is.
 * `complete` is false while the assets load or when they run past one page: then nothing is claimed.
 */
export function ProjectLogoField(props: { value: string; assets: Asset[]; complete: boolean; onChange: (assetId: string) => void }) {
  const deleted = props.value !== '' && props.complete && !props.assets.some((a) => a.assetId === props.value);
  const error = deleted ? 'Logo deleted: its file was removed from Storage. Choose another logo, or None, then save.' : undefined;
  return (
    <Field id="p-logo" label="Logo" error={error}>
      <select id="p-logo" value={props.value} onChange={(e) => props.onChange(e.target.value)} aria-invalid={deleted ? true : undefined} aria-describedby={describedBy('p-logo', undefined, error)}>
        <option value="">None</option>
        {deleted ? (
          <option value={props.value} disabled>
            Logo deleted
          </option>
        ) : null}
        {props.assets.map((a) => (
          <option key={a.assetId} value={a.assetId}>
            {a.name} ({a.role})
          </option>
        ))}
      </select>
    </Field>
  );
}
