import { useEffect } from 'react';

const SITE = 'Atlas Rooms';

/** Sets `document.title` to "<page> · Atlas Rooms" (or the bare site name). */
export function useDocumentTitle(page?: string): void {
  useEffect(() => {
    document.title = page ? `${page} · ${SITE}` : `${SITE} — rooms with a past, for hire in Lisbon`;
  }, [page]);
}
