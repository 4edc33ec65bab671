import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGENT_TOOL_NAMES, AGENT_TOOLS, agentToolDefinitions, MEDIA_TOOL_NAMES, mediaToolFor, modalityOfTool } from '../../../src/domain/agent/agent-tools.ts';
import { TOOL_HANDLERS } from '../../../src/services/agent/engine/tool-registry.ts';

const MODELS = { image: ['img-a'], video: [], music: [], text: [] };

describe('the agent tool registry', () => {
  it('has one schema and one handler per tool name', () => {
    assert.deepEqual(Object.keys(AGENT_TOOLS).sort(), [...AGENT_TOOL_NAMES].sort());
    assert.deepEqual(Object.keys(TOOL_HANDLERS).sort(), [...AGENT_TOOL_NAMES].sort());
    for (const name of AGENT_TOOL_NAMES) assert.equal(AGENT_TOOLS[name].schema(MODELS).name, name);
  });

  it('offers the context tools only to a run with context references', () => {
    const names = (context: boolean) => agentToolDefinitions(MODELS, { context }).map((t) => t.name);
    assert.deepEqual(names(true), Object.keys(AGENT_TOOLS));
    assert.deepEqual(names(false), Object.keys(AGENT_TOOLS).filter((n) => n !== 'search_context' && n !== 'read_context'));
  });

  it('names the media tool of each modality', () => {
    for (const name of MEDIA_TOOL_NAMES) assert.equal(mediaToolFor(modalityOfTool(name)), name);
    assert.deepEqual(MEDIA_TOOL_NAMES.map(modalityOfTool), ['image', 'video', 'music']);
  });
});
