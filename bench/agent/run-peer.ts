import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ScriptedOrchestrator } from '../../test/fakes/scripted-orchestrator.ts';
import type { PeerResult } from './langgraph-peer.ts';

export interface PeerCounts {
  warm: number;
  sequential: number;
  concurrent: number;
  /** For PostgresSaver. */
  databaseUrl?: string;
}

/**
 * Plans the peer's runs on the orchestrator (each: `generate_image`, then a text answer) and runs
 * bench/agent/langgraph-peer.ts in its own process (spawned, not spawnSync: the orchestrator answers
 * from this process's event loop).
 */
export async function runLangGraphPeer(orchestrator: ScriptedOrchestrator, saver: 'memory' | 'postgres', counts: PeerCounts): Promise<PeerResult> {
  const prefix = `conv_lg${saver === 'postgres' ? 'p' : 'm'}`;
  const total = counts.warm + counts.sequential + counts.concurrent;
  for (let i = 0; i < total; i++) {
    orchestrator.plan(`${prefix}${i}`, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a lighthouse', model: 'z-image-turbo' } }] }, { text: 'Done.' });
  }
  const args = [saver, orchestrator.server.baseUrl, orchestrator.server.apiKey, String(counts.warm), String(counts.sequential), String(counts.concurrent), counts.databaseUrl ?? ''];
  const child = spawn(process.execPath, [join(import.meta.dirname, 'langgraph-peer.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the LangGraph peer (${saver}) exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as PeerResult;
}
