import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useLocation } from '../router';
import { LogoMark } from './Logo';

const NAV_ITEMS = [
  { href: '/venues', label: 'Venues' },
  { href: '/#how-it-works', label: 'How it works' },
  { href: '/#about', label: 'About' },
] as const;

export function SiteHeader({ currentPath }: { currentPath: string }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const { hash } = useLocation();

  // Any navigation closes the menu.
  useEffect(() => {
    setMenuOpen(false);
  }, [currentPath, hash]);

  function handleKeyDown(event: KeyboardEvent<HTMLElement>) {
    if (event.key === 'Escape' && menuOpen) {
      setMenuOpen(false);
      buttonRef.current?.focus();
    }
  }

  return (
    <header className="site-header">
      <div className="container site-header__inner">
        <Link href="/" className="brand">
          <LogoMark />
          <span className="brand__name">Atlas Rooms</span>
        </Link>
        <nav
          className="primary-nav"
          aria-label="Primary"
          data-open={menuOpen ? 'true' : 'false'}
          onKeyDown={handleKeyDown}
        >
          <button
            ref={buttonRef}
            type="button"
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="primary-nav-list"
            onClick={() => setMenuOpen((open) => !open)}
          >
            <span className="menu-button__icon" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            Menu
          </button>
          <ul className="primary-nav__list" id="primary-nav-list">
            {NAV_ITEMS.map((item) => {
              const current = item.href === '/venues' && currentPath.startsWith('/venues');
              return (
                <li key={item.href}>
                  <Link
                    href={item.href}
                    className="primary-nav__link"
                    aria-current={current ? 'page' : undefined}
                    onClick={() => setMenuOpen(false)}
                  >
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
      </div>
    </header>
  );
}
