import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadDashboardAssets, renderIndex } from './dashboard-assets';

const TEMPLATE =
  '<!doctype html><html lang="en"><head><meta name="rate-limit-api" content=""></head></html>';

describe('dashboard assets', () => {
  it('loads the built files of the first folder that has an index, gzipped when smaller', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), TEMPLATE);
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1);'.repeat(100));
    writeFileSync(join(dir, 'assets', 'notes.unknown'), 'x');
    const assets = loadDashboardAssets([join(dir, 'missing'), dir])!;
    expect([...assets.keys()].sort()).toEqual(['assets/index-abc.js', 'index.html']);
    const js = assets.get('assets/index-abc.js')!;
    expect(js).toMatchObject({ type: 'text/javascript; charset=utf-8', immutable: true });
    expect(gunzipSync(js.gzipped!).equals(js.body)).toBe(true);
    expect(assets.get('index.html')!.immutable).toBe(false);
    expect(loadDashboardAssets([join(dir, 'missing')])).toBeUndefined();
  });

  it('renders the page with its own base and the API path, escaped', () => {
    const html = renderIndex(TEMPLATE, '/ops/rate-limit/dashboard/', '/ops/rate-limit');
    expect(html).toContain('<head><base href="/ops/rate-limit/dashboard/">');
    expect(html).toContain('<meta name="rate-limit-api" content="/ops/rate-limit">');
    const hostile = renderIndex(TEMPLATE, '/a"><script>x</script>/', '/a"');
    expect(hostile).not.toContain('<script>');
    expect(hostile).toContain('content="/a&quot;"');
  });
});
