import type { Logger } from 'pino';
import type { JobOutcome } from '../../ports/work-queue.port.ts';
import type { BudgetAlertsService } from './budget-alerts.service.ts';

/** The recurring job of budget alerts: one round, then the next after the interval (a failure only logs). */
export function createBudgetAlertHandler(deps: { alerts: BudgetAlertsService; logger: Logger; intervalMs: number }): () => Promise<JobOutcome> {
  return async () => {
    try {
      const round = await deps.alerts.checkRound();
      if (round.fired > 0 || round.mailed > 0) deps.logger.info(round, 'budget alerts crossed');
    } catch (error) {
      deps.logger.warn({ err: error }, 'checking budget alerts failed; trying again next round');
    }
    return { kind: 'again', runAt: Date.now() + deps.intervalMs };
  };
}
