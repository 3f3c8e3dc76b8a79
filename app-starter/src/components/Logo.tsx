/** The Atlas Rooms mark: an arched doorway with a lit lamp. Decorative; the wordmark names it. */
export function LogoMark() {
  return (
    <svg className="logo-mark" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="6" fill="currentColor" />
      <path d="M9 25V14a7 7 0 0 1 14 0v11" fill="none" stroke="var(--color-paper)" strokeWidth="3" />
      <circle cx="16" cy="20" r="2.5" fill="var(--color-ochre)" />
    </svg>
  );
}
