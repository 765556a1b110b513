import { describe, expect, it } from "vitest";
import { InvalidJsonError, parseCanonicalJson, parseJsonStrict } from "../../../subgraphs/shared/json/strict.js";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p, "utf8")] : p)));

describe("parseCanonicalJson", () => {
  it("returns the value of canonical JSON, from bytes or text", () => {
    const text = '{"a":"x","b":{"c":[1,true,null,"\\u001f"]},"d":-1.5}';
    expect(parseCanonicalJson(text)).toEqual({ a: "x", b: { c: [1, true, null, "\u001f"] }, d: -1.5 });
    expect(parseCanonicalJson(bytes(text))).toEqual(parseCanonicalJson(text));
  });

  it("keeps a member named __proto__ as ordinary data", () => {
    const value = parseCanonicalJson('{"__proto__":"x"}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  const rejected: [string, Uint8Array | string][] = [
    ["invalid UTF-8 byte", bytes('{"a":"', [0xff], '"}')],
    ["overlong UTF-8", bytes('{"a":"', [0xc0, 0xaf], '"}')],
    ["UTF-8 encoded surrogate", bytes('{"a":"', [0xed, 0xa0, 0x80], '"}')],
    ["truncated UTF-8 sequence", bytes('{"a":"', [0xe2, 0x82], '"}')],
    ["byte order mark", bytes([0xef, 0xbb, 0xbf], '{"a":"x"}')],
    ["byte order mark in text", '\ufeff{"a":"x"}'],
    ["lone surrogate in text input", '{"a":"\ud800"}'],
    ["escaped lone surrogate", '{"a":"\\ud800"}'],
    ["empty body", ""],
    ["not JSON", "hello"],
    ["unterminated object", '{"a":"x"'],
    ["trailing comma", '{"a":"x",}'],
    ["single quotes", "{'a':'x'}"],
    ["comment", '{"a":"x"/**/}'],
    ["NaN", '{"a":NaN}'],
    ["raw control character", '{"a":"x\ty"}'],
    ["bad escape", '{"a":"\\x41"}'],
    ["duplicate key at root", '{"a":"x","a":"x"}'],
    ["duplicate key with other value", '{"a":"x","a":"y"}'],
    ["duplicate key nested", '{"a":{"b":"x","b":"x"}}'],
    ["duplicate key spelled with an escape", '{"a":"x","\\u0061":"x"}'],
    ["pretty printed", '{\n  "a": "x"\n}'],
    ["space after colon", '{"a": "x"}'],
    ["leading whitespace", ' {"a":"x"}'],
    ["trailing newline", '{"a":"x"}\n'],
    ["trailing CRLF", '{"a":"x"}\r\n'],
    ["reordered keys", '{"b":"x","a":"x"}'],
    ["needless escape of a letter", '{"a":"\\u0078"}'],
    ["needless escape of a slash", '{"a":"\\/"}'],
    ["uppercase escape where one is needed", '{"a":"\\u001F"}'],
    ["number 1.0", '{"a":1.0}'],
    ["number 1e2", '{"a":1e2}'],
    ["number 1E2", '{"a":1E2}'],
    ["number -0", '{"a":-0}'],
    ["leading zero", '{"a":01}'],
    ["number beyond double range", '{"a":1e400}'],
    ["integer that loses precision", '{"a":12345678901234567890}'],
    ["trailing characters", '{"a":"x"}x'],
    ["two documents", '{"a":"x"}{"a":"x"}'],
    ["nesting deeper than 32", "[".repeat(40) + "]".repeat(40)],
  ];
  it.each(rejected)("rejects %s", (_label, input) => {
    expect(() => parseCanonicalJson(input)).toThrow(InvalidJsonError);
  });

  it("survives hostile nesting depth without a stack overflow", () => {
    expect(() => parseCanonicalJson("[".repeat(16_000))).toThrow(InvalidJsonError);
    expect(() => parseCanonicalJson('{"a":'.repeat(4000))).toThrow(InvalidJsonError);
  });
});

describe("parseJsonStrict", () => {
  it("accepts insignificant whitespace and any member order", () => {
    expect(parseJsonStrict(' {\n "machineId" : "42" }\n')).toEqual({ machineId: "42" });
    expect(parseJsonStrict('{"b":1,"a":2}')).toEqual({ b: 1, a: 2 });
  });

  it.each([
    ["duplicate keys", '{"machineId":"1","machineId":"2"}'],
    ["duplicate keys after unescaping", '{"machineId":"1","\\u006dachineId":"2"}'],
    ["nested duplicate keys", '{"a":[{"b":1,"b":1}]}'],
    ["a BOM", '\ufeff{"machineId":"1"}'],
    ["trailing garbage", '{"machineId":"1"} x'],
    ["an empty body", ""],
    ["a truncated body", '{"machineId":'],
    // Text PostgreSQL cannot store, however spelled, in a value or a member name at any depth.
    ["an escaped NUL in a value", '{"label":"a\\u0000b"}'],
    ["an escaped NUL in a member name", '{"data":{"k\\u0000":1}}'],
    ["an escaped NUL in a list", '{"a":[["\\u0000"]]}'],
    ["a raw NUL", '{"label":"a\u0000b"}'],
    ["an escaped lone high surrogate", '{"label":"\\ud800"}'],
    ["an escaped lone low surrogate in a member name", '{"\\udc00":1}'],
    ["a reversed surrogate pair", '{"label":"\\ude00\\ud83d"}'],
    ["a raw lone surrogate in text input", '{"label":"\ud800"}'],
  ])("rejects %s", (_label, text) => {
    expect(() => parseJsonStrict(text)).toThrow(InvalidJsonError);
  });

  it("accepts a surrogate pair, escaped or raw, and other escaped control characters", () => {
    expect(parseJsonStrict('{"a":"\\ud83d\\ude80","b":"\ud83d\ude80","c":"\\u0001\\u001f"}')).toEqual({ a: "\u{1f680}", b: "\u{1f680}", c: "\u0001\u001f" });
  });
});
