import type { CSSProperties } from 'react';
import { PRICE_LABELS, TYPE_LABELS, type Venue } from '../data/venues';
import { Link } from '../router';
import { VenueMedia } from './VenueMedia';

interface VenueCardProps {
  venue: Venue;
  headingLevel?: 2 | 3;
  /** Position in the list; staggers the entrance animation. */
  index?: number;
}

export function VenueCard({ venue, headingLevel = 2, index = 0 }: VenueCardProps) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const style = { '--stagger': Math.min(index, 6) } as CSSProperties;
  return (
    <article className="venue-card" style={style}>
      <VenueMedia venue={venue} className="venue-card__media" />
      <div className="venue-card__body">
        <p className="venue-card__meta">
          {TYPE_LABELS[venue.type]} <span aria-hidden="true">·</span> {venue.areaName}
        </p>
        <Heading className="venue-card__title">
          <Link href={`/venues/${venue.slug}`} className="venue-card__link">
            {venue.name}
          </Link>
        </Heading>
        <p className="venue-card__summary">{venue.summary}</p>
        <ul className="venue-card__facts">
          <li>Up to {venue.capacity} guests</li>
          <li>
            <span aria-hidden="true">{venue.priceBand}</span>
            <span className="visually-hidden">Price:</span> {PRICE_LABELS[venue.priceBand]}
          </li>
        </ul>
      </div>
    </article>
  );
}
