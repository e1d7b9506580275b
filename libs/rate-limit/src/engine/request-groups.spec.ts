import { KeyBuilder } from '../keys/key-builder';
import { normalizePolicy } from '../policy/normalize-policy';
import { encodeDecideCall } from '../store/redis/decide-call';
import { storeEntry } from './request-groups';

describe('storeEntry: the client override key only once client overrides are in use', () => {
  const policy = normalizePolicy({ limit: 5, window: '1m' }, 'p', 'test');

  it('sends no override key (the lone form) while none is in use, then one per entry', () => {
    const keys = new KeyBuilder('t');
    const tag = keys.identityTag('ip:10.0.0.1');
    const before = storeEntry(keys, policy, tag, 1);
    expect(before.overrideKey).toBeUndefined();
    const quiet = encodeDecideCall('consume', [[before]], undefined);
    expect(quiet.keys).toEqual([before.key]);
    expect(quiet.args).toEqual(['cfixed-window:5:60000']); // the lone form: the state alone
    const twoClients = encodeDecideCall('consume', [[before], [before]], undefined);
    expect(twoClients.keys).toEqual([before.key, before.key]);
    expect(twoClients.args.slice(-3)).toEqual([1, -1, 1]); // a negative spec: no override key

    keys.clientOverridesInUse = true;
    const after = storeEntry(keys, policy, tag, 1);
    expect(after.overrideKey).toBe(`${tag}p:client`);
    const read = encodeDecideCall('consume', [[after]], undefined);
    expect(read.keys).toEqual([after.key, after.overrideKey]);
    expect(read.args.slice(-2)).toEqual([1, 1]);
  });
});
