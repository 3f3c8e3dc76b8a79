import type { MouseEvent } from 'react';

/** First focusable element on every page; moves focus to <main> without touching the URL. */
export function SkipLink() {
  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    const main = document.getElementById('main');
    if (!main) return;
    event.preventDefault();
    main.focus();
  }
  return (
    <a className="skip-link" href="#main" onClick={handleClick}>
      Skip to content
    </a>
  );
}
