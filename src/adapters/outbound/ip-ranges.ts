import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses an outbound request to a user-supplied URL may reach (DESIGN decision 9).
 *
 * IPv4 is a deny list of the special-purpose registry ranges. IPv6 is an allow list: only global
 * unicast (2000::/3) minus its special blocks, plus IPv4-mapped addresses judged by their IPv4 part.
 * Everything else (loopback, ULA, link-local, multicast, NAT64, IPv4-compatible, SIIT, discard)
 * is outside 2000::/3 and refused without needing its own rule.
 *
 * `private` ranges are opened by the operator switch (SWITCHBOARD_ALLOW_PRIVATE_URLS=1); `never`
 * ranges are not destinations at all (unspecified, multicast, broadcast) and stay closed.
 */

export type AddressVerdict =
  | { allowed: true }
  | { allowed: false; range: string; kind: 'private' | 'never' };

interface Block {
  bytes: number[];
  prefix: number;
  range: string;
  kind: 'private' | 'never';
}

function v4Block(cidr: string, range: string, kind: 'private' | 'never'): Block {
  const [address, prefix] = cidr.split('/') as [string, string];
  return { bytes: address.split('.').map(Number), prefix: Number(prefix), range, kind };
}

const IPV4_BLOCKS: readonly Block[] = [
  v4Block('0.0.0.0/8', 'unspecified / "this network" (0.0.0.0/8)', 'never'),
  v4Block('10.0.0.0/8', 'private (10.0.0.0/8)', 'private'),
  v4Block('100.64.0.0/10', 'carrier-grade NAT (100.64.0.0/10)', 'private'),
  v4Block('127.0.0.0/8', 'loopback (127.0.0.0/8)', 'private'),
  v4Block('169.254.0.0/16', 'link-local and cloud metadata (169.254.0.0/16)', 'private'),
  v4Block('172.16.0.0/12', 'private (172.16.0.0/12)', 'private'),
  v4Block('192.0.0.0/24', 'IETF protocol assignments (192.0.0.0/24)', 'private'),
  v4Block('192.0.2.0/24', 'documentation (192.0.2.0/24)', 'private'),
  v4Block('192.88.99.0/24', '6to4 relay anycast (192.88.99.0/24)', 'private'),
  v4Block('192.168.0.0/16', 'private (192.168.0.0/16)', 'private'),
  v4Block('198.18.0.0/15', 'benchmarking (198.18.0.0/15)', 'private'),
  v4Block('198.51.100.0/24', 'documentation (198.51.100.0/24)', 'private'),
  v4Block('203.0.113.0/24', 'documentation (203.0.113.0/24)', 'private'),
  v4Block('224.0.0.0/4', 'multicast (224.0.0.0/4)', 'never'),
  v4Block('240.0.0.0/4', 'reserved and broadcast (240.0.0.0/4)', 'never'),
];

function matches(bytes: Uint8Array | readonly number[], block: Block): boolean {
  let bits = block.prefix;
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((block.bytes[i] as number) & mask)) return false;
  }
  return true;
}

function v6Block(prefixHex: string, prefix: number, range: string, kind: 'private' | 'never'): Block {
  return { bytes: [...(parseIPv6(prefixHex) as Uint8Array)], prefix, range, kind };
}

/** Special blocks inside 2000::/3 that are not ordinary internet hosts. */
const IPV6_GLOBAL_EXCEPTIONS: readonly Block[] = [
  v6Block('2001::', 23, 'IETF protocol assignments incl. Teredo and benchmarking (2001::/23)', 'private'),
  v6Block('2001:db8::', 32, 'documentation (2001:db8::/32)', 'private'),
  v6Block('2002::', 16, '6to4 (2002::/16)', 'private'),
  v6Block('3fff::', 20, 'documentation (3fff::/20)', 'private'),
];

/** Names for the common non-global IPv6 ranges, for the error message. */
const IPV6_NAMED: readonly Block[] = [
  v6Block('::', 128, 'unspecified (::)', 'never'),
  v6Block('::1', 128, 'loopback (::1)', 'private'),
  v6Block('64:ff9b::', 96, 'NAT64 (64:ff9b::/96)', 'private'),
  v6Block('64:ff9b:1::', 48, 'local NAT64 (64:ff9b:1::/48)', 'private'),
  v6Block('::', 96, 'IPv4-compatible (::/96)', 'private'),
  v6Block('::ffff:0:0:0', 96, 'IPv4-translated (::ffff:0:0:0/96)', 'private'),
  v6Block('100::', 64, 'discard-only (100::/64)', 'private'),
  v6Block('fc00::', 7, 'unique local (fc00::/7)', 'private'),
  v6Block('fe80::', 10, 'link-local (fe80::/10)', 'private'),
  v6Block('fec0::', 10, 'site-local (fec0::/10)', 'private'),
  v6Block('ff00::', 8, 'multicast (ff00::/8)', 'never'),
];

/** The 16 bytes of an IPv6 address (zone index ignored), or undefined if it is not one. */
export function parseIPv6(text: string): Uint8Array | undefined {
  const address = text.replace(/%.*$/u, '');
  if (!isIPv6(address)) return undefined;
  let head = address;
  const tailBytes: number[] = [];
  const lastColon = address.lastIndexOf(':');
  const maybeV4 = address.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    if (!isIPv4(maybeV4)) return undefined;
    tailBytes.push(...maybeV4.split('.').map(Number));
    head = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::') as [string, string | undefined];
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - leftGroups.length - rightGroups.length;
  if (right === undefined ? missing !== 0 : missing < 0) return undefined;
  const groups = [...leftGroups, ...Array.from({ length: right === undefined ? 0 : missing }, () => '0'), ...rightGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  if (tailBytes.length === 4) bytes.set(tailBytes, 12);
  return bytes;
}

function classifyIPv4(bytes: readonly number[]): AddressVerdict {
  for (const block of IPV4_BLOCKS) {
    if (matches(bytes, block)) return { allowed: false, range: block.range, kind: block.kind };
  }
  return { allowed: true };
}

/**
 * Whether an address is an ordinary public internet host. Accepts IPv4 dotted quads and IPv6 in
 * any textual form (with or without brackets); anything else is refused as not an address.
 */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return classifyIPv4(bare.split('.').map(Number));
  const bytes = parseIPv6(bare);
  if (!bytes) return { allowed: false, range: 'not an IP address', kind: 'never' };
  const isMapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isMapped) {
    const verdict = classifyIPv4([...bytes.subarray(12)]);
    return verdict.allowed ? verdict : { ...verdict, range: `IPv4-mapped ${verdict.range}` };
  }
  if (((bytes[0] as number) & 0xe0) === 0x20) {
    for (const block of IPV6_GLOBAL_EXCEPTIONS) {
      if (matches(bytes, block)) return { allowed: false, range: block.range, kind: block.kind };
    }
    return { allowed: true };
  }
  for (const block of IPV6_NAMED) {
    if (matches(bytes, block)) return { allowed: false, range: block.range, kind: block.kind };
  }
  return { allowed: false, range: 'reserved (outside IPv6 global unicast 2000::/3)', kind: 'private' };
}

/** True when the address may be contacted: public, or private with the operator's permission. */
export function isAddressAllowed(address: string, allowPrivate: boolean): boolean {
  const verdict = classifyAddress(address);
  return verdict.allowed || (allowPrivate && verdict.kind === 'private');
}
