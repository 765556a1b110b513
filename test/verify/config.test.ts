/**
 * Document 1's settings that the platform refuses at start: the challenge lifetime must be 1 to 300 seconds.
 * (test/e2e/config-refused.test.ts shows the server process refusing to start with the same message.)
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../subgraphs/shared/config.js";

const load = (ttl: string) => () => loadConfig({ VERIFY_CHALLENGE_TTL_SECONDS: ttl });

describe("VERIFY_CHALLENGE_TTL_SECONDS", () => {
  it.each(["0", "301", "-1", "100000"])("refuses %s", (ttl) => {
    expect(load(ttl)).toThrow("VERIFY_CHALLENGE_TTL_SECONDS must be 1..300");
  });

  it.each(["abc", "1.5", "30s"])("refuses %j, which is not a whole number", (ttl) => {
    expect(load(ttl)).toThrow("VERIFY_CHALLENGE_TTL_SECONDS must be an integer");
  });

  it.each([
    ["1", 1],
    ["300", 300],
  ])("accepts %s", (ttl, seconds) => {
    expect(loadConfig({ VERIFY_CHALLENGE_TTL_SECONDS: ttl }).verify.challengeTtlSeconds).toBe(seconds);
  });

  it("defaults to 300, unset or empty", () => {
    expect(loadConfig({}).verify.challengeTtlSeconds).toBe(300);
    expect(loadConfig({ VERIFY_CHALLENGE_TTL_SECONDS: "" }).verify.challengeTtlSeconds).toBe(300);
  });
});
