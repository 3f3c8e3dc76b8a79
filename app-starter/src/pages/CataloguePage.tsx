import { VenueCard } from '../components/VenueCard';
import { venues } from '../data/venues';
import { useDocumentTitle } from '../useDocumentTitle';

export function CataloguePage() {
  useDocumentTitle('Venues');

  return (
    <>
      <div className="page-head">
        <div className="container">
          <p className="eyebrow">The collection</p>
          <h1 className="page-head__title">Venues</h1>
          <p className="page-head__lede">
            Every room we hire, with honest capacities and one price for the day.
          </p>
        </div>
      </div>
      <div className="container catalogue">
        {/* TODO: filters (venue type, area, minimum guests) kept in the URL, a results count and an empty state. */}
        <ul className="venue-grid" role="list">
          {venues.map((venue, index) => (
            <li key={venue.slug}>
              <VenueCard venue={venue} index={index} />
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
