// A customer's or payer's email address, as typed into the API or a hosted page: a bare address
// (an RFC 5322 addr-spec, `name@example.com`) and nothing else. The mailer reads its `to` as an
// address list, so `x<evil@evil.example>`, `Name <a@b.lk>`, `a@b.lk, c@d.lk` or `a@b.lk (note)`
// would mail another address than the one shown. Two maintained parsers decide, not a pattern of
// ours: validator's says it is an addr-spec (no display name, no quoted local part), and the
// mailer's own (nodemailer's) must read it back as that one address, unchanged; the two differ
// on some Unicode in a domain (U+2028 splits it for the mailer).
import addressparser from 'nodemailer/lib/addressparser';
import isEmail from 'validator/lib/isEmail';

export const EMAIL_MAX_LENGTH = 254;

const OPTIONS = {
  allow_display_name: false,
  allow_utf8_local_part: false,
  allow_ip_domain: false,
  require_tld: true,
  // A quoted local part may hold `<`, `,` and `@`, which an address list reads otherwise.
  blacklisted_chars: '"',
};

export function isEmailAddress(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH || !isEmail(value, OPTIONS)) return false;
  const read = addressparser(value, { flatten: true });
  return read.length === 1 && read[0]?.name === '' && read[0].address === value;
}
