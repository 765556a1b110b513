/**
 * Checks of text in one fixed form, read field by field with character codes instead of regular expressions: the
 * instants the hot paths read and write (`toISOString()`'s form in the DateTime scalar, PostgreSQL's UTC timestamptz
 * in the pool's parser) are each one such form.
 */

/** A form from a pattern: `0` stands for a digit, any other character for itself. */
export function fixedForm(pattern: string): readonly number[] {
  return Array.from(pattern, (char) => (char === "0" ? 0 : char.charCodeAt(0)));
}

/** Whether `text` holds the form's characters at positions 0 .. form.length - 1 (it may be longer). */
export function startsInForm(text: string, form: readonly number[]): boolean {
  for (let at = 0; at < form.length; at++) {
    const code = text.charCodeAt(at);
    const expected = form[at]!;
    if (expected === 0 ? !(code >= 48 && code <= 57) : code !== expected) return false;
  }
  return true;
}

/** The number of the two ASCII digits at `at` (the caller has checked they are digits). */
export function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}
