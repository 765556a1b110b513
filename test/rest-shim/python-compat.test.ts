/**
 * Compatibility with the document-2 upstream (Python behind FastAPI), against vectors recorded from CPython 3.11:
 * json.loads' messages and positions for refused documents, its accepted extensions, Python's float repr, and
 * pydantic's lax integer parsing as the shim applies it to path and query parameters.
 */
import { describe, expect, it } from "vitest";
import { validateInts } from "../../rest-shim/fastapi.js";
import { RouteInputError } from "../../rest-shim/json-body.js";
import { jsonText, pythonFloat, rawInteger } from "../../rest-shim/json-text.js";
import { JsonInteger, parsePythonJson, PythonJsonError } from "../../rest-shim/python-json.js";

/** [document, e.msg, e.pos] from `json.loads` (CPython 3.11). */
const REFUSED: Array<[string, string, number]> = [
  ["", "Expecting value", 0],
  ["   ", "Expecting value", 3],
  ["{", "Expecting property name enclosed in double quotes", 1],
  ["{\"a\"", "Expecting ':' delimiter", 4],
  ["{\"a\":", "Expecting value", 5],
  ["{\"a\":1", "Expecting ',' delimiter", 6],
  ["{\"a\":1,", "Expecting property name enclosed in double quotes", 7],
  ["{\"a\":1,}", "Expecting property name enclosed in double quotes", 7],
  ["[1,]", "Expecting value", 3],
  ["[1 2]", "Expecting ',' delimiter", 3],
  ["{\"a\" 1}", "Expecting ':' delimiter", 5],
  ["{1:2}", "Expecting property name enclosed in double quotes", 1],
  ["\"abc", "Unterminated string starting at", 0],
  ["\"a\\x\"", "Invalid \\escape", 2],
  ["\"a\\u12\"", "Invalid \\uXXXX escape", 3],
  ["\"a\\u12zz\"", "Invalid \\uXXXX escape", 3],
  ["\"a\u0001\"", "Invalid control character at", 2],
  ["tru", "Expecting value", 0],
  ["01", "Extra data", 1],
  ["-", "Expecting value", 0],
  ["1.", "Extra data", 1],
  [".5", "Expecting value", 0],
  ["{\"a\":1}x", "Extra data", 7],
  ["[", "Expecting value", 1],
  ["{\"a\":-}", "Expecting value", 5],
  ["1e", "Extra data", 1],
  ["[1,2", "Expecting ',' delimiter", 4],
  ["nul", "Expecting value", 0],
  ["{\"\u00e9\":\"\u00fc\\q\"}", "Invalid \\escape", 7],
  ["\n\n  {\"a\": [1, 2,, 3]}", "Expecting value", 16],
  ["\"\ud83d\ude00\\z\"", "Invalid \\escape", 2],
];

/** [value, repr(value)] (CPython 3.11). */
const FLOATS: Array<[number, string]> = [
  [5000.0, "5000.0"],
  [0.1, "0.1"],
  [1e+16, "1e+16"],
  [1.5e+16, "1.5e+16"],
  [1.2345678901234568e+17, "1.2345678901234568e+17"],
  [1e-05, "1e-05"],
  [0.0001, "0.0001"],
  [2333.3333333333335, "2333.3333333333335"],
  [1e+22, "1e+22"],
  [-2.5, "-2.5"],
  [100.0, "100.0"],
  [12345678901234.5, "12345678901234.5"],
  [0.5, "0.5"],
  [-0, "-0.0"],
  [1e-07, "1e-07"],
  [9999999999999998.0, "9999999999999998.0"],
  [1.7976931348623157e+308, "1.7976931348623157e+308"],
  [5e-324, "5e-324"],
];

describe("json.loads' refusals", () => {
  it.each(REFUSED)("%j: %s at %i", (document, message, position) => {
    let caught: unknown;
    try {
      parsePythonJson(document);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PythonJsonError);
    expect({ message: (caught as PythonJsonError).pythonMessage, position: (caught as PythonJsonError).position }).toEqual({ message, position });
  });
});

describe("what json.loads accepts", () => {
  it("duplicate keys keep the last value; NaN, Infinity, literals; integers stay exact", () => {
    expect(parsePythonJson('{"a":1,"a":2}')).toEqual({ a: new JsonInteger(2n) });
    expect(parsePythonJson("NaN")).toBeNaN();
    expect(parsePythonJson("[-Infinity]")).toEqual([Number.NEGATIVE_INFINITY]);
    expect(parsePythonJson('{"t":true,"f":false,"n":null}')).toEqual({ t: true, f: false, n: null });
    expect(parsePythonJson("123456789012345678901234567890")).toEqual(new JsonInteger(123456789012345678901234567890n));
    expect(parsePythonJson("1.0")).toBe(1);
    expect(parsePythonJson('"\\ud83d\\ude00"')).toBe("\u{1F600}");
  });
});

describe("Python's float repr", () => {
  it.each(FLOATS)("%s is %s", (value, repr) => {
    expect(jsonText(pythonFloat(value))).toBe(repr);
  });

  it("integers of any size are written as bare digits", () => {
    expect(jsonText({ a: rawInteger("115792089237316195423570985008687907853269984665640564039457584007913129639935") })).toBe(
      '{"a":115792089237316195423570985008687907853269984665640564039457584007913129639935}',
    );
    expect(() => rawInteger("1e3")).toThrow();
  });
});

describe("pydantic's lax int for path and query parameters", () => {
  const parse = (raw: string) => validateInts([{ location: "query", name: "n", raw }])[0];

  it.each([
    ["7", 7n], [" 7 ", 7n], ["+7", 7n], ["-7", -7n], ["007", 7n], ["7.0", 7n], ["7.", 7n], ["7.000", 7n],
  ])("%j is %s", (raw, value) => {
    expect(parse(raw)).toBe(value);
  });

  it.each(["7.5", "1e3", "0x10", "", "seven", "7 7", "1_000"])("%j is int_parsing", (raw) => {
    let caught: unknown;
    try {
      parse(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RouteInputError);
    expect(JSON.parse((caught as RouteInputError).response!.body.toString()).detail[0]).toMatchObject({ type: "int_parsing", input: raw });
  });
});
