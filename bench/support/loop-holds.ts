/**
 * The reading side of loop-hold-meter.ts: the environment that loads the meter into a gateway child,
 * and the read (SIGUSR2, then the figures it writes) of its longest hold since the previous read.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoopHolds {
  /** The longest stretch of the main thread's CPU time between two turns of its loop, in ms. */
  maxCpuMs: number;
  /** The longest wall-clock gap between two turns (neighbours on the machine stretch it too). */
  maxWallMs: number;
}

export interface LoopHoldMeter {
  /** For the gateway child's environment: loads the meter and names its file. */
  env: Record<string, string>;
  /** The child's holds since the last read (or its start); resets them. */
  read(child: ChildProcess): Promise<LoopHolds>;
  dispose(): void;
}

export function loopHoldMeter(): LoopHoldMeter {
  const dir = mkdtempSync(join(tmpdir(), 'sb-loop-hold-'));
  const file = join(dir, 'holds.json');
  const meter = new URL('./loop-hold-meter.ts', import.meta.url).pathname;
  return {
    env: { NODE_OPTIONS: `--import=${meter}`, LOOP_HOLD_FILE: file },
    async read(child) {
      rmSync(file, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 400; i++) {
        try {
          return JSON.parse(readFileSync(file, 'utf8')) as LoopHolds;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      throw new Error('the gateway did not report its loop holds');
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
