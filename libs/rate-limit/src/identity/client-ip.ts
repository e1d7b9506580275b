import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';
import { boundedMemo } from '../util/bounded-memo';

/**
 * Which proxies' `X-Forwarded-For` to believe, in the forms of Express's `trust proxy`: a hop
 * count, addresses or subnets (a list or a comma-separated string; names `loopback`,
 * `linklocal`, `uniquelocal`), or a function of (address, hop). `true` trusts every hop, so any
 * client picks its own address: warned about at start.
 */
export type TrustProxy =
  boolean | number | string | readonly string[] | ((address: string, hop: number) => boolean);

/** Logged at start for `trustProxy: true` (express-rate-limit's ERR_ERL_PERMISSIVE_TRUST_PROXY). */
export const PERMISSIVE_TRUST_PROXY_WARNING =
  'trustProxy is true: every X-Forwarded-For hop is believed, so a client can send any address ' +
  'it likes as its own and get a fresh limit with each one. Set trustProxy to the number of ' +
  "proxies in front of the app, or to their addresses or subnets (e.g. 1, 'loopback', " +
  "'10.0.0.0/8').";

export type ClientIpResolver = (request: IncomingMessage) => string;

/**
 * Builds the client-IP function once at bootstrap. `X-Forwarded-For` is read only when
 * `trustProxy` says which proxies to believe; otherwise the socket address is the client.
 */
export function createClientIpResolver(
  trustProxy: TrustProxy | undefined,
  warn: (message: string) => void = (message) => new Logger('RateLimit').warn(message),
): ClientIpResolver {
  // Parsing an address is the costly part; a client keeps its address across requests.
  const normalize = boundedMemo(normalizeIp);
  if (trustProxy === undefined || trustProxy === false) {
    let warned = false;
    return (request) => {
      if (!warned && request.headers['x-forwarded-for'] !== undefined) {
        warned = true;
        warn(
          'Requests carry X-Forwarded-For but trustProxy is off: the header is ignored, so every ' +
            "client behind that proxy shares the proxy address's limits. Set trustProxy to the " +
            'proxies you run (never to a value clients can spoof).',
        );
      }
      return normalize(request.socket?.remoteAddress ?? '');
    };
  }
  if (trustProxy === true) warn(PERMISSIVE_TRUST_PROXY_WARNING);
  const trust =
    trustProxy === true
      ? () => true
      : typeof trustProxy === 'number'
        ? (_addr: string, hop: number) => hop < trustProxy
        : typeof trustProxy === 'function'
          ? trustProxy
          : compileTrustedProxies(trustProxy);
  // Walking the forwarded chain parses every hop; a request asks again for each of its stacked
  // policies, and a GraphQL request for each limited field (thousands with aliases).
  const byRequest = new WeakMap<IncomingMessage, string>();
  return (request) => {
    let client = byRequest.get(request);
    if (client !== undefined) return client;
    client = normalize(proxyAddr(request, trust));
    // Text a client wrote into X-Forwarded-For that is no address is never an identity.
    if (client === NOT_AN_IP) client = normalize(request.socket?.remoteAddress ?? '');
    byRequest.set(request, client);
    return client;
  };
}

/** Addresses, subnets or names (`loopback`…), as a list or comma-separated as Express takes them. */
function compileTrustedProxies(trustProxy: string | readonly string[]) {
  const list = typeof trustProxy === 'string' ? trustProxy.split(',') : [...trustProxy];
  return proxyAddr.compile(list.map((entry) => String(entry).trim()));
}

/** `1.2.3.4:5678` or `[2001:db8::1]:5678`, as some proxies write X-Forwarded-For entries. */
const WITH_PORT = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9A-Fa-f:.]+)\]):\d{1,5}$/;

/** What normalizeIp answers for text that is no IP address (and no socket address at all). */
export const NOT_AN_IP = 'unknown';

/**
 * IPv4 as is; IPv4-mapped IPv6 as IPv4; other IPv6 reduced to its /64, the usual size of one
 * subscriber's allocation, so rotating addresses inside it does not escape a limit. A port some
 * proxies append is dropped: otherwise each new source port would be a new client. Anything
 * else (no address, or text that is none) is `unknown`.
 */
export function normalizeIp(address: string): string {
  if (!ipaddr.isValid(address)) {
    const withPort = WITH_PORT.exec(address);
    const host = withPort?.[1] ?? withPort?.[2];
    if (host !== undefined && ipaddr.isValid(host)) return normalizeIp(host);
    return NOT_AN_IP;
  }
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
