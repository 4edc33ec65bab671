/**
 * A process that starts to drain resets no request a client already sent (docs/decisions.md, "Draining
 * kept-alive connections"). Clients talk straight to a gateway process over kept-alive connections,
 * in tight loops, while it gets SIGTERM: every request is either answered or refused at connect
 * (ECONNREFUSED: never sent, a client or balancer may send it elsewhere). A request reset after it was
 * sent, the failure this guards against, came from the close dropping an idle socket at the moment
 * its client reused it.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { test } from 'node:test';
import { createSharedStores, spawnGateway } from '../support/processes.ts';

/** Concurrent clients, each on its own kept-alive connection. */
const CLIENTS = 24;
const ROUNDS = 3;

interface Tally {
  answered: number;
  answeredAfterSigterm: number;
  closeHeaders: number;
  refused: number;
  failed: string[];
}

type Outcome = { kind: 'answered'; connectionClose: boolean } | { kind: 'refused' } | { kind: 'failed'; what: string };

function get(url: string, agent: Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.once('end', () => resolve({ kind: 'answered', connectionClose: res.headers.connection === 'close' }));
      res.once('error', (error) => resolve({ kind: 'failed', what: `response: ${error.message}` }));
    });
    req.once('error', (error: Error & { code?: string }) => {
      // Refused at connect: the request never left the client.
      if (error.code === 'ECONNREFUSED') resolve({ kind: 'refused' });
      else resolve({ kind: 'failed', what: `${error.code ?? error.message} (${req.reusedSocket ? 'reused' : 'new'} connection)` });
    });
    req.end();
  });
}

async function oneRestart(tally: Tally): Promise<void> {
  const stores = await createSharedStores('embedded', {});
  const gateway = await spawnGateway(stores);
  let exited = false;
  let sigtermAt = Number.POSITIVE_INFINITY;
  const exit = new Promise<void>((resolve) => gateway.child.once('exit', () => resolve()));
  const client = async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (!exited) {
        const outcome = await get(gateway.url, agent);
        if (outcome.kind === 'answered') {
          tally.answered++;
          if (performance.now() > sigtermAt) tally.answeredAfterSigterm++;
          if (outcome.connectionClose) tally.closeHeaders++;
        } else if (outcome.kind === 'refused') {
          tally.refused++;
          await new Promise((resolve) => setTimeout(resolve, 20));
        } else tally.failed.push(outcome.what);
      }
    } finally {
      agent.destroy();
    }
  };
  try {
    const clients = Array.from({ length: CLIENTS }, () => client());
    // Every client has its connection open and busy before the signal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    sigtermAt = performance.now();
    gateway.child.kill('SIGTERM');
    await exit;
    exited = true;
    await Promise.all(clients);
  } finally {
    await gateway.stop();
    await stores.dispose();
  }
}

test('SIGTERM under kept-alive load: every request is answered or refused at connect, none reset after it was sent [embedded]', { timeout: 240_000 }, async (t) => {
  const tally: Tally = { answered: 0, answeredAfterSigterm: 0, closeHeaders: 0, refused: 0, failed: [] };
  for (let round = 0; round < ROUNDS; round++) await oneRestart(tally);
  t.diagnostic(`${ROUNDS} restarts: ${tally.answered} answered (${tally.answeredAfterSigterm} after SIGTERM, ${tally.closeHeaders} with Connection: close), ${tally.refused} refused at connect, ${tally.failed.length} failed`);
  // The load ran across each drain: the window the test is about was exercised.
  assert.ok(tally.answered > CLIENTS * ROUNDS * 10, `only ${tally.answered} requests were answered`);
  assert.ok(tally.refused > 0, 'no client reached a closed listener');
  assert.deepEqual(tally.failed.slice(0, 10), [], `${tally.failed.length} requests failed after they were sent`);
});
