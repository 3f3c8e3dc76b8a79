import data from './venues.json';

export const VENUE_TYPES = ['studio', 'loft', 'garden', 'hall', 'warehouse', 'rooftop'] as const;
export type VenueType = (typeof VENUE_TYPES)[number];

export const TYPE_LABELS: Record<VenueType, string> = {
  studio: 'Studio',
  loft: 'Loft',
  garden: 'Garden',
  hall: 'Hall',
  warehouse: 'Warehouse',
  rooftop: 'Rooftop',
};

export type PriceBand = '€' | '€€' | '€€€';

export interface Venue {
  slug: string;
  name: string;
  type: VenueType;
  /** Area slug, e.g. "principe-real". */
  area: string;
  /** Area display name, e.g. "Príncipe Real" (may contain non-ASCII). */
  areaName: string;
  /** Maximum number of guests. */
  capacity: number;
  priceBand: PriceBand;
  summary: string;
  /** Long copy; paragraphs are separated by a blank line ("\n\n"). */
  description: string;
  /** A path under /media/, or null when there is no photograph yet. The file may be missing. */
  image: string | null;
  /** Text alternative for the image. */
  imageAlt?: string | null;
}

export interface Area {
  slug: string;
  name: string;
}

function isVenueType(value: string): value is VenueType {
  return (VENUE_TYPES as readonly string[]).includes(value);
}

function isPriceBand(value: string): value is PriceBand {
  return value === '€' || value === '€€' || value === '€€€';
}

/** All venues, in the order of the data file. */
export const venues: readonly Venue[] = data.map((raw) => {
  if (!isVenueType(raw.type)) throw new Error(`Unknown venue type: ${raw.type}`);
  if (!isPriceBand(raw.priceBand)) throw new Error(`Unknown price band: ${raw.priceBand}`);
  return { ...raw, type: raw.type, priceBand: raw.priceBand };
});

/** Each area once, sorted by display name. */
export const areas: readonly Area[] = [...new Map(venues.map((v) => [v.area, v.areaName])).entries()]
  .map(([slug, name]) => ({ slug, name }))
  .sort((a, b) => a.name.localeCompare(b.name, 'pt'));

export function findVenue(slug: string): Venue | undefined {
  return venues.find((v) => v.slug === slug);
}

export const PRICE_LABELS: Record<PriceBand, string> = {
  '€': 'Modest',
  '€€': 'Mid-range',
  '€€€': 'Special occasion',
};
