/** Enquiry form values and validation (pure, so it is easy to reason about). */
export interface EnquiryValues {
  name: string;
  email: string;
  date: string;
  guests: string;
  message: string;
  consent: boolean;
}

export type EnquiryField = 'name' | 'email' | 'date' | 'guests' | 'consent';
export type EnquiryErrors = Partial<Record<EnquiryField, string>>;

/** Form order: focus goes to the first of these that is invalid. */
export const FIELD_ORDER: readonly EnquiryField[] = ['name', 'email', 'date', 'guests', 'consent'];

export const EMPTY_ENQUIRY: EnquiryValues = {
  name: '',
  email: '',
  date: '',
  guests: '',
  message: '',
  consent: false,
};

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A local calendar date as YYYY-MM-DD (the format of `<input type="date">`). */
export function isoDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function tomorrow(today = new Date()): string {
  const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1);
  return isoDate(d);
}

export function validateEnquiry(
  values: EnquiryValues,
  capacity: number,
  today = new Date(),
): EnquiryErrors {
  const errors: EnquiryErrors = {};
  if (!values.name.trim()) errors.name = 'Please tell us your name.';

  const email = values.email.trim();
  if (!email) errors.email = 'Please enter your email address.';
  else if (!EMAIL.test(email)) errors.email = 'Enter an email address like name@example.com.';

  if (!values.date) errors.date = 'Choose the date of your event.';
  else if (!/^\d{4}-\d{2}-\d{2}$/.test(values.date) || values.date <= isoDate(today))
    errors.date = 'Choose a date after today.';

  const guests = values.guests.trim();
  const range = `Enter a whole number of guests from 1 to ${capacity}.`;
  if (!guests) errors.guests = `How many guests are you expecting? This room holds up to ${capacity}.`;
  else if (!/^\d+$/.test(guests)) errors.guests = range;
  else {
    const n = Number.parseInt(guests, 10);
    if (n < 1 || n > capacity) errors.guests = range;
  }

  if (!values.consent) errors.consent = 'Please agree so that we can reply to your enquiry.';
  return errors;
}

export function formatDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number);
  return new Date(y, m - 1, d).toLocaleDateString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
}
