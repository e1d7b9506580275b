import { RejectedClients } from './rejected-clients';

describe('RejectedClients', () => {
  it('counts per policy and identity, and take() gives the top and forgets', () => {
    const clients = new RejectedClients();
    for (let i = 0; i < 3; i++) clients.add('p', 'a');
    clients.add('p', 'b');
    clients.add('q', 'a');
    expect(clients.take(1)).toEqual(
      new Map([
        ['p', [['a', 3]]],
        ['q', [['a', 1]]],
      ]),
    );
    expect(clients.take(5).size).toBe(0);
  });

  it('stays bounded under a flood of distinct identities, keeping the heavy hitters', () => {
    const clients = new RejectedClients(100);
    for (let i = 0; i < 50; i++) clients.add('p', 'heavy');
    for (let i = 0; i < 100_000; i++) clients.add('p', `flood-${i}`);
    for (let i = 0; i < 50; i++) clients.add('p', 'heavy');
    const [top] = clients.take(1).get('p')!;
    expect(top).toEqual(['heavy', 100]);
    const all = new RejectedClients(100);
    for (let i = 0; i < 10_000; i++) all.add('p', `x-${i % 300}`);
    expect(all.take(1_000).get('p')!.length).toBeLessThanOrEqual(100);
  });

  it.each([1_000, 999, 600])(
    'walks the map at most once per half of it freed: %d repeat offenders, then 100,000 new identities',
    (offenders) => {
      const clients = new RejectedClients(1_000);
      for (let i = 0; i < offenders; i++) {
        clients.add('p', `r-${i}`);
        clients.add('p', `r-${i}`);
      }
      for (let i = offenders; i < 1_000; i++) clients.add('p', `once-${i}`);
      // Counts the entries the sweeps walk: one sweep per new identity would be ~10^8.
      let walked = 0;
      const counts = (
        clients as unknown as { byPolicy: Map<string, Map<string, number>> }
      ).byPolicy.get('p')!;
      const iterate = counts[Symbol.iterator].bind(counts);
      counts[Symbol.iterator] = function* () {
        for (const entry of iterate()) {
          walked++;
          yield entry;
        }
        return undefined;
      } as (typeof counts)[typeof Symbol.iterator];
      for (let i = 0; i < 100_000; i++) clients.add('p', `new-${i}`);
      expect(walked).toBeLessThanOrEqual(2 * 100_000);
      expect(clients.take(1).get('p')![0][1]).toBe(2);
    },
  );
});
