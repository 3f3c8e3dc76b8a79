import { Link } from '../router';
import { LogoMark } from './Logo';

export function SiteFooter() {
  return (
    <footer className="site-footer">
      <div className="container site-footer__grid">
        <div className="site-footer__brand">
          <Link href="/" className="brand brand--footer">
            <LogoMark />
            <span className="brand__name">Atlas Rooms</span>
          </Link>
          <p>Rooms with a past, hired by the day. Lisbon, since 2016.</p>
        </div>
        <div>
          <h2 className="site-footer__heading">Visit</h2>
          <address>
            Rua da Boavista 71, 2.º
            <br />
            1200-066 Lisboa
          </address>
        </div>
        <div>
          <h2 className="site-footer__heading">Talk to us</h2>
          <p>
            <a href="mailto:ola@atlasrooms.pt">ola@atlasrooms.pt</a>
            <br />
            <a href="tel:+351213000000">+351 213 000 000</a>
          </p>
          <p className="site-footer__small">Monday to Friday, 9:00–18:00</p>
        </div>
      </div>
      <div className="container site-footer__base">
        <p>© 2025 Atlas Rooms, Lda. Prices include VAT. We answer every enquiry within one working day.</p>
      </div>
    </footer>
  );
}
