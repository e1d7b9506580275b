import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expressJsonReply } from './express-reply';

const BODY = { statusCode: 429, message: 'Too Many Requests', policy: 'p', retryAfter: 7 };

interface ExpressApp {
  set(setting: string, value: unknown): unknown;
  get(setting: string): unknown;
  use(handler: (req: { path: string }, res: Res, next: () => void) => void): unknown;
  all(path: string | string[], handler: (req: unknown, res: Res) => unknown): unknown;
}
interface Res {
  setHeader(name: string, value: string): unknown;
  status(code: number): { json(body: unknown): unknown };
}

/** An Express app (Nest's adapter's) answering /json with res.json(), /direct with expressJsonReply(). */
async function serve(configure: (app: ExpressApp) => void = () => undefined) {
  const app = new ExpressAdapter().getInstance<ExpressApp>();
  configure(app);
  const fallbacks: unknown[] = [];
  const reply = expressJsonReply(app, (response, body, status) => {
    fallbacks.push(body);
    return (response as Res).status(status).json(body);
  });
  app.use((req, res, next) => {
    if (req.path === '/preset') res.setHeader('Content-Type', 'text/plain');
    next();
  });
  app.all('/json', (_req, res) => res.status(429).json(BODY));
  app.all(['/direct', '/preset'], (_req, res) => reply(res, BODY, 429));
  const server: Server = createServer(app as unknown as Parameters<typeof createServer>[1]);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fetchOf = async (path: string, method = 'GET') => {
    const res = await fetch(base + path, { method });
    const headers = Object.fromEntries(res.headers);
    delete headers.date;
    return { status: res.status, headers, text: await res.text() };
  };
  return { fetchOf, fallbacks, close: () => new Promise((r) => server.close(r)) };
}

describe('expressJsonReply', () => {
  it('writes what res.json() writes: status, every header (ETag included), body; HEAD without body', async () => {
    const app = await serve();
    try {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const direct = await app.fetchOf('/direct', method);
        expect(direct).toEqual(await app.fetchOf('/json', method));
        expect(direct.headers.etag).toMatch(/^W\//);
      }
      expect(app.fallbacks).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('sends no ETag where the app turned ETags off, as res.json() does', async () => {
    const app = await serve((a) => a.set('etag', false));
    try {
      const direct = await app.fetchOf('/direct');
      expect(direct.headers.etag).toBeUndefined();
      expect(direct).toEqual(await app.fetchOf('/json'));
    } finally {
      await app.close();
    }
  });

  it.each([
    ['json spaces', 2],
    ['json replacer', (_k: string, v: unknown) => v],
    ['json escape', true],
  ])('leaves the answer to the adapter where the app sets %s', async (setting, value) => {
    const app = await serve((a) => a.set(setting, value));
    try {
      expect(await app.fetchOf('/direct')).toEqual(await app.fetchOf('/json'));
      expect(app.fallbacks).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('leaves the answer to the adapter where a Content-Type is set already', async () => {
    const app = await serve();
    try {
      await app.fetchOf('/preset');
      expect(app.fallbacks).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
