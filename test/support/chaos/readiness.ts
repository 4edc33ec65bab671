import type { ChaosFleet } from './fleet.ts';

/** One probe of every API process's /readyz. */
export interface ReadinessRound {
  at: number;
  phase: string;
  /** Process name → HTTP status, or `refused` / `timeout`. */
  statuses: Record<string, number | string>;
}

export interface ReadinessSampler {
  rounds: ReadinessRound[];
  /** The first round at or after `from` (and before `until`) in which every API process answered 200. */
  readyAfter(from: number, until?: number): number | undefined;
  stop(): Promise<void>;
}

export async function probeStatus(url: string, timeoutMs = 2_000): Promise<number | string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? 'timeout' : 'refused';
  }
}

/**
 * Probes /readyz of every API process every `intervalMs` for the whole run (what a load balancer's
 * health check sees), so that recovery after a fault and readiness during an outage can be read off.
 */
export function sampleReadiness(fleet: ChaosFleet, phase: () => string, intervalMs = 200): ReadinessSampler {
  const rounds: ReadinessRound[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const apis = fleet.members().filter((m) => m.role === 'api');
      const answers = await Promise.all(apis.map(async (m) => [m.name, await probeStatus(`${m.url}/readyz`, 1_000)] as const));
      rounds.push({ at, phase: phase(), statuses: Object.fromEntries(answers) });
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    rounds,
    readyAfter(from, until = Number.POSITIVE_INFINITY) {
      return rounds.find((r) => r.at >= from && r.at < until && Object.values(r.statuses).every((s) => s === 200))?.at;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
