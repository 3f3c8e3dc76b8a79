import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/**
 * A very small router on top of the History API.
 * `navigate()` pushes (or replaces) a history entry and notifies subscribers;
 * Back/Forward arrive as `popstate`.
 */
const NAVIGATE_EVENT = 'atlas:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

function getHref(): string {
  const { pathname, search, hash } = window.location;
  return pathname + search + hash;
}

export interface RouterLocation {
  pathname: string;
  search: string;
  hash: string;
}

const cache = new Map<string, RouterLocation>();

function parse(href: string): RouterLocation {
  let loc = cache.get(href);
  if (!loc) {
    const url = new URL(href, window.location.origin);
    loc = { pathname: url.pathname, search: url.search, hash: url.hash };
    cache.clear();
    cache.set(href, loc);
  }
  return loc;
}

/** The current location; re-renders on navigation and on Back/Forward. */
export function useLocation(): RouterLocation {
  return parse(useSyncExternalStore(subscribe, getHref));
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === getHref()) return;
  if (options.replace) {
    window.history.replaceState(null, '', to);
  } else {
    window.history.pushState(null, '', to);
  }
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/** An `<a>` that navigates client-side for same-origin, unmodified left clicks. */
export function Link({ href, onClick, target, ...rest }: LinkProps) {
  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey ||
      (target && target !== '_self')
    ) {
      return;
    }
    const url = new URL(href, window.location.href);
    if (url.origin !== window.location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  }
  return <a href={href} target={target} onClick={handleClick} {...rest} />;
}
