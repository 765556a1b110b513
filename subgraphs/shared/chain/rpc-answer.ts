/**
 * The text of a JSON-RPC batch answer, parsed without making it one string.
 *
 * A batch of event pages answers megabytes, almost all of it a few long hex strings (the calls' return data). Made one
 * string, an answer is a new object of V8's large-object space, whose fresh pages cost more than the decoding itself
 * on a virtual machine (a 1 MB string: about 3 ms of page faults here, against 0.2 ms to decode it). So each long
 * hex string is cut out of the bytes on its own (below that size: the ordinary heap), the text around them is parsed
 * with a placeholder in each one's place, and the placeholders are put back.
 *
 * The result is what `JSON.parse` gives for the whole text, and so is any error: a span is cut out only when it is a
 * whole JSON string of hex digits (an opening quote not escaped, then `0x`, hex digits and the closing quote), which
 * means the same as its own text; an answer that holds a NUL escape, where a placeholder could be confused with the
 * node's own text, is parsed whole.
 */

/** Hex strings at least this long are cut out; shorter ones stay in the parsed text. */
export const LONG_HEX = 4096;

const OPEN = Buffer.from('"0x');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NUL_ESCAPE = Buffer.from("\\u0000");
/** A placeholder: a NUL the answer cannot hold (checked), then the cut-out string's index. */
const MARK = "\u0000";
const HEX_DIGITS = /^0x[0-9a-fA-F]*$/;

export function parseRpcAnswer(body: Buffer): unknown {
  if (body.length < LONG_HEX || body.includes(NUL_ESCAPE)) return JSON.parse(body.toString("utf8"));
  const pieces: string[] = [];
  const hexes: string[] = [];
  let copied = 0;
  for (let open = body.indexOf(OPEN); open !== -1; open = body.indexOf(OPEN, open + 1)) {
    const close = body.indexOf(QUOTE, open + 1);
    if (close === -1) break;
    if (close - open - 1 < LONG_HEX || (open > 0 && body[open - 1] === BACKSLASH)) continue;
    const hex = body.toString("latin1", open + 1, close);
    if (!HEX_DIGITS.test(hex)) continue;
    pieces.push(body.toString("utf8", copied, open), JSON.stringify(`${MARK}${hexes.length}`));
    hexes.push(hex);
    copied = close + 1;
    open = close;
  }
  if (hexes.length === 0) return JSON.parse(body.toString("utf8"));
  pieces.push(body.toString("utf8", copied));
  return restore(JSON.parse(pieces.join("")), hexes);
}

function restore(value: unknown, hexes: readonly string[]): unknown {
  if (typeof value === "string") return value.startsWith(MARK) ? hexes[Number(value.slice(1))] : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restore(value[i], hexes);
  } else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = restore(record[key], hexes);
  }
  return value;
}
