import { useState } from 'react';
import { requestData } from '../../api/client.ts';
import type { AgentSettingsView } from '../../api/index.ts';
import { ErrorNotice, Loading, Page, useAsync } from '../../components/common.tsx';
import { Link } from '../../router.tsx';
import { toModelOptions } from './agent-models.ts';
import { DefaultsForm } from './DefaultsForm.tsx';
import { LifecycleWebhooks } from './LifecycleWebhooks.tsx';

/** /agent/settings: the agent's defaults (models, routing, run limit) and its lifecycle webhooks. */
export function AgentSettingsPage() {
  const settings = useAsync((signal) => requestData<AgentSettingsView>('GET', '/api/v1/agent/settings', { signal }), []);
  const models = useAsync((signal) => requestData<Record<string, unknown>[]>('GET', '/api/v1/agent/models', { signal }), []);
  const [saved, setSaved] = useState<AgentSettingsView | undefined>();
  const view = saved ?? settings.data;

  return (
    <Page title="Agent settings" lead="The models the agent uses when a conversation names none, how it picks among them, and what one run may spend." actions={<Link to="/agent">Back to the agent</Link>}>
      <ErrorNotice error={settings.error ?? models.error} what="The settings could not be loaded" />
      {(settings.loading && !settings.data) || (models.loading && !models.data) ? <Loading /> : null}
      {view && models.data ? <DefaultsForm view={view} models={toModelOptions(models.data)} onSaved={setSaved} /> : null}
      <LifecycleWebhooks />
    </Page>
  );
}
