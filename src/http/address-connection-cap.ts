import type { Server } from 'node:http';
import { BlockList, isIPv4, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { addressGroup } from '../services/auth/address-group.ts';

/** TRUST_PROXY's keywords, as proxy-addr (Fastify's) reads them. */
const KEYWORD_RANGES: Readonly<Record<string, ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>>> = {
  loopback: [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']],
  linklocal: [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']],
  uniquelocal: [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['fc00::', 7, 'ipv6']],
};

/**
 * A cap on the connections one client address holds open at once (an IPv4 address, or an IPv6 /64:
 * address-group.ts). The server's global cap (SWITCHBOARD_MAX_CONNECTIONS) alone let one machine take
 * every slot with idle connections and every other client met ECONNRESET (issue 29). Excess
 * connections are destroyed as they are accepted, before a byte is read. The trusted proxies
 * (TRUST_PROXY) are not capped: every client behind them shares their address.
 */
export class AddressConnectionCap {
  readonly #max: number;
  readonly #trusted: BlockList | undefined;
  readonly #logger: Logger;
  readonly #open = new Map<string, number>();
  /** Groups at the cap whose refusal was logged; a group is logged again only after it fell below the cap. */
  readonly #logged = new Set<string>();

  constructor(max: number, trustProxy: string[] | false, logger: Logger) {
    this.#max = max;
    this.#trusted = trustProxy ? trustedList(trustProxy) : undefined;
    this.#logger = logger;
  }

  /** Counts every connection the server accepts (after its global maxConnections check). */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.#admit(socket));
  }

  #admit(socket: Socket): void {
    const ip = socket.remoteAddress;
    if (ip === undefined) return;
    const group = addressGroup(ip);
    if (this.#trusted?.check(isIPv4(group) ? group : ip, isIPv4(group) ? 'ipv4' : 'ipv6')) return;
    const open = (this.#open.get(group) ?? 0) + 1;
    if (open > this.#max) {
      socket.destroy();
      if (!this.#logged.has(group)) {
        this.#logged.add(group);
        this.#logger.warn({ address: group, max: this.#max }, 'an address reached its cap of open connections (SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS); more are refused until some close');
      }
      return;
    }
    this.#open.set(group, open);
    socket.once('close', () => {
      const left = (this.#open.get(group) ?? 1) - 1;
      if (left > 0) this.#open.set(group, left);
      else this.#open.delete(group);
      if (left < this.#max) this.#logged.delete(group);
    });
  }
}

function trustedList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const ranges = KEYWORD_RANGES[entry];
    if (ranges) {
      for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
      continue;
    }
    const [address = '', bits] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}
