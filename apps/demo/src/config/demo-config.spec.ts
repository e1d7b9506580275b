import { httpPlatform, validateDemoEnv } from './demo-config';

describe('validateDemoEnv', () => {
  it('reads cluster nodes as host:port and [IPv6]:port', () => {
    const { demo } = validateDemoEnv({
      REDIS_CLUSTER_NODES: 'a.example:7000, [::1]:7001,10.0.0.2:7002',
    });
    expect(demo.clusterNodes).toEqual([
      { host: 'a.example', port: 7000 },
      { host: '::1', port: 7001 },
      { host: '10.0.0.2', port: 7002 },
    ]);
  });

  it.each(['a.example:0', 'a.example:65536', 'a.example:99999', 'a.example', '::1:7000'])(
    'refuses the node list %j, naming the variable',
    (nodes) => {
      expect(() => validateDemoEnv({ REDIS_SENTINELS: nodes })).toThrow(/REDIS_SENTINELS/);
    },
  );
});

describe('TRUST_PROXY', () => {
  it.each<[string | undefined, unknown]>([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['1', 1],
    [' 2 ', 2],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 192.168.1.7', '10.0.0.0/8, 192.168.1.7'],
  ])('reads %j as Express does: %j', (value, expected) => {
    expect(validateDemoEnv({ TRUST_PROXY: value }).demo.trustProxy).toEqual(expected);
  });
});

describe('RATE_LIMIT_SHED_REJECTIONS', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['false', false],
    [' true ', true],
  ])('reads %j as %j (off unless asked for)', (value, expected) => {
    expect(validateDemoEnv({ RATE_LIMIT_SHED_REJECTIONS: value }).demo.shedRejections).toBe(
      expected,
    );
  });

  it.each(['1', 'yes', 'TRUE'])('refuses %j, naming the variable', (value) => {
    expect(() => validateDemoEnv({ RATE_LIMIT_SHED_REJECTIONS: value })).toThrow(
      `RATE_LIMIT_SHED_REJECTIONS must be true or false (got ${JSON.stringify(value)})`,
    );
  });
});

describe('RATE_LIMIT_ADAPTIVE', () => {
  it.each<[string | undefined, string]>([
    [undefined, 'off'],
    ['', 'off'],
    ['shadow', 'shadow'],
    ['enforce', 'enforce'],
  ])('reads %j as %j (off unless asked for)', (value, expected) => {
    expect(validateDemoEnv({ RATE_LIMIT_ADAPTIVE: value }).demo.adaptive).toBe(expected);
  });

  it.each([
    [undefined, undefined],
    ['0.9', 0.9],
  ])('reads RATE_LIMIT_ADAPTIVE_ELU_TARGET %j as %j', (value, expected) => {
    expect(validateDemoEnv({ RATE_LIMIT_ADAPTIVE_ELU_TARGET: value }).demo.adaptiveEluTarget).toBe(
      expected,
    );
  });

  it.each(['0', '1.5', 'high'])('refuses RATE_LIMIT_ADAPTIVE_ELU_TARGET %j', (value) => {
    expect(() => validateDemoEnv({ RATE_LIMIT_ADAPTIVE_ELU_TARGET: value })).toThrow(
      `RATE_LIMIT_ADAPTIVE_ELU_TARGET must be a number above 0 and at most 1 (got ${JSON.stringify(value)})`,
    );
  });

  it('refuses another mode, naming the variable and the modes', () => {
    expect(() => validateDemoEnv({ RATE_LIMIT_ADAPTIVE: 'on' })).toThrow(
      'RATE_LIMIT_ADAPTIVE must be one of off, shadow, enforce (got "on")',
    );
  });
});

describe('HTTP_PLATFORM', () => {
  it.each<[string | undefined, string]>([
    [undefined, 'express'],
    ['', 'express'],
    ['express', 'express'],
    [' fastify ', 'fastify'],
  ])('reads %j as %j', (value, expected) => {
    expect(validateDemoEnv({ HTTP_PLATFORM: value }).demo.httpPlatform).toBe(expected);
    expect(httpPlatform(value)).toBe(expected);
  });

  it.each(['koa', 'Fastify', 'express,fastify'])('refuses %j, naming the choices', (value) => {
    expect(() => validateDemoEnv({ HTTP_PLATFORM: value })).toThrow(
      `HTTP_PLATFORM must be one of express, fastify (got ${JSON.stringify(value)})`,
    );
  });
});

describe('ADMIN_TOKEN', () => {
  it.each(['change-me', 'q', 'q'.repeat(31)])(
    'refuses %j: shorter than 32 characters, without echoing it',
    (token) => {
      const call = () => validateDemoEnv({ ADMIN_TOKEN: token });
      expect(call).toThrow(/ADMIN_TOKEN must be at least 32 characters/);
      expect(call).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining(token) }),
      );
    },
  );

  it('takes 32 characters, and leaves an unset or empty one to be generated', () => {
    expect(validateDemoEnv({ ADMIN_TOKEN: 'k'.repeat(32) }).demo.adminToken).toBe('k'.repeat(32));
    expect(validateDemoEnv({}).demo.adminToken).toBeUndefined();
    expect(validateDemoEnv({ ADMIN_TOKEN: '' }).demo.adminToken).toBeUndefined();
  });
});
