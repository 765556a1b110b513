import { describe, expect, it } from "vitest";
import { acceptsJson, isJsonContentType } from "../../rest-shim/media-types.js";

describe("isJsonContentType", () => {
  it.each(["application/json", "application/json; charset=utf-8", "APPLICATION/JSON;CHARSET=UTF-8", 'application/json; charset="utf-8"', "application/json \t"])(
    "accepts %j",
    (value) => expect(isJsonContentType(value)).toBe(true),
  );
  it.each([undefined, "", "application/json; charset=utf-16", "application/json; q=1", "application/jsonx", "text/json", "application/json;", "application/json, text/plain"])(
    "refuses %j",
    (value) => expect(isJsonContentType(value)).toBe(false),
  );
});

describe("acceptsJson", () => {
  it.each([undefined, "", "*/*", "application/json", "application/*", "APPLICATION/JSON", "text/html, */*;q=0.1", "application/json;q=0.001", "application/*;q=1.000", "text/html;q=0.9,application/json;level=1"])(
    "accepts %j",
    (value) => expect(acceptsJson(value)).toBe(true),
  );
  it.each(["text/html", "application/json;q=0", "*/*;q=0", "application/json;q=0.000, */*", "application/*;q=0, */*;q=1", "application/json;q=1.5", "application/json;q=", "application/xml", "text/*"])(
    "refuses %j",
    (value) => expect(acceptsJson(value)).toBe(false),
  );
  it("the most specific range decides, whatever the order", () => {
    expect(acceptsJson("*/*;q=0, application/json")).toBe(true);
    expect(acceptsJson("application/json;q=0.5, application/*;q=0")).toBe(true);
  });
});
