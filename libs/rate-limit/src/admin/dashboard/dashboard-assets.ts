import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One built file, ready to send. */
export interface DashboardAsset {
  readonly type: string;
  readonly body: Buffer;
  /** Set when gzip makes it smaller. */
  readonly gzipped?: Buffer;
  /** Vite names built assets by their content hash: they never change under one name. */
  readonly immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * Where `npm run build` puts the page: next to the compiled library (`dashboard/ui`, in the
 * package), or, when running from the sources (tests), Vite's own output folder.
 */
export const DASHBOARD_DIRS = [
  join(__dirname, '..', '..', 'dashboard', 'ui'),
  join(__dirname, '..', '..', '..', 'dashboard', 'dist'),
];

/**
 * The built dashboard, read once at startup into memory (a few files, ~100 KB): requests never
 * touch the disk, and only the files found here can be served, so no path from a request ever
 * reaches the file system. Undefined when the page was not built.
 */
export function loadDashboardAssets(
  dirs: readonly string[] = DASHBOARD_DIRS,
): Map<string, DashboardAsset> | undefined {
  const dir = dirs.find((candidate) => existsSync(join(candidate, 'index.html')));
  if (!dir) return undefined;
  const assets = new Map<string, DashboardAsset>();
  for (const file of filesUnder(dir)) {
    const type = TYPES[extname(file)];
    if (!type) continue;
    const name = relative(dir, file).split(sep).join('/');
    const body = readFileSync(file);
    const gzipped = gzipSync(body, { level: 9 });
    assets.set(name, {
      type,
      body,
      gzipped: gzipped.length < body.length ? gzipped : undefined,
      immutable: name.startsWith('assets/'),
    });
  }
  return assets;
}

function filesUnder(dir: string, depth = 0): string[] {
  if (depth > 3) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path, depth + 1) : [path];
  });
}

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page for one request: its `<base href>` is the dashboard's own path (so assets load with
 * or without a trailing slash) and the admin API's path is in a meta tag (no inline script:
 * the page's CSP forbids them).
 */
export function renderIndex(template: string, dashboardPath: string, apiPath: string): string {
  return template
    .replace(
      /<meta name="rate-limit-api" content="[^"]*"\s*\/?>/,
      `<meta name="rate-limit-api" content="${escapeAttribute(apiPath)}">`,
    )
    .replace(/<head>/, `<head><base href="${escapeAttribute(dashboardPath)}">`);
}
