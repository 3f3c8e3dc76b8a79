import { useRef, useState } from 'react';
import { EnquiryDialog } from '../components/EnquiryDialog';
import { VenueCard } from '../components/VenueCard';
import { VenueMedia } from '../components/VenueMedia';
import { PRICE_LABELS, TYPE_LABELS, venues, type Venue } from '../data/venues';
import { Link } from '../router';
import { useDocumentTitle } from '../useDocumentTitle';

function related(venue: Venue): Venue[] {
  const sameType = venues.filter((v) => v.slug !== venue.slug && v.type === venue.type);
  const sameArea = venues.filter(
    (v) => v.slug !== venue.slug && v.area === venue.area && v.type !== venue.type,
  );
  return [...sameType, ...sameArea].slice(0, 3);
}

export function VenuePage({ venue }: { venue: Venue }) {
  useDocumentTitle(venue.name);
  const [enquiring, setEnquiring] = useState(false);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const paragraphs = venue.description.split(/\n{2,}/);
  const others = related(venue);

  return (
    <>
      <article className="venue" aria-labelledby="venue-title">
        <header className="container venue__head">
          <nav className="breadcrumb" aria-label="Breadcrumb">
            <ol>
              <li>
                <Link href="/venues">Venues</Link>
              </li>
              <li>
                <span aria-current="page">{venue.name}</span>
              </li>
            </ol>
          </nav>
          <p className="eyebrow">
            {TYPE_LABELS[venue.type]} in {venue.areaName}
          </p>
          <h1 id="venue-title" className="venue__title">
            {venue.name}
          </h1>
          <p className="venue__summary">{venue.summary}</p>
        </header>

        <div className="container venue__layout">
          <VenueMedia venue={venue} className="venue__media" />

          <aside className="venue__aside" aria-labelledby="facts-title">
            <div className="facts-card">
              <h2 id="facts-title" className="facts-card__title">
                At a glance
              </h2>
              <dl className="facts">
                <div>
                  <dt>Type</dt>
                  <dd>{TYPE_LABELS[venue.type]}</dd>
                </div>
                <div>
                  <dt>Area</dt>
                  <dd>{venue.areaName}</dd>
                </div>
                <div>
                  <dt>Capacity</dt>
                  <dd>Up to {venue.capacity} guests</dd>
                </div>
                <div>
                  <dt>Price</dt>
                  <dd>
                    <span className="facts__price">{venue.priceBand}</span>{' '}
                    <span className="facts__aside">{PRICE_LABELS[venue.priceBand]}</span>
                  </dd>
                </div>
              </dl>
              <button
                ref={triggerRef}
                type="button"
                className="button button--primary button--block"
                onClick={() => setEnquiring(true)}
              >
                Enquire about this venue
              </button>
              <p className="facts-card__note">
                A person replies within one working day. Nothing is booked or paid until you have seen
                the room.
              </p>
            </div>
          </aside>

          <div className="venue__description prose">
            <h2 className="prose__title">About the room</h2>
            {paragraphs.map((paragraph, index) => (
              <p key={index}>{paragraph}</p>
            ))}
          </div>
        </div>
      </article>

      {others.length > 0 && (
        <section className="section" aria-labelledby="related-title">
          <div className="container">
            <div className="section__head">
              <h2 id="related-title" className="section__title section__title--small">
                Rooms with a similar feel
              </h2>
              <Link href="/venues" className="text-link">
                Browse every venue <span aria-hidden="true">→</span>
              </Link>
            </div>
            <ul className="venue-grid" role="list">
              {others.map((other, index) => (
                <li key={other.slug}>
                  <VenueCard venue={other} headingLevel={3} index={index} />
                </li>
              ))}
            </ul>
          </div>
        </section>
      )}

      <EnquiryDialog
        venue={venue}
        open={enquiring}
        onClose={() => setEnquiring(false)}
        returnFocusRef={triggerRef}
      />
    </>
  );
}
