import { probeHealthz, rssOf } from '../healthz-probe.ts';

/** One hostile payload: `send` delivers it and asserts the gateway's answer (it throws on a wrong one). */
export interface HostilePayload {
  name: string;
  send(): Promise<void>;
}

/** What the gateway showed while one payload was sent: how long a health check was kept waiting, and memory. */
export interface LoopFigure {
  payload: string;
  /** The slowest /healthz minus the median of the same window: how long one request was kept waiting. */
  addedMs: number;
  maxMs: number;
  medianMs: number;
  samples: number;
  peakRssBytes: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends one payload while /healthz is timed back to back from this process and the gateway's RSS is
 * sampled every 10 ms. The gateway must be another process (spawnGateway): a blocked gateway must not
 * also block the clock that measures it. Without `send`, measures the idle gateway for `idleMs`.
 */
export async function measureLoop(url: string, pid: number, payload: string, send?: () => Promise<void>, idleMs = 2_000): Promise<LoopFigure> {
  let peak = rssOf(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 10);
  const probe = probeHealthz(url);
  let seen: Awaited<ReturnType<typeof probe.stop>>;
  try {
    await sleep(300);
    if (send) await send();
    else await sleep(idleMs);
    await sleep(300);
  } finally {
    clearInterval(sampler);
    seen = await probe.stop();
  }
  return { payload, addedMs: seen.maxMs - seen.medianMs, maxMs: seen.maxMs, medianMs: seen.medianMs, samples: seen.samples, peakRssBytes: peak };
}

/** One line of figures, for a test's diagnostics or a bench's log. */
export function describeFigure(f: LoopFigure): string {
  return `${f.payload}: slowest /healthz ${f.maxMs.toFixed(0)} ms (median ${f.medianMs.toFixed(1)} ms, ${f.samples} checks, +${f.addedMs.toFixed(0)} ms), peak RSS ${Math.round(f.peakRssBytes / 1e6)} MB`;
}
