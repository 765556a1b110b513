/**
 * The two media-type questions the verify routes ask: is the request body declared as JSON, and does the client
 * accept a JSON answer. Both run on every request, so the common spellings are answered by one string comparison
 * before anything is parsed.
 */

/**
 * `application/json`, optionally with `charset=utf-8` (RFC 9110: type, subtype, parameter name and the charset value
 * are case-insensitive; the value may be quoted). Any other parameter or charset is refused: the body is read as
 * UTF-8 and nothing else.
 */
const JSON_CONTENT_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset=(?:utf-8|"utf-8")[ \t]*)?$/i;

export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value === "application/json" || value === "application/json; charset=utf-8" || JSON_CONTENT_TYPE.test(value);
}

/** RFC 9110 `qvalue`: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/** How specifically a media range names `application/json`; 0 means it does not cover it. */
function jsonSpecificity(range: string): number {
  switch (range) {
    case "application/json":
      return 3;
    case "application/*":
      return 2;
    case "*/*":
      return 1;
    default:
      return 0;
  }
}

/**
 * Whether an `Accept` header admits `application/json`. An absent or empty header accepts anything. Otherwise the
 * most specific range covering JSON decides (RFC 9110 section 12.5.1), so `application/json;q=0, *\/*` refuses it;
 * the range must carry q > 0. Elements with a malformed q-value are ignored. Range parameters other than q do not
 * narrow the match: the answer is always `application/json; charset=utf-8`.
 */
export function acceptsJson(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "*/*" || value === "application/json") return true;
  let bestSpecificity = 0;
  let bestQ = 0;
  for (const element of value.split(",")) {
    const parts = element.split(";");
    const specificity = jsonSpecificity(parts[0]!.trim().toLowerCase());
    if (specificity === 0 || specificity < bestSpecificity) continue;
    const q = qualityOf(parts);
    if (q === undefined) continue;
    bestQ = specificity > bestSpecificity ? q : Math.max(bestQ, q);
    bestSpecificity = specificity;
  }
  return bestQ > 0;
}

/** The q parameter of a media range (default 1), or undefined when it is malformed. */
function qualityOf(parts: readonly string[]): number | undefined {
  for (let i = 1; i < parts.length; i++) {
    const parameter = parts[i]!;
    const equals = parameter.indexOf("=");
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== "q") continue;
    const raw = parameter.slice(equals + 1).trim();
    return QVALUE.test(raw) ? Number(raw) : undefined;
  }
  return 1;
}
