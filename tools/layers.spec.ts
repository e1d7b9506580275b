import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

interface Probe {
  readonly filePath: string;
  readonly text: string;
}

const ROOT = join(__dirname, '..');

/** Lints each probe's text as if it were that file, with the repository's ESLint config. */
function restrictedImports(probes: readonly Probe[]): string[][] {
  const script = `
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
    const out = [];
    for (const probe of JSON.parse(process.argv[1])) {
      const [result] = await eslint.lintText(probe.text, { filePath: probe.filePath });
      out.push(result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message));
    }
    console.log(JSON.stringify(out));`;
  const stdout = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(probes)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(stdout) as string[][];
}

/** A file in `from/` importing a module of `to/`, as the library writes relative imports. */
const probe = (from: string, to: string): Probe => ({
  filePath: `libs/rate-limit/src/${from}/probe.ts`,
  text: `import { thing } from '../${to}/some-module';\nexport const used = thing;\n`,
});

describe('the layering lint rule (tools/layers.mjs)', () => {
  let layers: { name: string; folders: string[] }[];
  beforeAll(async () => {
    ({ LAYERS: layers } = await import(join(ROOT, 'tools/layers.mjs')));
  });

  it('fails every import of a higher layer, and lets every import of a lower one through', () => {
    const upward: Probe[] = [];
    const downward: Probe[] = [];
    layers.forEach((layer, i) => {
      for (const from of layer.folders) {
        for (const higher of layers.slice(i + 1).flatMap((l) => l.folders)) {
          upward.push(probe(from, higher));
        }
        for (const lower of layers.slice(0, i).flatMap((l) => l.folders)) {
          downward.push(probe(from, lower));
        }
      }
    });
    const results = restrictedImports([...upward, ...downward]);
    const upwardResults = results.slice(0, upward.length);
    const missed = upward.filter((_, i) => upwardResults[i].length === 0);
    expect(missed).toEqual([]);
    expect(upwardResults[0][0]).toMatch(/must not import .*dependencies point down/);
    expect(results.slice(upward.length).flat()).toEqual([]);
    expect(upward.length).toBeGreaterThan(100);
  }, 60_000);

  it('closes the side doors: the alias, ./../, the constants at the root, naming a store', () => {
    const text = (from: string) => `import { thing } from '${from}';\nexport const used = thing;\n`;
    const at = (filePath: string, from: string): Probe => ({
      filePath: `libs/rate-limit/src/${filePath}`,
      text: text(from),
    });
    const [alias, barrel, dotDot, constants, adminNamesStore, fallbackOwnStore, wiring] =
      restrictedImports([
        at('engine/probe.ts', '@app/rate-limit/admin/policy-keys'),
        at('engine/probe.ts', '@app/rate-limit'),
        at('engine/probe.ts', './../admin/policy-keys'),
        at('rate-limit.constants.ts', './engine/decision-engine'),
        at('admin/probe.ts', '../store/redis/redis-store'),
        at('engine/fallback-store.ts', '../store/memory/memory-store'),
        at('backends/redis/probe.ts', '../../store/redis/redis-store'),
      ]);
    expect(alias).toHaveLength(1);
    expect(barrel).toHaveLength(1);
    expect(dotDot).toHaveLength(1);
    expect(constants).toHaveLength(1);
    expect(adminNamesStore[0]).toMatch(/only backends\/ chooses a store/);
    expect(fallbackOwnStore).toEqual([]);
    expect(wiring).toEqual([]);
  }, 60_000);

  it('keeps stores from knowing the engine, and the demo on the entry points', () => {
    const demo = (from: string) => ({
      filePath: 'apps/demo/src/probe.ts',
      text: `import * as x from '${from}';\nexport const y = x;\n`,
    });
    const [storeToEngine, demoDeep, demoBarrel, demoPlane, demoPlaneDeep] = restrictedImports([
      probe('store/redis', '../engine'),
      demo('@app/rate-limit/engine/decision-engine'),
      demo('@app/rate-limit'),
      demo('@app/rate-limit/admin'),
      demo('@app/rate-limit/admin/policy-keys'),
    ]);
    expect(storeToEngine).toHaveLength(1);
    expect(demoDeep[0]).toMatch(/entry points/);
    expect(demoBarrel).toEqual([]);
    expect(demoPlane).toEqual([]);
    expect(demoPlaneDeep[0]).toMatch(/entry points/);
  }, 60_000);
});
