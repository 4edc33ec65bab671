import { listEntries } from '../adapters/db/ledger/ledger.repository.ts';
import { UpstreamDirectory } from '../services/upstreams/upstream-directory.ts';
import { RoutePlanner } from '../services/upstreams/route-planner.ts';
import { MemoryHealthBoard } from '../adapters/health/memory-health-board.ts';
import { listUsers } from '../adapters/db/repositories/users.repository.ts';
import { migrate } from '../adapters/db/migrate.ts';
import { openDatabase } from '../adapters/db/open-database.ts';
import { KyselyAgentLibraryStore } from '../adapters/db/stores/agent-library-store.ts';
import { kyselyUnitOfWork } from '../adapters/db/stores/kysely-unit-of-work.ts';
import { MemoryEventBus } from '../adapters/bus/memory-event-bus.ts';
import { loadGatewaySecretBox } from '../adapters/crypto/load-secret-box.ts';
import { kyselyUpstreamSettingsStore } from '../adapters/db/stores/upstream-settings-store.ts';
import { RedisEventBus } from '../adapters/bus/redis-event-bus.ts';
import type { Config } from '../config/config.types.ts';
import { readServedBaseUrl } from '../config/served-base-url.ts';
import { OWNER_AUTHORITY } from '../domain/api-key-authority.ts';
import { isAppError } from '../domain/errors.ts';
import { centsToMicro } from '../domain/money.ts';
import { presentApiKey, presentLedgerEntry, presentUser } from '../http/presenters.ts';
import { accountPortsOf } from '../adapters/db/stores/account-ports.ts';
import { createUser, getUser } from '../adapters/db/stores/account-store.ts';
import { ApiKeysService } from '../services/accounts/api-keys.service.ts';
import { AuthService } from '../services/auth/auth.service.ts';
import { grantCredit } from '../services/credits.service.ts';
import { verifyLedger } from '../adapters/db/ledger/ledger-checks.ts';
import { listCheckoutsInReview } from '../adapters/db/repositories/payments.repository.ts';
import { pino } from 'pino';
import { Catalog } from '../domain/catalog/catalog.ts';
import { createChatProviderRegistry } from '../providers/registries/chat.registry.ts';
import { RouteCapabilities } from '../services/agent/settings/route-capabilities.service.ts';
import { ChatRouter } from '../services/chat/chat-router.ts';
import { integerOption, parseArgs, requireArg, UsageError } from './cli-args.ts';

/**
 * The operator commands, working directly on the configured store (no running gateway needed). Output
 * is JSON so scripts can read it. Exit codes: 0 done, 1 refused or failed, 2 bad usage.
 */
export async function runAdminCommand(command: string, rest: string[], config: Config, help: string): Promise<number> {
  const args = parseArgs(rest);
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Revocations must reach running gateways' auth caches.
  const bus = config.redisUrl ? new RedisEventBus(config.redisUrl, { prefix: config.redisPrefix }) : new MemoryEventBus();
  const db = database.db;
  const ports = accountPortsOf(db);
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  try {
    const applied = await migrate(database);
    const [sub, first] = args.positional;
    switch (`${command} ${command === 'migrate' || command === 'providers' ? '' : (sub ?? '')}`.trim()) {
      case 'migrate':
        print({ applied });
        return 0;
      case 'users create': {
        const isAdmin = args.options.get('admin') === 'true';
        const user = await createUser(db, { email: args.options.get('email') ?? null, balanceMicro: centsToMicro(integerOption(args, 'balance-cents') ?? 0), isAdmin });
        print({ ...presentUser(user), isAdmin });
        return 0;
      }
      case 'users promote':
      case 'users demote': {
        // The admin role: the dashboard's admin pages, and the admin API with a session (docs/decisions.md).
        const user = await new AuthService(ports).setAdmin(requireArg(first, 'userId or email'), sub === 'promote');
        print({ ...presentUser(user), isAdmin: user.is_admin === 1 });
        return 0;
      }
      case 'users sign-in-link': {
        // For a user without a password (the demo user) or locked out: a one-time dashboard link.
        const hours = integerOption(args, 'hours') ?? 24;
        if (hours < 1 || hours > 168) throw new UsageError('--hours must be 1 to 168');
        const link = await new AuthService(ports).createSignInLinkFor(requireArg(first, 'userId or email'), hours * 3_600_000);
        // Where `serve` really answers (it may have been given another PORT), unless PUBLIC_BASE_URL says.
        const baseUrl = (!config.publicBaseUrlIsExplicit && (await readServedBaseUrl(config.dataDir))) || config.publicBaseUrl;
        print({
          userId: link.user.id,
          email: link.user.email,
          url: `${baseUrl}/api/v1/auth/link?token=${link.token}`,
          expiresAt: new Date(link.expiresAt).toISOString(),
        });
        return 0;
      }
      case 'users list':
        print((await listUsers(db, 1000)).map(presentUser));
        return 0;
      case 'users show':
        print(presentUser(await getUser(db, requireArg(first, 'userId'))));
        return 0;
      case 'keys create': {
        // The operator acts as the owner; --manage-keys makes a key that may manage the user's keys.
        const manageKeys = args.options.get('manage-keys') === 'true';
        const created = await new ApiKeysService(ports, bus).create(OWNER_AUTHORITY, requireArg(first, 'userId'), { name: args.options.get('name'), manageKeys });
        print({ ...presentApiKey(created.row), key: created.key });
        return 0;
      }
      case 'keys list':
        print((await new ApiKeysService(ports, bus).list(OWNER_AUTHORITY, requireArg(first, 'userId'))).map(presentApiKey));
        return 0;
      case 'keys revoke':
        print(presentApiKey(await new ApiKeysService(ports, bus).revoke(OWNER_AUTHORITY, requireArg(first, 'keyId'))));
        return 0;
      case 'credits add': {
        const amount = integerOption(args, 'amount-cents');
        if (amount === undefined) throw new UsageError('missing --amount-cents');
        const posted = await grantCredit(ports, {
          userId: requireArg(first, 'userId'),
          amountMicro: centsToMicro(amount),
          note: args.options.get('note') ?? null,
          idempotencyKey: requireArg(args.options.get('idempotency-key'), '--idempotency-key'),
        });
        print({ created: posted.created, entry: presentLedgerEntry(posted.entry) });
        return 0;
      }
      case 'ledger show': {
        const userId = requireArg(first, 'userId');
        const user = await getUser(db, userId);
        const entries = await listEntries(db, userId, integerOption(args, 'limit') ?? 100);
        print({ user: presentUser(user), balanceMicroUsd: String(user.balance_micro), heldMicroUsd: String(user.held_micro), entries: entries.map(presentLedgerEntry) });
        return 0;
      }
      case 'ledger verify': {
        const mismatches = await verifyLedger(db);
        // Not a fault of the books (nothing was credited), but money an operator has to settle.
        const checkoutsInReview = (await listCheckoutsInReview(db)).map((c) => ({
          checkoutId: c.id, userId: c.user_id, sessionId: c.session_id, expectedMicroUsd: String(c.amount_micro), paidAmountMinor: c.paid_amount_minor, paidCurrency: c.paid_currency,
        }));
        print({ ok: mismatches.length === 0, mismatches, checkoutsInReview });
        return mismatches.length === 0 ? 0 : 1;
      }
      case 'agent verify-routes': {
        // The probes GET /agent/models reports, run now for every text route instead of on first use.
        const upstreams = await servedUpstreams(config, db);
        const catalog = Catalog.build({ models: upstreams.modelOverrides(), addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels });
        const router = new ChatRouter(upstreams, createChatProviderRegistry(), new RoutePlanner(upstreams, new MemoryHealthBoard()));
        const capabilities = new RouteCapabilities({ store: new KyselyAgentLibraryStore(), uow: kyselyUnitOfWork(db), router, catalog, logger: pino({ level: 'silent' }), maxAgeMs: config.agent.capabilityProbeIntervalMs });
        try {
          await capabilities.probeAll();
          const report = [];
          for (const model of catalog.chatModels()) report.push({ model: model.id, routes: await capabilities.report(model.id) });
          print(report);
        } finally {
          await router.close();
        }
        return 0;
      }
      case 'providers': {
        // What the gateway serves: the config file with the live settings laid over it; keys as hints.
        const upstreams = await servedUpstreams(config, db);
        const routes = upstreams.routes();
        print(
          upstreams.providers().map((p) => ({
            name: p.name,
            type: p.type,
            baseUrl: p.baseUrl ?? null,
            source: p.source,
            enabled: p.enabled,
            keys: p.keys.filter((k) => k.hint !== '').map((k) => ({ id: k.id, hint: k.hint, enabled: k.enabled })),
            routes: routes.filter((r) => r.entries.some((e) => e.provider === p.name)).map((r) => r.modelId),
          })),
        );
        return 0;
      }
      default:
        console.error(`unknown command: ${[command, ...args.positional].join(' ')}\n\n${help}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${help}`);
      return 2;
    }
    if (isAppError(error)) {
      console.error(JSON.stringify({ error: { code: error.code, message: error.message } }));
      return 1;
    }
    throw error;
  } finally {
    await bus.close();
    await database.close();
  }
}

/** The upstreams as the gateway serves them (file and live), read once: no bus, no poll. */
async function servedUpstreams(config: Config, db: Parameters<typeof kyselyUnitOfWork>[0]): Promise<UpstreamDirectory> {
  const secrets = await loadGatewaySecretBox({ env: { SWITCHBOARD_SECRET_KEY: config.secretKey }, dataDir: config.dataDir, embedded: config.databaseUrl === undefined });
  const directory = new UpstreamDirectory({ file: config, live: { store: kyselyUpstreamSettingsStore, uow: kyselyUnitOfWork(db), secrets: secrets.box, bus: new MemoryEventBus() }, logger: pino({ level: 'silent' }) });
  await directory.reload();
  return directory;
}
