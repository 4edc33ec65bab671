import { requestData } from '../api/client.ts';
import type { Project, StorageFile } from '../api/index.ts';
import { Link } from '../router.tsx';
import { useAsync } from './common.tsx';

/**
 * Before a project asset is deleted: when its project uses it as the brand logo, say so and what
 * deleting it does (docs/decisions.md, "Deleting a project's logo"). Only the asset's own project can
 * name it as its logo, so one project is read.
 */
export function LogoUseWarning(props: { file: StorageFile }) {
  const { projectId } = props.file;
  const project = useAsync(
    (signal) => (projectId ? requestData<Project>('GET', `/api/v1/agent/projects/${encodeURIComponent(projectId)}`, { signal }) : Promise.resolve(undefined)),
    [projectId],
  );
  if (!projectId || project.data?.brand.logoAssetId !== props.file.fileId) return null;
  return (
    <span className="notice notice-error small logo-warning" role="alert" data-testid="logo-warning">
      This file is the logo of the project <Link to={`/projects/${encodeURIComponent(projectId)}`}>{project.data.name}</Link>. Deleting it removes the asset; the project
      keeps naming it as its logo, so the agent is pointed at a file that is gone, until you choose another logo (or none) on the project page.
    </span>
  );
}
