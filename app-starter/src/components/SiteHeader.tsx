import { Link } from '../router';
import { LogoMark } from './Logo';

const NAV_ITEMS = [
  { href: '/venues', label: 'Venues' },
  { href: '/#how-it-works', label: 'How it works' },
  { href: '/#about', label: 'About' },
] as const;

export function SiteHeader({ currentPath }: { currentPath: string }) {
  return (
    <header className="site-header">
      <div className="container site-header__inner">
        <Link href="/" className="brand">
          <LogoMark />
          <span className="brand__name">Atlas Rooms</span>
        </Link>
        {/* TODO: below 768px these links are simply hidden; there is no mobile menu yet. */}
        <nav className="primary-nav" aria-label="Primary">
          <ul className="primary-nav__list" id="primary-nav-list">
            {NAV_ITEMS.map((item) => {
              const current = item.href === '/venues' && currentPath.startsWith('/venues');
              return (
                <li key={item.href}>
                  <Link
                    href={item.href}
                    className="primary-nav__link"
                    aria-current={current ? 'page' : undefined}
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
