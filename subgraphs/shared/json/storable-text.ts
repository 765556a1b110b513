/**
 * Text PostgreSQL can store. Two kinds of JavaScript string cannot be: one holding U+0000 (PostgreSQL's `text` and
 * `jsonb` refuse the NUL character: the write fails), and one holding a lone UTF-16 surrogate (it has no UTF-8 form:
 * the driver would silently store U+FFFD instead). Both are refused as input, with the family's validation code,
 * instead of failing at the database (a masked 500) or being stored altered.
 *
 * Used by the strict JSON parser (every JSON body the REST shim reads) and by the GraphQL argument check of
 * subgraphs whose free-text inputs reach the database (federation.ts, `refuseUnstorableText`).
 */

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when PostgreSQL can store the string as given. */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * True when a value (a GraphQL argument: strings, lists, input objects, JSON objects) holds an unstorable string
 * anywhere, object member names included. Walked with an explicit stack, so no nesting depth can overflow the call
 * stack.
 */
export function holdsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === "string") {
      if (!isStorableText(next)) return true;
    } else if (Array.isArray(next)) {
      for (const entry of next) pending.push(entry);
    } else if (next !== null && typeof next === "object") {
      for (const [key, entry] of Object.entries(next)) {
        if (!isStorableText(key)) return true;
        pending.push(entry);
      }
    }
  }
  return false;
}
