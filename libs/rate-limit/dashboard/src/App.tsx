import { useEffect, useRef, useState } from 'preact/hooks';
import { clearToken, getToken, request, setUnauthorizedHandler } from './api';
import { Banner } from './components/Banner';
import { usePoll } from './poll';
import { hrefOf, useRoute, type Route } from './router';
import type { InstancesView } from './types';
import { Adaptive } from './views/Adaptive';
import { Instances } from './views/Instances';
import { Login, tooMany } from './views/Login';
import { Overview } from './views/Overview';
import { PolicyPage } from './views/PolicyPage';

const SESSION_ENDED = 'Your session has ended: the server rejected the token. Sign in again.';

export function App() {
  const [signedIn, setSignedIn] = useState(() => getToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    setUnauthorizedHandler((error) => {
      setNotice(error.status === 429 ? `${SESSION_ENDED} ${tooMany(error)}` : SESSION_ENDED);
      setSignedIn(false);
    });
  }, []);

  if (!signedIn) {
    return (
      <Login
        notice={notice}
        onSignedIn={() => {
          setNotice(null);
          setSignedIn(true);
        }}
      />
    );
  }
  return (
    <Shell
      onSignOut={() => {
        clearToken();
        setNotice(null);
        setSignedIn(false);
      }}
    />
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const instances = usePoll<InstancesView>('instances', () => request('/instances'));
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // A route change is a new page for screen reader and keyboard users: start them at its top.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
    window.scrollTo(0, 0);
  }, [route.view, route.view === 'policy' ? route.name : '']);

  return (
    <>
      <a class="skip-link" href="#main" onClick={skipTo}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={hrefOf.overview()}>
          Rate limits
        </a>
        <nav aria-label="Main">
          <a href={hrefOf.overview()} aria-current={route.view === 'overview' ? 'page' : undefined}>
            Policies
          </a>
          <a
            href={hrefOf.instances()}
            aria-current={route.view === 'instances' ? 'page' : undefined}
          >
            Instances
          </a>
          <a href={hrefOf.adaptive()} aria-current={route.view === 'adaptive' ? 'page' : undefined}>
            Adaptive
          </a>
        </nav>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <Banner data={instances.data} />
      <main id="main" tabIndex={-1} ref={main}>
        <View route={route} instances={instances} />
      </main>
    </>
  );
}

// Hash routing owns the fragment: the skip link moves focus itself instead of navigating.
function skipTo(e: Event) {
  e.preventDefault();
  document.getElementById('main')?.focus();
}

function View({
  route,
  instances,
}: {
  route: Route;
  instances: ReturnType<typeof usePoll<InstancesView>>;
}) {
  switch (route.view) {
    case 'overview':
      return <Overview />;
    case 'policy':
      return <PolicyPage key={route.name} name={route.name} />;
    case 'instances':
      return <Instances polled={instances} />;
    case 'adaptive':
      return <Adaptive />;
    default:
      return (
        <>
          <h1>Page not found</h1>
          <p>
            Nothing lives at <code>{route.hash}</code>.{' '}
            <a href={hrefOf.overview()}>Back to the policies</a>.
          </p>
        </>
      );
  }
}
