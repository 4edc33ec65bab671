/**
 * Registers agent tests once per orchestrator protocol (a scripted OpenAI-style and a scripted
 * Anthropic-style upstream: the engine's OpenAI-style tool calls are translated for the latter by
 * the text layer) and per mode (embedded; scale-out on PostgreSQL + Redis + S3 when reachable).
 */
import { after, before, describe } from 'node:test';
import { type FakeProtocol, ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { type GatewayMode, startTestGateway, type TestGateway } from './gateway.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from './services.ts';

export interface AgentSuiteContext {
  gw: TestGateway;
  orchestrator: ScriptedOrchestrator;
  protocol: FakeProtocol;
  mode: GatewayMode;
}

export interface AgentSuiteOptions {
  /** Extra config file entries (merged over the orchestrator's provider and routes). */
  config?: (orchestrator: ScriptedOrchestrator) => Record<string, unknown>;
  env?: Record<string, string>;
  /** Default: both. */
  protocols?: FakeProtocol[];
}

/** Text models routed to the scripted orchestrator (the default orchestrator and two fallbacks). */
export const SCRIPTED_MODELS = ['gpt-5.4-mini', 'gpt-5.4', 'claude-haiku-4-5'];

export function describeAgent(name: string, body: (ctx: AgentSuiteContext) => void, options: AgentSuiteOptions = {}): void {
  for (const protocol of options.protocols ?? (['openai', 'anthropic'] as const)) {
    for (const mode of ['embedded', 'scaleout'] as const) {
      describe(`${name} [${protocol}, ${mode}]`, async () => {
        if (mode === 'scaleout') {
          const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
          if (skip) {
            describe('skipped', { skip }, () => {});
            return;
          }
        }
        const ctx = { protocol, mode } as AgentSuiteContext;
        before(async () => {
          ctx.orchestrator = await ScriptedOrchestrator.start(protocol);
          const extra = options.config?.(ctx.orchestrator) ?? {};
          const { providers, routes, ...rest } = extra as { providers?: Record<string, unknown>; routes?: Record<string, unknown> };
          ctx.gw = await startTestGateway(mode, {
            ...(options.env ? { env: options.env } : {}),
            configFile: {
              providers: { orch: ctx.orchestrator.provider(), ...providers },
              routes: { ...Object.fromEntries(SCRIPTED_MODELS.map((m) => [m, ['orch']])), ...routes },
              ...rest,
            },
          });
        });
        after(async () => {
          await ctx.gw?.close();
          await ctx.orchestrator?.close();
        });
        body(ctx);
      });
    }
  }
}
