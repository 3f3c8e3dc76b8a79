import { areas, VENUE_TYPES, type Venue, type VenueType } from '../data/venues';

/** Catalogue filter state. It lives in the URL: `?type=loft,studio&area=graca&guests=40`. */
export interface Filters {
  types: readonly VenueType[];
  area: string;
  guests: number | null;
}

export const NO_FILTERS: Filters = { types: [], area: '', guests: null };

function isVenueType(value: string): value is VenueType {
  return (VENUE_TYPES as readonly string[]).includes(value);
}

/** A positive whole number, or null for anything else (empty, 0, negative, decimal, text). */
export function parseGuests(raw: string | null): number | null {
  if (raw === null) return null;
  const trimmed = raw.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number.parseInt(trimmed, 10);
  return n >= 1 ? n : null;
}

export function parseFilters(search: string): Filters {
  const params = new URLSearchParams(search);
  const types = [
    ...new Set((params.get('type') ?? '').split(',').map((t) => t.trim()).filter(isVenueType)),
  ];
  const areaParam = params.get('area') ?? '';
  const area = areas.some((a) => a.slug === areaParam) ? areaParam : '';
  return { types, area, guests: parseGuests(params.get('guests')) };
}

/**
 * The query string for a filter state: unset filters are omitted, types are comma-separated
 * (kept literal, not %2C) in alphabetical order. No filters gives the empty string.
 */
export function filtersToSearch(filters: Filters): string {
  const parts: string[] = [];
  if (filters.types.length > 0) parts.push(`type=${[...filters.types].sort().join(',')}`);
  if (filters.area) parts.push(`area=${encodeURIComponent(filters.area)}`);
  if (filters.guests !== null) parts.push(`guests=${filters.guests}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

export function hasFilters(filters: Filters): boolean {
  return filters.types.length > 0 || filters.area !== '' || filters.guests !== null;
}

export function matchesFilters(venue: Venue, filters: Filters): boolean {
  if (filters.types.length > 0 && !filters.types.includes(venue.type)) return false;
  if (filters.area && venue.area !== filters.area) return false;
  if (filters.guests !== null && venue.capacity < filters.guests) return false;
  return true;
}

export function countLabel(n: number): string {
  return `${n} ${n === 1 ? 'venue' : 'venues'}`;
}
