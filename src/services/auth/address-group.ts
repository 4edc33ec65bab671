import { isIPv4 } from 'node:net';
import { parseIPv6 } from '../../adapters/outbound/ip-ranges.ts';

/**
 * The unit a per-address limit counts: an IPv4 address, or the /64 network of an IPv6 address. One
 * subscriber usually gets a whole /64 (often more), so counting single IPv6 addresses would give an
 * attacker 2^64 fresh budgets. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function addressGroup(ip: string): string {
  if (isIPv4(ip)) return ip;
  const bytes = parseIPv6(ip);
  if (!bytes) return ip;
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return Array.from(bytes.slice(12)).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return `${groups.join(':')}::/64`;
}
