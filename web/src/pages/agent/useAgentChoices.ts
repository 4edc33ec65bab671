import { requestData } from '../../api/client.ts';
import type { AgentModel, AgentProfile } from '../../api/index.ts';
import { useAsync } from '../../components/common.tsx';

export interface AgentChoices {
  profiles: AgentProfile[];
  models: AgentModel[];
}

/** The assistant profiles and the models a run can use (only those with a configured route). */
export function useAgentChoices() {
  return useAsync<AgentChoices>(async (signal) => {
    const [profiles, models] = await Promise.all([
      requestData<AgentProfile[]>('GET', '/api/v1/agent/profiles', { signal }),
      requestData<AgentModel[]>('GET', '/api/v1/agent/models', { signal }),
    ]);
    return { profiles, models: models.filter((m) => m.executable) };
  }, []);
}

const KIND_LABELS: Record<AgentModel['type'], string> = {
  TEXT: 'Text models (plan the run and write)',
  IMAGE: 'Image models',
  VIDEO: 'Video models',
  MUSIC: 'Music models',
};
const KIND_ORDER: AgentModel['type'][] = ['TEXT', 'IMAGE', 'VIDEO', 'MUSIC'];

/** Models grouped by what they make, each group by name. */
export function modelGroups(models: readonly AgentModel[]): Array<{ label: string; models: AgentModel[] }> {
  return KIND_ORDER.map((type) => ({
    label: KIND_LABELS[type],
    models: models.filter((m) => m.type === type).sort((a, b) => a.name.localeCompare(b.name)),
  })).filter((g) => g.models.length > 0);
}

/** A model's name as the UI shows it (its id only when the catalog no longer lists it). */
export function modelName(models: readonly AgentModel[] | undefined, id: string): string {
  return models?.find((m) => m.id === id)?.name ?? id;
}

export function profileName(profiles: readonly AgentProfile[] | undefined, id: string): string {
  return profiles?.find((p) => p.profileId === id)?.name ?? 'a profile no longer offered';
}
