/**
 * Strict JSON input for every route that takes a JSON body (the REST shim's body reader) and for evidence files.
 *
 * `JSON.parse` is not strict enough: it silently keeps the last of two duplicate keys, so `{"a":"x","a":"y"}` and
 * `{"a":"y"}` would look alike to every later check. This module parses RFC 8259 JSON itself, rejects duplicate
 * member names at any depth (compared after unescaping, so `"a"` and `"\u0061"` collide), refuses strings and member
 * names PostgreSQL cannot store (U+0000, a lone surrogate: storable-text.ts) however they are spelled, and for
 * evidence files additionally demands that the bytes equal their RFC 8785 (JCS) canonical form.
 */
import canonicalize from "canonicalize";
import { isStorableText } from "./storable-text.js";

export class InvalidJsonError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "InvalidJsonError";
  }
}

/** Deeper nesting than any request body needs; the limit keeps a hostile `[[[[...` from exhausting the stack. */
const MAX_DEPTH = 32;

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Parse an evidence file: valid UTF-8 without BOM, valid JSON without duplicate keys, and byte for byte equal to its
 * RFC 8785 canonical form (so pretty printing, reordered keys, needless escapes, other number spellings and a
 * trailing newline are all rejected). Throws `InvalidJsonError`.
 */
export function parseCanonicalJson(input: Uint8Array | string): unknown {
  const text = typeof input === "string" ? input : decodeUtf8(input);
  if (typeof input === "string" && hasLoneSurrogate(text)) throw new InvalidJsonError("not encodable as UTF-8");
  const value = parseJsonStrict(text);
  let canonical: string | undefined;
  try {
    canonical = canonicalize(value);
  } catch {
    // canonicalize refuses lone surrogates; such a document has no canonical form.
    throw new InvalidJsonError("no canonical form");
  }
  if (canonical !== text) throw new InvalidJsonError("not in canonical form");
  return value;
}

/**
 * Parse RFC 8259 JSON text (whitespace allowed) and reject duplicate member names at any depth, a leading BOM,
 * nesting deeper than 32 levels, and strings or member names holding U+0000 or a lone surrogate. For request bodies
 * that need not be canonical, such as the challenge route's. Throws `InvalidJsonError`.
 */
export function parseJsonStrict(text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) throw new InvalidJsonError("byte order mark");
  const value = engineParse(text);
  if (value !== UNDECIDED) return value;
  const parser = new StrictJsonParser(text);
  return parser.parseDocument();
}

/** The recursive-descent parser alone, without the engine's fast path (test/rest-shim/strict-json.test.ts compares the two). */
export function parseJsonByStrictParser(text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) throw new InvalidJsonError("byte order mark");
  return new StrictJsonParser(text).parseDocument();
}

const UNDECIDED = Symbol("undecided");

/**
 * The engine's `JSON.parse` where its answer is provably the strict parser's, else UNDECIDED (the strict parser then
 * decides, and gives its reason). `JSON.parse` takes exactly RFC 8259's grammar (the same numbers, the same
 * whitespace) and answers the same values; what it does not refuse is checked around it:
 *
 * - duplicate member names: every `:` outside a string starts one member, so the text's count of them equals the
 *   parsed objects' count of own keys unless two members of one object share a name (after unescaping, which
 *   `JSON.parse` did: `"a"` and `"\u0061"` collide there too);
 * - nesting: the brackets outside strings are counted the same way, against the same 32 levels;
 * - unstorable text: without a `\u` escape in the text, every escape unescapes to printable ASCII, so the strings
 *   and member names hold U+0000 or a lone surrogate exactly when the text does; a text with a `\u` escape goes
 *   to the strict parser.
 */
function engineParse(text: string): unknown {
  let members = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x22) break;
        if (inner === 0x5c) {
          if (text.charCodeAt(i + 1) === 0x75) return UNDECIDED; // \u
          i++;
        }
      }
    } else if (code === 0x3a) members++;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_DEPTH) return UNDECIDED;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  if (!isStorableText(text)) return UNDECIDED;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return UNDECIDED;
  }
  return ownKeys(value) === members ? value : UNDECIDED;
}

/** The own keys of every object in a parsed value (at most 32 levels deep: checked before parsing). */
function ownKeys(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const entry of value) count += ownKeys(entry);
    return count;
  }
  for (const key in value) count += 1 + ownKeys((value as Record<string, unknown>)[key]);
  return count;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    throw new InvalidJsonError("invalid UTF-8");
  }
}

function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Recursive-descent parser over a string; `pos` always points at the next unread character. */
class StrictJsonParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail("trailing characters");
    return value;
  }

  private parseValue(depth: number): unknown {
    const ch = this.text[this.pos];
    if (ch === "{") return this.parseObject(depth + 1);
    if (ch === "[") return this.parseArray(depth + 1);
    if (ch === '"') return this.parseString();
    if (ch === "t") return this.parseLiteral("true", true);
    if (ch === "f") return this.parseLiteral("false", false);
    if (ch === "n") return this.parseLiteral("null", null);
    return this.parseNumber();
  }

  private parseObject(depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    this.pos++; // {
    const object: Record<string, unknown> = {};
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return object;
    }
    for (;;) {
      if (this.text[this.pos] !== '"') this.fail("expected member name");
      const key = this.parseString();
      if (seen.has(key)) this.fail("duplicate member name");
      seen.add(key);
      this.skipWhitespace();
      this.expect(":");
      this.skipWhitespace();
      // defineProperty, not assignment: a member named "__proto__" must stay an ordinary own property.
      Object.defineProperty(object, key, {
        value: this.parseValue(depth),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipWhitespace();
      if (this.text[this.pos] === ",") {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      this.expect("}");
      return object;
    }
  }

  private parseArray(depth: number): unknown[] {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    this.pos++; // [
    const array: unknown[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return array;
    }
    for (;;) {
      array.push(this.parseValue(depth));
      this.skipWhitespace();
      if (this.text[this.pos] === ",") {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      this.expect("]");
      return array;
    }
  }

  private parseString(): string {
    this.pos++; // opening quote
    let out = "";
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= this.text.length) this.fail("unterminated string");
      const code = this.text.charCodeAt(this.pos);
      if (code === 0x22) {
        out += this.text.slice(runStart, this.pos);
        // Checked on the unescaped value: `\u0000` and `\ud800` are refused like the raw characters would be.
        if (!isStorableText(out)) this.fail("not storable text (U+0000 or a lone surrogate)");
        this.pos++;
        return out;
      }
      if (code < 0x20) this.fail("control character in string");
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(runStart, this.pos);
      const escape = this.text[this.pos + 1];
      if (escape === "u") {
        const hex = this.text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("bad unicode escape");
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 6;
      } else if (escape !== undefined && escape in ESCAPES) {
        out += ESCAPES[escape];
        this.pos += 2;
      } else {
        this.fail("bad escape");
      }
      runStart = this.pos;
    }
  }

  private parseNumber(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail("unexpected character");
    this.pos += match![0].length;
    return Number(match![0]);
  }

  private parseLiteral<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("unexpected character");
    this.pos += word.length;
    return value;
  }

  private skipWhitespace(): void {
    for (;;) {
      const ch = this.text[this.pos];
      if (ch !== " " && ch !== "\t" && ch !== "\n" && ch !== "\r") return;
      this.pos++;
    }
  }

  private expect(ch: string): void {
    if (this.text[this.pos] !== ch) this.fail(`expected '${ch}'`);
    this.pos++;
  }

  private fail(reason: string): never {
    throw new InvalidJsonError(`${reason} at offset ${this.pos}`);
  }
}
