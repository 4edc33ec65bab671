/**
 * `--smoke`, which every bench/*.ts takes: tiny counts and short durations, and no peer that needs a
 * download, so that test/bench/bench-smoke.test.ts can run each bench in seconds and check that it
 * completes and prints its rows. Its figures mean nothing, and under it a bench exits non-zero only
 * for a wrong answer, never for a missed target (tests never assert time).
 */
export const SMOKE = process.argv.includes('--smoke');
