/**
 * Client addresses as an operator may type them into the admin API: spellings the limiter's
 * form can be read from without doubt (which the API must take, so the override reaches the
 * client at that address), and ambiguous ones or no address at all (which it must refuse).
 * Each lane gets addresses of its own (first IPv4 octet, first IPv6 group), so lanes running at
 * once never set or remove each other's overrides.
 */
import fc from 'fast-check';
import { hostileText } from './hostile-values';

export interface TypedAddress {
  /** The address the client's requests come from (sent as X-Forwarded-For). */
  address: string;
  /** The identity the operator types. */
  typed: string;
  /** 'taken': in the limiter's form; 'refused': a 400; 'either': any 2xx must be a limiter form. */
  expect: 'taken' | 'refused' | 'either';
}

const byte = fc.nat(255);
const group = fc.nat(0xffff);
const hex = (n: number) => n.toString(16);

/** An IPv4 address of lane `lane` and every way to type it. */
const ipv4 = (lane: number): fc.Arbitrary<TypedAddress> =>
  fc.tuple(byte, byte, byte, fc.nat(12), fc.nat(3)).map(([b, c, d, how, part]) => {
    const parts = [11 + lane, b, c, d];
    const address = parts.join('.');
    const padded = parts.map((p, i) => (i === part ? `0${p}` : `${p}`)).join('.');
    const spellings: [string, TypedAddress['expect']][] = [
      [`ip:${address}`, 'taken'],
      [`IP:${address}`, 'taken'],
      [`ip:::ffff:${address}`, 'taken'],
      [`ip:::FFFF:${address}`, 'taken'],
      [`ip:0:0:0:0:0:ffff:${hex(parts[0] * 256 + b)}:${hex(c * 256 + d)}`, 'taken'],
      [`ip:${padded}`, 'refused'], // octal to some parsers
      [`ip:${address}.`, 'refused'],
      [`ip: ${address}`, 'refused'],
      [`ip:${address.replace('.', '. ')}`, 'refused'],
      [`ip:${address}/32`, 'refused'],
      [`ip:${address}:8080`, 'refused'],
      [`ip:${parts[0]}.${b * 65_536 + c * 256 + d}`, 'refused'], // shorthand
      [`ip:::ffff:${padded}`, 'refused'],
    ];
    const [typed, expect] = spellings[how];
    return { address, typed, expect };
  });

/** An IPv6 address of lane `lane` (never IPv4-mapped) and every way to type it or its /64. */
const ipv6 = (lane: number): fc.Arbitrary<TypedAddress> =>
  fc
    .tuple(fc.array(group, { minLength: 7, maxLength: 7 }), fc.nat(14), fc.boolean())
    .map(([rest, how, upper]) => {
      const groups = [0x2a00 + lane, ...rest].map(hex);
      const address = groups.join(':');
      const net = groups.slice(0, 4).join(':');
      const full = groups.map((g) => g.padStart(4, '0')).join(':');
      const spellings: [string, TypedAddress['expect']][] = [
        [`ip:${address}`, 'taken'],
        [`ip:${full}`, 'taken'],
        [`ip:${net}::/64`, 'taken'],
        [`ip:${net}:0:0:0:0/64`, 'taken'],
        [`ip:${address}/64`, 'taken'],
        [`IP:${net}::${groups[7]}`, 'taken'],
        [`ip:${net}::/48`, 'refused'],
        [`ip:${net}::/56`, 'refused'],
        [`ip:${address}/128`, 'refused'],
        [`ip:${net}::/064`, 'refused'],
        [`ip:${address}%eth0`, 'refused'],
        [`ip:[${address}]:443`, 'refused'],
        [`ip:${address} `, 'refused'],
        [`ip:${net}:::${groups[7]}`, 'refused'],
        [`ip:${net}::/64.`, 'refused'],
      ];
      const [typed, expect] = spellings[how];
      // Hex case never changes an address (a zone or a port aside, which are refused anyway).
      return { address, typed: upper ? typed.toUpperCase() : typed, expect };
    });

/** Text after `ip:` that is no address; whatever the API does with it must match a client. */
const notAnAddress: fc.Arbitrary<TypedAddress> = fc
  .oneof(hostileText(200), fc.constantFrom('', 'unknown', 'UNKNOWN', '127.1', '0x7f.0.0.1'))
  .map((text) => ({ address: '', typed: `ip:${text}`, expect: 'either' as const }));

export const typedAddress = (lane: number): fc.Arbitrary<TypedAddress> =>
  fc.oneof(
    { arbitrary: ipv4(lane), weight: 4 },
    { arbitrary: ipv6(lane), weight: 4 },
    { arbitrary: notAnAddress, weight: 1 },
  );

/**
 * The forms the limiter keys addresses by: IPv4 in four decimal parts, IPv6 as the first four
 * groups of its /64, or `unknown` (a request without an address). An `ip:` identity the admin
 * API stores in any other form would match no request.
 */
export const LIMITER_ADDRESS_FORM =
  /^ip:(unknown|(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}|([0-9a-f]{1,4}:){3}[0-9a-f]{1,4}::\/64)$/;
