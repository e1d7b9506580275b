import type { IncomingMessage } from 'node:http';
import {
  createClientIpResolver,
  normalizeIp,
  PERMISSIVE_TRUST_PROXY_WARNING,
  type TrustProxy,
} from './client-ip';

/** Just what proxy-addr (through `forwarded`) and the resolver read: headers and the socket address. */
function fakeRequest(remoteAddress: string | undefined, forwardedFor?: string): IncomingMessage {
  const headers: Record<string, string> =
    forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

describe('normalizeIp', () => {
  it('keeps IPv4 as it is', () => {
    expect(normalizeIp('10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeIp('203.0.113.255')).toBe('203.0.113.255');
  });

  it('turns IPv4-mapped IPv6 into IPv4', () => {
    expect(normalizeIp('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  it('groups IPv6 addresses of one /64', () => {
    const a = normalizeIp('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    const b = normalizeIp('2001:db8:1:2::1');
    const c = normalizeIp('2001:0db8:0001:0002:ffff:ffff:ffff:ffff');
    expect(a).toBe(b);
    expect(a).toBe(c);
    expect(a).toContain('/64');
  });

  it('separates IPv6 addresses of different /64s', () => {
    expect(normalizeIp('2001:db8:1:2::1')).not.toBe(normalizeIp('2001:db8:1:3::1'));
    expect(normalizeIp('2001:db8:1:2::1')).not.toBe(normalizeIp('2001:db9:1:2::1'));
  });

  it('drops the port some proxies append, so each source port is not a new client', () => {
    expect(normalizeIp('203.0.113.7:51234')).toBe('203.0.113.7');
    expect(normalizeIp('[2001:db8:1:2::1]:443')).toBe(normalizeIp('2001:db8:1:2::1'));
    expect(normalizeIp('[::ffff:10.1.2.3]:80')).toBe('10.1.2.3');
  });

  it('names a missing address, and text that is no address, unknown', () => {
    expect(normalizeIp('')).toBe('unknown');
    expect(normalizeIp('proxy.example:8080')).toBe('unknown');
    expect(normalizeIp('not-an-ip-1')).toBe('unknown');
  });
});

describe('createClientIpResolver', () => {
  const client = '203.0.113.7';

  it.each([undefined, false] as const)(
    'ignores X-Forwarded-For when trustProxy is %s',
    (trustProxy) => {
      const resolve = createClientIpResolver(trustProxy);
      expect(resolve(fakeRequest('127.0.0.1', client))).toBe('127.0.0.1');
      expect(resolve(fakeRequest('::ffff:10.0.0.9', client))).toBe('10.0.0.9');
    },
  );

  it('uses the socket address when there is no header', () => {
    expect(createClientIpResolver(true)(fakeRequest('198.51.100.1'))).toBe('198.51.100.1');
    expect(createClientIpResolver(undefined)(fakeRequest(undefined))).toBe('unknown');
  });

  it('with trustProxy true takes the first address of X-Forwarded-For', () => {
    const resolve = createClientIpResolver(true);
    expect(resolve(fakeRequest('127.0.0.1', client))).toBe(client);
    expect(resolve(fakeRequest('127.0.0.1', `${client}, 10.0.0.1, 10.0.0.2`))).toBe(client);
  });

  it('with trustProxy 1 trusts one hop: the last address of X-Forwarded-For', () => {
    const resolve = createClientIpResolver(1);
    expect(resolve(fakeRequest('127.0.0.1', client))).toBe(client);
    expect(resolve(fakeRequest('127.0.0.1', `198.51.100.66, ${client}`))).toBe(client);
  });

  it('with a trusted proxy address honours the header from that address only', () => {
    const resolve = createClientIpResolver('127.0.0.1');
    expect(resolve(fakeRequest('127.0.0.1', client))).toBe(client);
    expect(resolve(fakeRequest('10.9.9.9', client))).toBe('10.9.9.9');
  });

  it('with a list that does not include the socket address ignores the header', () => {
    const resolve = createClientIpResolver(['10.0.0.1', '192.168.0.0/16']);
    expect(resolve(fakeRequest('127.0.0.1', client))).toBe('127.0.0.1');
    expect(resolve(fakeRequest('192.168.4.5', client))).toBe(client);
  });

  it('walks the forwarded chain once per request, however often it is asked', () => {
    const trust = jest.fn((_address: string, hop: number) => hop < 1);
    const resolve = createClientIpResolver(trust);
    const request = fakeRequest('127.0.0.1', client);
    for (let i = 0; i < 100; i++) expect(resolve(request)).toBe(client);
    expect(trust).toHaveBeenCalledTimes(1);
    // Another request is resolved on its own.
    expect(resolve(fakeRequest('127.0.0.1', '198.51.100.3'))).toBe('198.51.100.3');
    expect(trust).toHaveBeenCalledTimes(2);
  });

  it('groups a forwarded IPv6 client by /64', () => {
    const resolve = createClientIpResolver(true);
    const a = resolve(fakeRequest('127.0.0.1', '2001:db8:1:2::a'));
    const b = resolve(fakeRequest('127.0.0.1', '2001:db8:1:2::b'));
    expect(a).toBe(b);
    expect(a).toBe(normalizeIp('2001:db8:1:2::1'));
  });
});

describe('untrusted proxy warning', () => {
  it('warns once when X-Forwarded-For arrives while trustProxy is off, and still ignores it', () => {
    const warnings: string[] = [];
    const resolve = createClientIpResolver(undefined, (message) => warnings.push(message));
    const behindProxy = {
      headers: { 'x-forwarded-for': '203.0.113.9' },
      socket: { remoteAddress: '10.0.0.2' },
    };
    expect(resolve(behindProxy as never)).toBe('10.0.0.2');
    expect(resolve(behindProxy as never)).toBe('10.0.0.2');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('trustProxy');
  });

  it('does not warn for direct clients', () => {
    const warnings: string[] = [];
    const resolve = createClientIpResolver(undefined, (message) => warnings.push(message));
    resolve({ headers: {}, socket: { remoteAddress: '10.0.0.3' } } as never);
    expect(warnings).toEqual([]);
  });
});

describe('trustProxy as a comma-separated string, as Express takes it', () => {
  const resolve = createClientIpResolver('10.0.0.1, 10.0.0.2 ,loopback');

  it('trusts every listed proxy', () => {
    expect(resolve(fakeRequest('10.0.0.2', '203.0.113.9'))).toBe('203.0.113.9');
    expect(resolve(fakeRequest('127.0.0.1', '203.0.113.8'))).toBe('203.0.113.8');
  });

  it('does not trust an address that is not listed', () => {
    expect(resolve(fakeRequest('10.0.0.3', '203.0.113.9'))).toBe('10.0.0.3');
  });
});

describe('X-Forwarded-For entries that are no address (written by the client)', () => {
  it.each<[string, TrustProxy]>([
    ['true', true],
    ['loopback', 'loopback'],
    ['2 hops', 2],
  ])('are never an identity with trustProxy %s: the socket address is', (_, trustProxy) => {
    const resolve = createClientIpResolver(trustProxy, () => undefined);
    for (let n = 0; n < 12; n++) {
      expect(resolve(fakeRequest('127.0.0.1', `not-an-ip-${n}, 127.0.0.1`))).toBe('127.0.0.1');
    }
    expect(resolve(fakeRequest('127.0.0.1', 'x, {}, 127.0.0.1'))).toBe('127.0.0.1');
  });
});

describe('trustProxy forms', () => {
  it('true is warned about at start, loudly and once', () => {
    const warnings: string[] = [];
    createClientIpResolver(true, (message) => warnings.push(message));
    expect(warnings).toEqual([PERMISSIVE_TRUST_PROXY_WARNING]);
    expect(warnings[0]).toMatch(/any address/);
  });

  it('the narrower forms are not warned about', () => {
    const warnings: string[] = [];
    for (const form of [1, 'loopback', ['10.0.0.0/8'], () => false] as TrustProxy[]) {
      createClientIpResolver(form, (message) => warnings.push(message));
    }
    expect(warnings).toEqual([]);
  });

  it('a function decides hop by hop, as in Express', () => {
    const seen: [string, number][] = [];
    const resolve = createClientIpResolver((address, hop) => {
      seen.push([address, hop]);
      return address === '10.0.0.1';
    });
    expect(resolve(fakeRequest('10.0.0.1', '203.0.113.5, 198.51.100.9'))).toBe('198.51.100.9');
    expect(seen).toEqual([
      ['10.0.0.1', 0],
      ['198.51.100.9', 1],
    ]);
  });
});
