import { Socket } from 'node:net';

/**
 * Which outside services the tests may use. Locally a missing PostgreSQL or Redis skips those runs
 * (and says so); CI sets SWITCHBOARD_REQUIRE_SERVICES=1, which turns their absence into a failure.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const REQUIRE_SERVICES = process.env.SWITCHBOARD_REQUIRE_SERVICES === '1';

const reachable = new Map<string, Promise<boolean>>();

export function isReachable(url: string): Promise<boolean> {
  let known = reachable.get(url);
  if (!known) {
    const { hostname, port } = new URL(url);
    const defaultPort = url.startsWith('redis') ? 6379 : 5432;
    known = new Promise<boolean>((resolve) => {
      const socket = new Socket();
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.setTimeout(1000, () => done(false));
      socket.once('error', () => done(false));
      socket.connect(Number(port || defaultPort), hostname.replace(/^\[|\]$/g, ''), () => done(true));
    });
    reachable.set(url, known);
  }
  return known;
}

/**
 * Resolves to a skip reason (string) when a service is absent and may be skipped, undefined when it is
 * there; throws when it is absent but required.
 */
export async function serviceSkipReason(name: 'PostgreSQL' | 'Redis', url: string): Promise<string | undefined> {
  if (await isReachable(url)) return undefined;
  const message = `${name} is not reachable at ${url}`;
  if (REQUIRE_SERVICES) throw new Error(`${message} and SWITCHBOARD_REQUIRE_SERVICES=1`);
  console.log(`# SKIPPED: ${message}; its runs are skipped (set SWITCHBOARD_REQUIRE_SERVICES=1 to fail instead)`);
  return message;
}
