import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'overview' }
  | { view: 'policy'; name: string }
  | { view: 'instances' }
  | { view: 'adaptive' }
  | { view: 'not-found'; hash: string };

/** Hash routes so the page works under any server path without server-side rewrites. */
export function parseHash(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  if (path === '/' || path === '') return { view: 'overview' };
  if (path === '/instances') return { view: 'instances' };
  if (path === '/adaptive') return { view: 'adaptive' };
  const policy = /^\/policies\/([^/]+)$/.exec(path);
  if (policy) {
    try {
      return { view: 'policy', name: decodeURIComponent(policy[1]) };
    } catch {
      // A malformed escape: treated as an unknown route below.
    }
  }
  return { view: 'not-found', hash: path };
}

// The server adds a <base href> so the page also works without its trailing slash; a bare
// "#/x" would then resolve against the base and reload the page. Stay on the current document.
const here = (hash: string) => `${location.pathname}${location.search}${hash}`;

export const hrefOf = {
  overview: () => here('#/'),
  policy: (name: string) => here(`#/policies/${encodeURIComponent(name)}`),
  instances: () => here('#/instances'),
  adaptive: () => here('#/adaptive'),
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
