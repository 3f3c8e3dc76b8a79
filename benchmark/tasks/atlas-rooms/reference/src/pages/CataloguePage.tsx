import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { VenueCard } from '../components/VenueCard';
import { areas, TYPE_LABELS, VENUE_TYPES, venues, type VenueType } from '../data/venues';
import {
  countLabel,
  filtersToSearch,
  hasFilters,
  matchesFilters,
  NO_FILTERS,
  parseFilters,
  parseGuests,
  type Filters,
} from '../lib/filters';
import { navigate, useLocation } from '../router';
import { useDocumentTitle } from '../useDocumentTitle';

export function CataloguePage() {
  useDocumentTitle('Venues');
  const { search } = useLocation();
  // The URL is the source of truth: deep links, reloads and Back/Forward all land here.
  const committed = useMemo(() => parseFilters(search), [search]);

  // The guests field is committed on its `change` event; while typing, results follow the draft.
  const [guestsDraft, setGuestsDraft] = useState(committed.guests?.toString() ?? '');
  useEffect(() => {
    setGuestsDraft(committed.guests?.toString() ?? '');
  }, [committed]);

  const active: Filters = { ...committed, guests: parseGuests(guestsDraft) };
  const results = venues.filter((venue) => matchesFilters(venue, active));

  const guestsRef = useRef<HTMLInputElement>(null);
  const firstTypeRef = useRef<HTMLInputElement>(null);

  function commit(next: Filters) {
    navigate(`/venues${filtersToSearch(next)}`);
  }

  // Keep the latest state reachable from the native `change` listener below.
  const commitGuests = useRef<(raw: string) => void>(() => {});
  commitGuests.current = (raw: string) => commit({ ...committed, guests: parseGuests(raw) });

  useEffect(() => {
    const input = guestsRef.current;
    if (!input) return;
    const onChange = () => commitGuests.current(input.value);
    input.addEventListener('change', onChange);
    return () => input.removeEventListener('change', onChange);
  }, []);

  function toggleType(type: VenueType, checked: boolean) {
    const types = checked ? [...active.types, type] : active.types.filter((t) => t !== type);
    commit({ ...active, types });
  }

  function clearFilters() {
    setGuestsDraft('');
    commit(NO_FILTERS);
    firstTypeRef.current?.focus();
  }

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    commitGuests.current(guestsRef.current?.value ?? '');
  }

  return (
    <>
      <div className="page-head">
        <div className="container">
          <p className="eyebrow">The collection</p>
          <h1 className="page-head__title">Venues</h1>
          <p className="page-head__lede">
            Every room we hire, with honest capacities and one price for the day. Narrow them down by
            the kind of room, the neighbourhood and the size of your party.
          </p>
        </div>
      </div>

      <div className="container catalogue">
        <form className="filters" role="search" aria-label="Filter venues" onSubmit={handleSubmit}>
          <fieldset className="filters__types">
            <legend className="filters__label">Venue type</legend>
            <div className="chips">
              {VENUE_TYPES.map((type, index) => (
                <label key={type} className="chip">
                  <input
                    ref={index === 0 ? firstTypeRef : undefined}
                    type="checkbox"
                    name="type"
                    value={type}
                    checked={active.types.includes(type)}
                    onChange={(event) => toggleType(type, event.currentTarget.checked)}
                  />
                  <span>{TYPE_LABELS[type]}</span>
                </label>
              ))}
            </div>
          </fieldset>

          <div className="filters__row">
            <div className="field">
              <label className="filters__label" htmlFor="filter-area">
                Area
              </label>
              <select
                id="filter-area"
                name="area"
                className="input"
                value={active.area}
                onChange={(event) => commit({ ...active, area: event.currentTarget.value })}
              >
                <option value="">All areas</option>
                {areas.map((area) => (
                  <option key={area.slug} value={area.slug}>
                    {area.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label className="filters__label" htmlFor="filter-guests">
                Minimum guests
              </label>
              <input
                ref={guestsRef}
                id="filter-guests"
                name="guests"
                className="input"
                type="number"
                inputMode="numeric"
                min={1}
                step={1}
                placeholder="Any"
                value={guestsDraft}
                onChange={(event) => setGuestsDraft(event.currentTarget.value)}
              />
            </div>
          </div>
        </form>

        <section className="results" aria-labelledby="results-title">
          <div className="results__bar">
            <h2 id="results-title" className="visually-hidden">
              Results
            </h2>
            <p className="results__count" role="status">
              {countLabel(results.length)}
            </p>
            {hasFilters(active) && results.length > 0 && (
              <button type="button" className="text-button" onClick={clearFilters}>
                Reset all
              </button>
            )}
          </div>

          {results.length > 0 ? (
            <ul className="venue-grid" role="list">
              {results.map((venue, index) => (
                <li key={venue.slug}>
                  <VenueCard venue={venue} headingLevel={3} index={index} />
                </li>
              ))}
            </ul>
          ) : (
            <div className="empty-state">
              <svg className="empty-state__art" viewBox="0 -6 120 88" aria-hidden="true" focusable="false">
                <path d="M20 78V36a40 40 0 0 1 80 0v42" fill="none" stroke="currentColor" strokeWidth="4" />
                <path d="M38 78V42a22 22 0 0 1 44 0v36" fill="none" stroke="currentColor" strokeWidth="2" strokeDasharray="4 5" />
                <line x1="4" y1="78" x2="116" y2="78" stroke="currentColor" strokeWidth="4" />
              </svg>
              <p className="empty-state__title">No venues match those filters.</p>
              <p className="empty-state__body">
                Try fewer venue types, another neighbourhood or a smaller number of guests — or clear
                everything and start again. If you need something we do not list, write to us: we
                know rooms that never make it onto the website.
              </p>
              <button type="button" className="button button--primary" onClick={clearFilters}>
                Clear filters
              </button>
            </div>
          )}
        </section>
      </div>
    </>
  );
}
