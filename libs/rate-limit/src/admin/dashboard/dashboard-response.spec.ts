import { acceptsGzip } from './dashboard-response';
import { ownPath } from './dashboard.controller';

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['deflate, gzip;q=0.5', true],
    ['*', true],
    ['gzip;q=0', false],
    ['deflate, gzip;q=0, identity', false],
    ['*, gzip;q=0', false],
    ['*;q=0', false],
    ['identity', false],
    ['', false],
    [undefined, false],
  ])('%p -> %p', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('ownPath', () => {
  it('is the request path with a trailing slash, never another origin', () => {
    expect(ownPath({ originalUrl: '/admin/dashboard' }, 'dashboard')).toBe('/admin/dashboard/');
    expect(ownPath({ originalUrl: '/admin//dashboard/?x="><b>' }, 'dashboard')).toBe(
      '/admin/dashboard/',
    );
    expect(ownPath({ originalUrl: 'http://evil.example/admin/dashboard' }, 'dashboard')).toBe(
      '/admin/dashboard/',
    );
    expect(ownPath({ url: '//evil.example/admin/dashboard' }, 'dashboard')).toBe(
      '/admin/dashboard/',
    );
  });
});
