import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import { normalizePolicy } from '../../policy/normalize-policy';
import type { StoreEntry } from '../rate-limit-store.interface';
import { encodeDecideCall, parseDecideReply } from './decide-call';

const plain = normalizePolicy({ algo: 'gcra', limit: 5, window: '10s' }, 'plain', 'test');
const penal = normalizePolicy(
  { algo: 'fixed-window', limit: 2, window: '1m', blockFor: '5m', mode: 'shadow' },
  'penal',
  'test',
);
/** What a decision under `plain` reports of the policy itself. */
const PLAIN = { policy: 'plain', shadow: false, limit: 5, source: 'redis' };
const entry = (key: string, policy = plain, cost = 1): StoreEntry => ({
  key,
  overrideKey: `${key}:client`,
  blockKey: `${key}:block`,
  policy,
  cost,
});

describe('encodeDecideCall', () => {
  it("sends each policy's thresholds once and a block key only with blockFor", () => {
    const call = encodeDecideCall(
      'consume',
      [[entry('a1'), entry('a2', penal, 3)], [entry('b1')]],
      undefined,
    );
    expect(call.keys).toEqual([
      'a1',
      'a1:client',
      'a2',
      'a2:client',
      'a2:block',
      'b1',
      'b1:client',
    ]);
    expect(call.args).toEqual([
      'consume',
      '',
      '',
      1,
      2,
      ...['gcra', 5, 10_000, 5, 0, 0],
      ...['fixed-window', 2, 60_000, 2, 300_000, 1],
      ...[2, 1, 1, 2, 3],
      ...[1, 1, 1],
    ]);
  });

  it('passes an explicit time in whole microseconds', () => {
    expect(encodeDecideCall('peek', [[entry('a')]], 1_234_567.9).args[1]).toBe(1_234_567);
  });

  it('names the time a refunded cost was charged, and nothing for other calls', () => {
    const refund = encodeDecideCall('refund', [[entry('a')]], undefined, 7_000_000.4);
    expect(refund.args.slice(0, 3)).toEqual(['refund', '', 7_000_000]);
    expect(encodeDecideCall('consume', [[entry('a')]], undefined).args[2]).toBe('');
  });

  it('says when no key repeats, so that the script needs no cache within the call', () => {
    expect(encodeDecideCall('consume', [[entry('a')], [entry('b')]], undefined).args[3]).toBe(1);
    // One client twice in a batch: its keys repeat, and the script caches its state.
    expect(encodeDecideCall('consume', [[entry('a')], [entry('a')]], undefined).args[3]).toBe('');
  });
});

describe('encodeDecideCall, lone form', () => {
  const bare = (key: string, policy = plain, cost = 1): StoreEntry => ({
    key,
    blockKey: `${key}:block`,
    policy,
    cost,
  });

  it('sends a lone request without override key or penalty as one argument', () => {
    expect(encodeDecideCall('consume', [[bare('a')]], undefined)).toEqual({
      keys: ['a'],
      args: ['cgcra:5:10000'],
    });
    expect(encodeDecideCall('peek', [[bare('a')]], undefined).args).toEqual(['pgcra:5:10000']);
  });

  it('adds burst, shadow and cost when any of them is not its default', () => {
    expect(encodeDecideCall('consume', [[bare('a', plain, 2)]], undefined).args).toEqual([
      'cgcra:5:10000:5:0:2',
    ]);
    expect(encodeDecideCall('peek', [[bare('a', plain, 0)]], undefined).args).toEqual([
      'pgcra:5:10000:5:0:0',
    ]);
    const bursty = normalizePolicy(
      { algo: 'token-bucket', limit: 3, window: '1s', burst: 6 },
      'b',
      'test',
    );
    expect(encodeDecideCall('consume', [[bare('a', bursty)]], undefined).args).toEqual([
      'ctoken-bucket:3:1000:6:0:1',
    ]);
    expect(encodeDecideCall('consume', [[bare('a', bursty, 3)]], undefined).args).toEqual([
      'ctoken-bucket:3:1000:6:0:3',
    ]);
  });

  it('uses the general form whenever the lone form cannot say it', () => {
    const general = (call: { args: (string | number)[] }) => call.args[0];
    // An override key to read, a block key, an explicit time, a refund, two entries, two groups.
    expect(general(encodeDecideCall('consume', [[entry('a')]], undefined))).toBe('consume');
    const shadowPenal = normalizePolicy(
      { algo: 'fixed-window', limit: 2, window: '1m', blockFor: '5m' },
      'p',
      'test',
    );
    expect(general(encodeDecideCall('consume', [[bare('a', shadowPenal)]], undefined))).toBe(
      'consume',
    );
    expect(general(encodeDecideCall('consume', [[bare('a')]], 5_000_000))).toBe('consume');
    expect(general(encodeDecideCall('refund', [[bare('a')]], undefined, 1))).toBe('refund');
    expect(general(encodeDecideCall('consume', [[bare('a'), bare('b')]], undefined))).toBe(
      'consume',
    );
    expect(general(encodeDecideCall('consume', [[bare('a')], [bare('b')]], undefined))).toBe(
      'consume',
    );
  });

  it('marks a shadow policy', () => {
    const shadow = normalizePolicy(
      { algo: 'token-bucket', limit: 3, window: '1s', burst: 6, mode: 'shadow' },
      's',
      'test',
    );
    expect(encodeDecideCall('consume', [[bare('a', shadow)]], undefined).args).toEqual([
      'ctoken-bucket:3:1000:6:1:1',
    ]);
  });
});

describe('parseDecideReply', () => {
  const groups = [[entry('a1'), entry('a2')], [entry('b1')], [entry('c1')]];

  it('splits the flat reply per group and keeps a failed group to itself', () => {
    const replies = parseDecideReply(
      [
        ...[1_700_000_000_000_000, 0, 4, 100, 0, 0, 0, 900, 900, 1],
        ...[-1, 'WRONGTYPE Operation', 1, 3, 50, 0, 0],
      ],
      groups,
    );
    expect(replies[0]).toEqual({
      admitted: false,
      decidedAtUs: 1_700_000_000_000_000,
      decisions: [
        { ...PLAIN, allowed: true, remaining: 4, resetMs: 100, retryAfterMs: 0 },
        {
          ...PLAIN,
          allowed: false,
          remaining: 0,
          resetMs: 900,
          retryAfterMs: 900,
          reason: 'limit',
        },
      ],
    });
    expect(replies[1]).toBeInstanceOf(RateLimitStoreError);
    expect((replies[1] as Error).message).toContain('WRONGTYPE');
    expect(replies[2]).toMatchObject({
      admitted: true,
      decidedAtUs: 1_700_000_000_000_000,
      decisions: [{ remaining: 3 }],
    });
  });

  it("reads the lone form's admitted reply: seconds, microseconds, remaining, resetMs", () => {
    expect(parseDecideReply('1700000000:5:4:900', [[entry('a')]])).toEqual([
      {
        admitted: true,
        decidedAtUs: 1_700_000_000_000_005,
        decisions: [{ ...PLAIN, allowed: true, remaining: 4, resetMs: 900, retryAfterMs: 0 }],
      },
    ]);
    // Three values whose third is a message: a failed group, not an admission.
    const failed = parseDecideReply([9, -1, 'WRONGTYPE Operation'], [[entry('a')]]);
    expect(failed[0]).toBeInstanceOf(RateLimitStoreError);
    // Only a lone call can be answered so.
    expect(() => parseDecideReply('9:0:4:900', [[entry('a'), entry('b')]])).toThrow(
      /Unexpected reply/,
    );
    expect(() => parseDecideReply('9:0:4:900', [[entry('a')], [entry('b')]])).toThrow(
      /Unexpected reply/,
    );
    for (const bad of [
      '9:0:4',
      '9:0:4:',
      ':0:4:900',
      '9::4:900',
      '9:0:x:900',
      'OK',
      '9:0:4:900:1',
    ]) {
      expect(() => parseDecideReply(bad, [[entry('a')]])).toThrow(/Unexpected reply/);
    }
  });

  it("sets what a group's extras say on its decisions, and lists the uncharged", () => {
    const [reply] = parseDecideReply(
      [
        ...[9, 2, 0, 0, 0, 4, 7, 100, 0, 0, 0, 0, 0, 0, 4, 100, 0, 0],
        ...[4, 1, 'Suspended', 2, 8, 3, -1, 4, 0],
      ],
      [[entry('a'), entry('b'), entry('c'), entry('d')]],
    );
    const admitted = { ...PLAIN, allowed: true, resetMs: 0, retryAfterMs: 0 };
    expect(reply).toEqual({
      admitted: false,
      decidedAtUs: 9,
      decisions: [
        {
          ...PLAIN,
          allowed: false,
          remaining: 0,
          resetMs: 0,
          retryAfterMs: 0,
          reason: 'denied',
          clientOverride: 'deny',
          message: 'Suspended',
        },
        { ...admitted, remaining: 7, resetMs: 100, clientOverride: 'quota', limit: 8 },
        { ...admitted, remaining: 0, clientOverride: 'allow' },
        { ...admitted, remaining: 4, resetMs: 100, clientOverride: 'allow' },
      ],
      uncharged: [2],
    });
  });

  it('refuses a reply of the wrong shape', () => {
    expect(() => parseDecideReply([9, 1, 4, 0], [[entry('a')]])).toThrow(RateLimitStoreError);
    expect(() => parseDecideReply([9, 1, 4, 0, 0, 0, 7], [[entry('a')]])).toThrow(
      /Unexpected reply/,
    );
    // Without the leading time.
    expect(() => parseDecideReply(['1', 1, 4, 0, 0], [[entry('a')]])).toThrow(/Unexpected reply/);
    expect(() => parseDecideReply('OK', [[entry('a')]])).toThrow(RateLimitStoreError);
  });
});
