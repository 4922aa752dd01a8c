// Sri Lankan phone numbers, normalised to the international form +94XXXXXXXXX.
// Accepted: 0XXXXXXXXX, 94XXXXXXXXX, +94XXXXXXXXX and 0094XXXXXXXXX, with spaces and dashes
// removed; the national number is 9 digits and does not start with 0.
const NATIONAL = /^[1-9]\d{8}$/;

export function normaliseSriLankanPhone(input: string): string | null {
  const compact = input.replace(/[\s-]/g, '');
  const national = compact.startsWith('+94')
    ? compact.slice(3)
    : compact.startsWith('0094')
      ? compact.slice(4)
      : compact.startsWith('94') && compact.length === 11
        ? compact.slice(2)
        : compact.startsWith('0')
          ? compact.slice(1)
          : null;
  return national !== null && NATIONAL.test(national) ? `+94${national}` : null;
}

/** Mobile numbers are 07X XXX XXXX: the national number starts with 7. */
export function normaliseSriLankanMobile(input: string): string | null {
  const phone = normaliseSriLankanPhone(input);
  return phone !== null && phone.startsWith('+947') ? phone : null;
}

/** `text` with any spaces and dashes allowed between its characters, as an ECMA pattern. */
const spaced = (text: string) => [...text].map((c) => c.replace('+', '\\+')).join('[ -]*');

/**
 * A JSON Schema pattern for the inputs the normaliser takes whose separators are spaces and dashes,
 * national numbers starting with `first`: the request schemas state the rule exactly, so a number
 * that fits the document is never refused.
 */
const phonePattern = (first: string) =>
  `^[ -]*(?:${spaced('+94')}|${spaced('0094')}|${spaced('94')}|0)[ -]*${first}(?:[ -]*[0-9]){8}[ -]*$`;

export const SRI_LANKAN_PHONE_PATTERN = phonePattern('[1-9]');
export const SRI_LANKAN_MOBILE_PATTERN = phonePattern('7');
