/**
 * Preloaded (`--expose-gc --import`) into a gateway whose memory bench/agent measures: on SIGUSR2 it
 * runs a full garbage collection and writes `process.memoryUsage()` (after the collection) as JSON to
 * the file named by BENCH_MEMORY_FILE, so that resident memory and the JS heap are read without the
 * garbage of the moment and the benchmark can tell heap from the rest.
 */
import { renameSync, writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const file = process.env.BENCH_MEMORY_FILE;
  if (!file) return;
  // Written aside and renamed, so the bench, polling for the file, never reads half of it.
  writeFileSync(`${file}.tmp`, JSON.stringify({ at: Date.now(), ...process.memoryUsage() }));
  renameSync(`${file}.tmp`, file);
});
