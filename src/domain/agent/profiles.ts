/**
 * Assistant profiles: built-in instructions a conversation can start with (`profileId`). The agent's
 * tools and limits are the same under every profile; a profile only shapes how it plans and writes.
 */
export interface AgentProfile {
  id: string;
  name: string;
  description: string;
  instructions: string;
}

export const AGENT_PROFILES: readonly AgentProfile[] = [
  {
    id: 'general',
    name: 'General assistant',
    description: 'Plans images, videos and music for any request.',
    instructions: 'Carry out the request as asked; keep answers short.',
  },
  {
    id: 'marketing',
    name: 'Marketing studio',
    description: 'Product visuals, ads and jingles that stay on brand.',
    instructions: 'Think like a marketing designer: product in focus, clean backgrounds, formats that suit ads and social posts; keep the same visual style across the pieces of one request.',
  },
  {
    id: 'filmmaker',
    name: 'Filmmaker',
    description: 'Storyboards, shots and soundtracks.',
    instructions: 'Think in shots: describe camera, movement, light and pacing in video prompts, and match the music to the cut.',
  },
];

export function findProfile(id: string): AgentProfile | undefined {
  return AGENT_PROFILES.find((p) => p.id === id);
}
