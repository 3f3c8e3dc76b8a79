import { useEffect, useRef, type ReactNode } from 'react';
import { SiteFooter } from './components/SiteFooter';
import { SiteHeader } from './components/SiteHeader';
import { SkipLink } from './components/SkipLink';
import { CataloguePage } from './pages/CataloguePage';
import { HomePage } from './pages/HomePage';
import { NotFoundPage } from './pages/NotFoundPage';
import { useLocation } from './router';

function normalise(pathname: string): string {
  return pathname.replace(/\/+$/, '') || '/';
}

function route(path: string): ReactNode {
  if (path === '/') return <HomePage />;
  if (path === '/venues') return <CataloguePage />;
  // TODO: venue detail pages at /venues/<slug>.
  return <NotFoundPage />;
}

/** After a client-side navigation, scroll to the target and move focus to the new content. */
function useNavigationFocus(path: string, hash: string): void {
  const first = useRef(true);
  useEffect(() => {
    const target = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (first.current) {
      // Initial load: only honour a #fragment; leave focus where the browser put it.
      first.current = false;
      target?.scrollIntoView();
      return;
    }
    if (target) {
      target.scrollIntoView();
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus({ preventScroll: true });
      return;
    }
    window.scrollTo(0, 0);
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path, hash]);
}

export function App() {
  const { pathname, hash } = useLocation();
  const path = normalise(pathname);
  useNavigationFocus(path, hash);

  return (
    <>
      <SkipLink />
      <SiteHeader currentPath={path} />
      <main id="main" tabIndex={-1} className="site-main" key={path}>
        {route(path)}
      </main>
      <SiteFooter />
    </>
  );
}
