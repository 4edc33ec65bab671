import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `phase` and returns its result with the CPU seconds the process `pid` spent meanwhile. */
export async function withCpu<T>(pid: number, phase: () => Promise<T>): Promise<T & { cpuSeconds: number }> {
  const before = cpuSeconds(pid);
  const result = await phase();
  return { ...result, cpuSeconds: cpuSeconds(pid) - before };
}
