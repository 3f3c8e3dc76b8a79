import { Link } from '../router';
import { useDocumentTitle } from '../useDocumentTitle';

export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <div className="container not-found">
      <p className="eyebrow">Error 404</p>
      <h1 className="not-found__title">Page not found</h1>
      <p className="not-found__lede">
        This door doesn’t lead anywhere. The page may have moved, or the room may no longer be ours to
        hire.
      </p>
      <p className="not-found__actions">
        <Link href="/venues" className="button button--primary">
          All venues
        </Link>
        <Link href="/" className="text-link">
          Back to the home page
        </Link>
      </p>
    </div>
  );
}
