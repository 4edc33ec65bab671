import type { Organization } from '../api/index.ts';
import { requestData } from '../api/client.ts';
import { navigate } from '../router.tsx';
import { useAsync } from './common.tsx';

const PERSONAL = 'personal';

/**
 * Which account the console is showing: your own, or one of the organizations you belong to (its
 * page holds its balance, members, keys, books, usage and alerts). Shown only to people in at least
 * one organization; a personal account looks as it always did.
 */
export function AccountSwitcher(props: { path: string }) {
  const organizations = useAsync((signal) => requestData<Organization[]>('GET', '/api/v1/organizations', { signal }), [props.path === '/organizations']);
  const list = organizations.data ?? [];
  if (list.length === 0) return null;
  const match = /^\/organizations\/([^/]+)$/.exec(props.path);
  const currentId = match?.[1] ? decodeURIComponent(match[1]) : undefined;
  const current = list.some((o) => o.id === currentId) ? (currentId as string) : PERSONAL;
  return (
    <div className="account-switcher">
      <label htmlFor="account-switcher">Account</label>
      <select
        id="account-switcher"
        value={current}
        onChange={(e) => navigate(e.target.value === PERSONAL ? '/' : `/organizations/${encodeURIComponent(e.target.value)}`)}
      >
        <option value={PERSONAL}>Personal</option>
        {list.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </div>
  );
}
