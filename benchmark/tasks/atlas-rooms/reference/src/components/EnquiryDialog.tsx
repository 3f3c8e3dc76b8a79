import {
  useEffect,
  useRef,
  useState,
  type ChangeEvent,
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import type { Venue } from '../data/venues';
import {
  EMPTY_ENQUIRY,
  FIELD_ORDER,
  formatDate,
  tomorrow,
  validateEnquiry,
  type EnquiryErrors,
  type EnquiryField,
  type EnquiryValues,
} from '../lib/enquiry';

interface EnquiryDialogProps {
  venue: Venue;
  open: boolean;
  onClose: () => void;
  /** Where focus goes back to when the dialog closes (the button that opened it). */
  returnFocusRef: RefObject<HTMLElement | null>;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal enquiry form on the native <dialog> (top layer, inert background), with an explicit
 * focus trap, Escape to close and focus returned to the trigger. Nothing is sent anywhere.
 */
export function EnquiryDialog({ venue, open, onClose, returnFocusRef }: EnquiryDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
      returnFocusRef.current?.focus();
    }
  }, [open, returnFocusRef]);

  // Escape arrives as a `cancel` event; the browser may also close the dialog itself.
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const onCancel = (event: Event) => {
      event.preventDefault();
      onClose();
    };
    const onNativeClose = () => onClose();
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onNativeClose);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onNativeClose);
    };
  }, [onClose]);

  function handleKeyDown(event: KeyboardEvent<HTMLDialogElement>) {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== 'Tab') return;
    const dialog = dialogRef.current;
    if (!dialog) return;
    const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (el) => el.getClientRects().length > 0,
    );
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    const current = document.activeElement;
    if (event.shiftKey && (current === first || current === dialog || !dialog.contains(current))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (current === last || !dialog.contains(current))) {
      event.preventDefault();
      first.focus();
    }
  }

  return (
    <dialog
      ref={dialogRef}
      className="enquiry"
      aria-modal="true"
      aria-labelledby="enquiry-title"
      onKeyDown={handleKeyDown}
    >
      <div className="enquiry__head">
        <p className="eyebrow enquiry__eyebrow">Enquiry</p>
        <h2 id="enquiry-title" className="enquiry__title">
          Enquire about {venue.name}
        </h2>
        <button type="button" className="enquiry__close" onClick={onClose}>
          <span aria-hidden="true" className="enquiry__close-icon">
            ×
          </span>
          Close
        </button>
      </div>
      {/* Mounted only while open, so every opening starts with a fresh form. */}
      {open && <EnquiryForm venue={venue} onDone={onClose} />}
    </dialog>
  );
}

interface SentEnquiry {
  name: string;
  date: string;
  guests: string;
  email: string;
}

function EnquiryForm({ venue, onDone }: { venue: Venue; onDone: () => void }) {
  const [values, setValues] = useState<EnquiryValues>(EMPTY_ENQUIRY);
  const [errors, setErrors] = useState<EnquiryErrors>({});
  const [attempt, setAttempt] = useState(0);
  const [sent, setSent] = useState<SentEnquiry | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const successRef = useRef<HTMLDivElement>(null);

  // After a failed submit (and once the errors are rendered), focus the first invalid field.
  useEffect(() => {
    if (attempt === 0) return;
    const first = FIELD_ORDER.find((field) => errors[field]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
    // Runs only on a new submit attempt, not on every keystroke.
  }, [attempt]);

  useEffect(() => {
    if (sent) successRef.current?.focus();
  }, [sent]);

  function update(event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) {
    const { name, value } = event.currentTarget;
    const next: EnquiryValues =
      event.currentTarget instanceof HTMLInputElement && event.currentTarget.type === 'checkbox'
        ? { ...values, consent: event.currentTarget.checked }
        : { ...values, [name]: value };
    setValues(next);
    // Once the form has been submitted, errors follow the fields as they are corrected.
    if (attempt > 0) setErrors(validateEnquiry(next, venue.capacity));
  }

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validateEnquiry(values, venue.capacity);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setAttempt((n) => n + 1);
      return;
    }
    // No network: the enquiry is "sent" by showing the confirmation.
    setSent({
      name: values.name.trim(),
      date: values.date,
      guests: values.guests.trim(),
      email: values.email.trim(),
    });
  }

  if (sent) {
    const firstName = sent.name.split(/\s+/)[0];
    return (
      <div className="enquiry__success" ref={successRef} tabIndex={-1}>
        <svg className="enquiry__tick" viewBox="0 0 48 48" aria-hidden="true" focusable="false">
          <circle cx="24" cy="24" r="22" fill="none" stroke="currentColor" strokeWidth="3" />
          <path d="M14 25l7 7 13-15" fill="none" stroke="currentColor" strokeWidth="4" />
        </svg>
        <p className="enquiry__success-title">
          Thank you, {firstName} — your enquiry about {venue.name} is with us.
        </p>
        <p>
          We have noted {sent.guests} {sent.guests === '1' ? 'guest' : 'guests'} on{' '}
          {formatDate(sent.date)}. Inês or Tomás will write to <strong>{sent.email}</strong> within one
          working day, usually with a time to come and see the room.
        </p>
        <button type="button" className="button button--quiet" onClick={onDone}>
          Back to the venue
        </button>
      </div>
    );
  }

  const describedBy = (field: EnquiryField, hint?: string) =>
    [errors[field] ? `enquiry-${field}-error` : null, hint].filter(Boolean).join(' ') || undefined;

  const error = (field: EnquiryField) =>
    errors[field] ? (
      <p className="field__error" id={`enquiry-${field}-error`}>
        <span aria-hidden="true">! </span>
        {errors[field]}
      </p>
    ) : null;

  return (
    <form ref={formRef} className="enquiry__form" noValidate onSubmit={handleSubmit}>
      <p className="enquiry__intro">
        All fields are required unless marked optional. We only use your details to reply.
      </p>

      <div className="field">
        <label htmlFor="enquiry-name">Name</label>
        <input
          id="enquiry-name"
          name="name"
          className="input"
          type="text"
          autoComplete="name"
          data-autofocus
          value={values.name}
          onChange={update}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy('name')}
        />
        {error('name')}
      </div>

      <div className="field">
        <label htmlFor="enquiry-email">Email</label>
        <input
          id="enquiry-email"
          name="email"
          className="input"
          type="email"
          autoComplete="email"
          spellCheck={false}
          value={values.email}
          onChange={update}
          aria-invalid={errors.email ? true : undefined}
          aria-describedby={describedBy('email')}
        />
        {error('email')}
      </div>

      <div className="enquiry__pair">
        <div className="field">
          <label htmlFor="enquiry-date">Event date</label>
          <input
            id="enquiry-date"
            name="date"
            className="input"
            type="date"
            min={tomorrow()}
            value={values.date}
            onChange={update}
            aria-invalid={errors.date ? true : undefined}
            aria-describedby={describedBy('date')}
          />
          {error('date')}
        </div>

        <div className="field">
          <label htmlFor="enquiry-guests">Guests</label>
          <input
            id="enquiry-guests"
            name="guests"
            className="input"
            type="number"
            inputMode="numeric"
            min={1}
            max={venue.capacity}
            step={1}
            value={values.guests}
            onChange={update}
            aria-invalid={errors.guests ? true : undefined}
            aria-describedby={describedBy('guests', 'enquiry-guests-hint')}
          />
          <p className="field__hint" id="enquiry-guests-hint">
            Up to {venue.capacity}
          </p>
          {error('guests')}
        </div>
      </div>

      <div className="field">
        <label htmlFor="enquiry-message">Message</label>
        <textarea
          id="enquiry-message"
          name="message"
          className="input"
          rows={4}
          value={values.message}
          onChange={update}
          aria-describedby="enquiry-message-hint"
        />
        <p className="field__hint" id="enquiry-message-hint">
          Optional. The occasion, timings, anything we should know.
        </p>
      </div>

      <div className="field field--check">
        <input
          id="enquiry-consent"
          name="consent"
          type="checkbox"
          checked={values.consent}
          onChange={update}
          aria-invalid={errors.consent ? true : undefined}
          aria-describedby={describedBy('consent')}
        />
        <label htmlFor="enquiry-consent">
          I agree to be contacted by Atlas Rooms about this enquiry.
        </label>
        {error('consent')}
      </div>

      <div className="enquiry__actions">
        <button type="submit" className="button button--primary">
          Send enquiry
        </button>
      </div>
    </form>
  );
}
