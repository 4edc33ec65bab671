import { readFileSync } from 'node:fs';
import { Agent, fetch } from 'undici';

/**
 * Times GET /healthz from its own connection, back to back, while a test sends hostile payloads on
 * others: a request that holds the gateway's event loop shows up as one slow health check. The probe
 * belongs in the test process and the gateway in a child process (spawnGateway), so that a blocked
 * gateway cannot also block the clock that measures it.
 */
export interface HealthzProbe {
  /** Stops probing; the slowest and the median health check seen, in ms. */
  stop(): Promise<{ maxMs: number; medianMs: number; samples: number }>;
}

export function probeHealthz(baseUrl: string, pauseMs = 5): HealthzProbe {
  const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${baseUrl}/healthz`, { dispatcher: agent });
        await res.arrayBuffer();
      } catch {
        // A refused or reset connection counts as a sample of however long it took.
      }
      samples.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await agent.close();
      const sorted = [...samples].sort((a, b) => a - b);
      return { maxMs: sorted.at(-1) ?? 0, medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0, samples: sorted.length };
    },
  };
}

/** Resident memory of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : 0;
}
