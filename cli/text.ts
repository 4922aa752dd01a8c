// Text from outside (merchants' and customers' names, an upgrade request's message, URLs, email
// addresses and subjects, a webhook receiver's error) printed for an operator: a terminal obeys
// the control characters in it (ESC clears the screen or moves the cursor, CR rewrites a line, a
// newline fakes one, bidirectional overrides reorder what is shown), so each is printed escaped,
// visibly, as `\u001b`. C0, DEL and C1 controls, the line and paragraph separators and the
// bidirectional marks, embeddings, overrides and isolates.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One value from outside, for a line of the CLI's output: nothing in it acts on the terminal. */
export function shown(value: string): string {
  return value.replace(CONTROLS, escaped);
}

/**
 * What the CLI prints, its own line breaks kept and every other control escaped: the last guard
 * for a value a command put in a line as it is (each command also passes its values through
 * `shown`, so a newline in one cannot fake a line). JSON output goes through it too: JSON.stringify
 * escapes C0 but leaves DEL, C1 and U+2028 as they are, and `\u009b` is as valid JSON.
 */
export function shownLines(text: string): string {
  return text.split('\n').map(shown).join('\n');
}
