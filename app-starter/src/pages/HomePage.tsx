import { VenueCard } from '../components/VenueCard';
import { findVenue, venues, type Venue } from '../data/venues';
import { Link } from '../router';
import { useDocumentTitle } from '../useDocumentTitle';

const FEATURED = ['the-tram-depot', 'the-tile-room', 'casa-do-jacaranda']
  .map((slug) => findVenue(slug))
  .filter((v): v is Venue => v !== undefined);

const PRINCIPLES = [
  {
    title: 'Honest capacities',
    body: 'We list how many people a room holds comfortably, not how many a fire officer would tolerate. If a room is better for thirty than for forty, we say so.',
  },
  {
    title: 'One price for the day',
    body: 'From 9:00 until midnight, with tables, chairs, cleaning and a host on site. No corkage, no service charge, no “exclusive supplier” list.',
  },
  {
    title: 'Rooms we would use ourselves',
    body: 'We turn down far more rooms than we take. Each one has a past, good light and a reason to gather in it that is not the projector.',
  },
];

export function HomePage() {
  useDocumentTitle();
  const hero = findVenue('the-tram-depot');

  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <div className="container hero__grid">
          <div className="hero__copy">
            <p className="eyebrow">Venue hire in Lisbon</p>
            <h1 id="hero-title" className="hero__title">
              Rooms with a past, for the gatherings in your future.
            </h1>
            <p className="hero__lede">
              A tram depot, a tile painters’ workshop, a cannery refectory on the river. Atlas Rooms
              hires out {venues.length} rooms that used to be something else — by the day, for dinners,
              launches, workshops and weddings.
            </p>
            <div className="hero__actions">
              <Link href="/venues" className="button button--primary">
                Browse venues
              </Link>
              <Link href="/#how-it-works" className="button button--quiet">
                How hiring works
              </Link>
            </div>
          </div>
          {hero?.image && (
            <figure className="hero__figure">
              <img
                src={hero.image}
                alt={hero.imageAlt ?? ''}
                width={1200}
                height={800}
                className="hero__image"
              />
              <figcaption>
                {hero.name}, {hero.areaName} — up to {hero.capacity} guests
              </figcaption>
            </figure>
          )}
        </div>
      </section>

      <section className="section principles" aria-labelledby="principles-title">
        <div className="container">
          <h2 id="principles-title" className="section__title">
            What we promise
          </h2>
          <ol className="principles__list">
            {PRINCIPLES.map((p) => (
              <li key={p.title} className="principles__item">
                <h3>{p.title}</h3>
                <p>{p.body}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section" aria-labelledby="featured-title">
        <div className="container">
          <div className="section__head">
            <h2 id="featured-title" className="section__title">
              Three rooms to start with
            </h2>
            <Link href="/venues" className="text-link">
              See all {venues.length} venues <span aria-hidden="true">→</span>
            </Link>
          </div>
          <ul className="venue-grid" role="list">
            {FEATURED.map((venue, index) => (
              <li key={venue.slug}>
                <VenueCard venue={venue} headingLevel={3} index={index} />
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section id="how-it-works" className="section section--tinted" aria-labelledby="how-title">
        <div className="container">
          <h2 id="how-title" className="section__title">
            How hiring works
          </h2>
          <ol className="steps">
            <li className="steps__item">
              <h3>Find a room</h3>
              <p>Filter by the kind of room, the neighbourhood and how many people are coming.</p>
            </li>
            <li className="steps__item">
              <h3>Send an enquiry</h3>
              <p>Tell us the date and the headcount. A real person replies within one working day.</p>
            </li>
            <li className="steps__item">
              <h3>Visit, then decide</h3>
              <p>We hold your date for seven days while you come and stand in the room.</p>
            </li>
          </ol>
        </div>
      </section>

      <section id="about" className="section about" aria-labelledby="about-title">
        <div className="container about__grid">
          <h2 id="about-title" className="section__title">
            About Atlas Rooms
          </h2>
          <div className="about__copy">
            <p>
              We started in 2016 with one room: the workshop above Inês’s grandmother’s tile studio in
              Alfama, which friends kept asking to borrow for dinners. Nine years later we look after{' '}
              {venues.length} rooms across six neighbourhoods, and we still know every one of them by
              the way its floor creaks.
            </p>
            <p>
              We are four people. We do not run events, sell packages or take commission from caterers.
              We find rooms worth gathering in, keep them in good order and hire them out by the day, at
              one price, to people who will look after them.
            </p>
          </div>
        </div>
      </section>
    </>
  );
}
