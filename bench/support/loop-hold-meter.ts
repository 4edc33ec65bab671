/**
 * Loaded into a gateway child with `--import` (bench/json-body.ts): the longest the main thread held
 * its event loop, in CPU time of that thread between two ticks of a 1 ms timer. CPU time and not the
 * wall clock, so that neighbours on a shared machine (which stretch every gap while they run) do not
 * count against the gateway; the wall-clock gap is recorded beside it. On SIGUSR2 the figures since
 * the last signal are written to LOOP_HOLD_FILE as JSON, and reset.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.LOOP_HOLD_FILE;
if (file) {
  let maxCpuMs = 0;
  let maxWallMs = 0;
  let lastCpu = process.threadCpuUsage();
  let lastWall = performance.now();
  const tick = () => {
    const cpu = process.threadCpuUsage();
    const wall = performance.now();
    maxCpuMs = Math.max(maxCpuMs, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    maxWallMs = Math.max(maxWallMs, wall - lastWall);
    lastCpu = cpu;
    lastWall = wall;
  };
  setInterval(tick, 1).unref();
  process.on('SIGUSR2', () => {
    tick();
    writeFileSync(file, JSON.stringify({ maxCpuMs, maxWallMs }));
    maxCpuMs = 0;
    maxWallMs = 0;
  });
}
