/**
 * JSON as the document-2 upstream reads it (Python's `json.loads`, behind FastAPI): the same accepted syntax (NaN and
 * Infinity included, duplicate keys: the last wins) and, for a document it refuses, the same message and position
 * (`e.msg`, `e.pos` in code points), which FastAPI reports in its 422 `json_invalid` error. Numbers keep whether they
 * were written as integers, so a route can demand a JSON integer.
 */
export class PythonJsonError extends Error {
  constructor(
    readonly pythonMessage: string,
    /** Position in code points, as Python counts. */
    readonly position: number,
  ) {
    super(pythonMessage);
    this.name = "PythonJsonError";
  }
}

/** An integer token (`12`, `-0`), kept exact. */
export class JsonInteger {
  constructor(readonly value: bigint) {}
}

export type PythonJsonValue = null | boolean | string | number | JsonInteger | PythonJsonValue[] | { [key: string]: PythonJsonValue };

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export function parsePythonJson(text: string): PythonJsonValue {
  let i = 0;
  const fail = (message: string, at: number): never => {
    throw new PythonJsonError(message, codePoints(text, at));
  };
  const skip = () => {
    WHITESPACE.lastIndex = i;
    WHITESPACE.exec(text);
    i = WHITESPACE.lastIndex;
  };

  const string = (): string => {
    const begin = i; // at the opening quote
    i++;
    let out = "";
    for (;;) {
      if (i >= text.length) fail("Unterminated string starting at", begin);
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        i++;
        if (i >= text.length) fail("Unterminated string starting at", begin);
        const e = text[i]!;
        if (e === "u") {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("Invalid \\uXXXX escape", i);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 5;
          continue;
        }
        if (!(e in ESCAPES)) fail("Invalid \\escape", i - 1);
        out += ESCAPES[e];
        i++;
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail("Invalid control character at", i);
      out += c;
      i++;
    }
  };

  const value = (): PythonJsonValue => {
    const c = text[i];
    if (c === '"') return string();
    if (c === "{") return object();
    if (c === "[") return array();
    for (const [word, result] of LITERALS) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return result;
      }
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (!match) return fail("Expecting value", i);
    i = NUMBER.lastIndex;
    return match[1] === undefined && match[2] === undefined ? new JsonInteger(BigInt(match[0])) : Number(match[0]);
  };

  const object = (): { [key: string]: PythonJsonValue } => {
    const result: { [key: string]: PythonJsonValue } = {};
    i++;
    skip();
    if (text[i] === "}") {
      i++;
      return result;
    }
    for (;;) {
      if (text[i] !== '"') fail("Expecting property name enclosed in double quotes", i);
      const key = string();
      skip();
      if (text[i] !== ":") fail("Expecting ':' delimiter", i);
      i++;
      skip();
      result[key] = value();
      skip();
      if (text[i] === "}") {
        i++;
        return result;
      }
      if (text[i] !== ",") fail("Expecting ',' delimiter", i);
      i++;
      skip();
    }
  };

  const array = (): PythonJsonValue[] => {
    const result: PythonJsonValue[] = [];
    i++;
    skip();
    if (text[i] === "]") {
      i++;
      return result;
    }
    for (;;) {
      result.push(value());
      skip();
      if (text[i] === "]") {
        i++;
        return result;
      }
      if (text[i] !== ",") fail("Expecting ',' delimiter", i);
      i++;
      skip();
    }
  };

  skip();
  const result = value();
  skip();
  if (i !== text.length) fail("Extra data", i);
  return result;
}

const LITERALS: ReadonlyArray<readonly [string, PythonJsonValue]> = [
  ["null", null],
  ["true", true],
  ["false", false],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["-Infinity", Number.NEGATIVE_INFINITY],
];

function codePoints(text: string, utf16Index: number): number {
  let count = 0;
  for (let i = 0; i < utf16Index; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < utf16Index) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
