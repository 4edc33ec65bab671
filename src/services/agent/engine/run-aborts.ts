/**
 * Interrupts a run's text call from any process (rule 7: stop requests cancellation of an active text
 * request): the stop publishes the run id on the event bus, and the process running the call aborts
 * it. The call then settles what the provider already produced.
 */
import type { EventBus } from '../../../ports/event-bus.port.ts';
import { RUN_STOP_TOPIC } from '../runs/run-stop.ts';

export class RunAborts {
  readonly #bus: EventBus;
  readonly #controllers = new Map<string, Set<AbortController>>();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(bus: EventBus) {
    this.#bus = bus;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#bus.subscribe(RUN_STOP_TOPIC, (runId) => this.abort(runId, 'the run was stopped'));
  }

  async stop(): Promise<void> {
    await this.#unsubscribe?.();
  }

  /** A controller aborted by a stop of the run (or by `parent`, the worker's lease signal). */
  register(runId: string, parent: AbortSignal): { controller: AbortController; release: () => void } {
    const controller = new AbortController();
    const onParent = () => controller.abort(parent.reason);
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener('abort', onParent, { once: true });
    let set = this.#controllers.get(runId);
    if (!set) {
      set = new Set();
      this.#controllers.set(runId, set);
    }
    set.add(controller);
    const own = set;
    return {
      controller,
      release: () => {
        parent.removeEventListener('abort', onParent);
        own.delete(controller);
        if (own.size === 0 && this.#controllers.get(runId) === own) this.#controllers.delete(runId);
      },
    };
  }

  abort(runId: string, reason: string): void {
    for (const controller of this.#controllers.get(runId) ?? []) controller.abort(new Error(reason));
  }
}
