/**
 * The strict JSON reader's two ways (subgraphs/shared/json/strict.ts): the engine's `JSON.parse` where its answer is
 * provably the strict parser's, the recursive-descent parser otherwise. On every input, seeds and random variations
 * of them alike, the reader answers exactly what the strict parser alone answers: the same value (same keys in the
 * same order, `-0` and `__proto__` members included) or an InvalidJsonError.
 */
import { describe, expect, it } from "vitest";
import { seeded } from "../support/seeded.js";
import { InvalidJsonError, parseJsonByStrictParser, parseJsonStrict } from "../../subgraphs/shared/json/strict.js";

const SEEDS = [
  '{"agentToken":"mat_x","leaseSeconds":60,"endpoint":{"providerKey":"p1","endpointBaseUrl":"http://10.0.0.1:8080"}}',
  '{"a":1,"a":2}',
  '{"a":{"b":[1,{"c":2,"c":3}]}}',
  '{"__proto__":{"x":1},"b":2}',
  '{"__proto__":1,"__proto__":2}',
  '{"2":"x","1":"y","b":"z"}',
  '{"n":-0,"m":1e400,"k":-1.5e-7,"j":0.1,"i":12345678901234567890}',
  '{"s":"a\\"b\\\\c\\/d\\n\\t\\r\\b\\f","t":"\\"}"}',
  '{"s":"a:b{c[d","t":"\\\\"}',
  '{"u":"\\u0061","a":1}',
  '{"a":1,"\\u0061":2}',
  '{"x":"\ud83d\ude80","y":"\ud800"}',
  '{"x":"\udc00\ud800"}',
  '{"x":"a\u0000b"}',
  ' \n\t{ "a" : [ ] , "b" : { } } \r\n',
  "[1,2,[3,[4]],{}]",
  '"text"',
  "null",
  "true",
  "01",
  "[1,]",
  '{"a":1,}',
  "{'a':1}",
  "\ufeff{}",
  "[".repeat(32) + "]".repeat(32),
  "[".repeat(33) + "]".repeat(33),
  "{\"a\":".repeat(32) + "1" + "}".repeat(32),
  "{\"a\":".repeat(33) + "1" + "}".repeat(33),
  '{"a":"\u2028\u00e9"}',
];

const PIECES = ['"a"', '"a":1', ",", ":", "{", "}", "[", "]", '"', "\\", "\\u0061", "\\u0000", "\ud800", "\udc00", "1", "-0", " ", "\u0000", "\n", "x", '"__proto__":2'];

function outcome(parse: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text) };
  } catch (error) {
    if (!(error instanceof InvalidJsonError)) throw error;
    return { error: "InvalidJsonError" };
  }
}

/** Keys in order and -0 kept apart from 0, at any depth. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === "object") return Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])]);
  return Object.is(value, -0) ? "-0" : value;
}

/** Returns whether the input was taken (a value), so the random test can check it covers both answers. */
function expectSameAnswer(text: string): boolean {
  const reader = outcome(parseJsonStrict, text);
  const parser = outcome(parseJsonByStrictParser, text);
  if ("error" in parser) {
    expect(reader, text).toEqual(parser);
    return false;
  }
  expect("value" in reader, text).toBe(true);
  expect(shape((reader as { value: unknown }).value), text).toEqual(shape(parser.value));
  return true;
}

describe("strict JSON reader", () => {
  it("answers each seed as the strict parser alone", () => {
    for (const text of SEEDS) expectSameAnswer(text);
  });

  it("answers 10,000 random variations of the seeds as the strict parser alone", () => {
    const next = seeded(20261127).next;
    let taken = 0;
    for (let n = 0; n < 10_000; n++) {
      let text = SEEDS[Math.floor(next() * SEEDS.length)]!;
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (text.length + 1));
        const kind = next();
        if (kind < 0.45) text = text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)]! + text.slice(at);
        else if (kind < 0.75) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 3));
        else {
          // A member repeated elsewhere in the text: duplicates at any depth.
          const member = /"[^"\\]*":[^,{}[\]]*/.exec(text.slice(at));
          if (member) text = text.slice(0, at) + member[0] + "," + text.slice(at);
        }
      }
      if (expectSameAnswer(text)) taken++;
    }
    // Both answers are well represented: values (the engine's path, mostly) and refusals.
    expect(taken).toBeGreaterThan(1_000);
    expect(taken).toBeLessThan(9_000);
  });

  it("refuses duplicates, deep nesting and unstorable text the engine alone would take", () => {
    for (const text of ['{"a":1,"a":2}', '{"a":1,"\\u0061":2}', "[".repeat(33) + "]".repeat(33), '{"x":"\\u0000"}', '{"x":"\ud800"}']) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(() => parseJsonStrict(text)).toThrow(InvalidJsonError);
    }
  });
});
