import { useState } from 'react';
import { TYPE_LABELS, type Venue } from '../data/venues';

interface VenueMediaProps {
  venue: Venue;
  className?: string;
  sizes?: string;
}

/**
 * The venue's picture, or a designed placeholder when there is no image
 * or the file fails to load. Never a broken-image icon.
 */
export function VenueMedia({ venue, className = '' }: VenueMediaProps) {
  const [failed, setFailed] = useState(false);
  const src = venue.image;

  if (!src || failed) {
    return (
      <div
        className={`venue-media venue-media--placeholder ${className}`}
        role="img"
        aria-label={`No photograph of ${venue.name} yet`}
      >
        <span className="venue-media__badge">
          <span className="venue-media__placeholder-type">{TYPE_LABELS[venue.type]}</span>
          <span className="venue-media__placeholder-note">Photographs coming soon</span>
        </span>
      </div>
    );
  }

  return (
    <img
      className={`venue-media ${className}`}
      src={src}
      alt={venue.imageAlt || `${venue.name}, ${TYPE_LABELS[venue.type].toLowerCase()} in ${venue.areaName}`}
      width={1200}
      height={800}
      decoding="async"
      onError={() => setFailed(true)}
    />
  );
}
