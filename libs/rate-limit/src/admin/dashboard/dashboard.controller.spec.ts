import type { StreamableFile } from '@nestjs/common';
import type { DashboardAsset } from './dashboard-assets';
import { dashboardController } from './dashboard.controller';

interface Controller {
  topLevel(file: string, request: object, response: object, encoding?: string): StreamableFile;
}

const html = (body: string): DashboardAsset => ({
  type: 'text/html; charset=utf-8',
  body: Buffer.from(body),
  immutable: false,
});

function controller(): Controller {
  const Dashboard = dashboardController('dashboard') as new (assets: unknown) => Controller;
  return new Dashboard(
    new Map<string, DashboardAsset>([
      ['index.html', html('<html><head></head><body>page</body></html>')],
      ['favicon.svg', { type: 'image/svg+xml', body: Buffer.from('<svg/>'), immutable: false }],
    ]),
  );
}

const headers = () => {
  const written: Record<string, string> = {};
  return { written, setHeader: (name: string, value: string) => void (written[name] = value) };
};

describe('dashboardController', () => {
  it('serves the page for an empty file name (Fastify on Nest 11.0 routes "dashboard/" there)', () => {
    const response = headers();
    const file = controller().topLevel('', { originalUrl: '/admin/dashboard/' }, response);
    expect(response.written['Content-Type']).toBe('text/html; charset=utf-8');
    const body = (file.getStream().read() as Buffer).toString('utf8');
    expect(body).toContain('<base href="/admin/dashboard/">');
  });

  it('serves a top-level file by name and refuses index.html as a file', () => {
    const response = headers();
    controller().topLevel('favicon.svg', { originalUrl: '/admin/dashboard/favicon.svg' }, response);
    expect(response.written['Content-Type']).toBe('image/svg+xml');
    expect(() => controller().topLevel('index.html', {}, headers())).toThrow(
      'No dashboard file "index.html"',
    );
  });
});
