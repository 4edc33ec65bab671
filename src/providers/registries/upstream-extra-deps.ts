import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';

/** What the embeddings and token-count adapters share: their upstream client, made on first use, and the CPU pool. */
export interface UpstreamExtraDeps {
  /** Called only by the styles that go upstream, so that a local-only gateway opens no client. */
  http: () => UpstreamHttpClient;
  /** Where a large upstream answer is read and a large prompt counted; none: on the event loop (unit tests). */
  cpu: CpuPool | undefined;
}
