/**
 * The onboarding token check of the two verify POST routes, made before the body is read.
 *
 * Token syntax and the constant-time comparison are `BearerTokens`, the rule the verify subgraph applies too, so
 * REST and GraphQL callers get the same answer. What only the shim can see is the raw header list: Node keeps only
 * the first of repeated `Authorization` headers in `req.headers`, so "exactly one header" is counted on
 * `rawHeaders`.
 */
import type { IncomingMessage } from "node:http";
import { BearerTokens } from "../subgraphs/shared/bearer.js";

export type OnboardingTokenCheck = (request: IncomingMessage) => boolean;

export function createOnboardingTokenCheck(configuredTokens: readonly string[]): OnboardingTokenCheck {
  const tokens = new BearerTokens(configuredTokens);
  return (request) =>
    countHeader(request.rawHeaders, "authorization") === 1 && tokens.accepts(request.headers.authorization);
}

/** How many times a header (lower-case name) appears in the request, before Node folds or drops repeats. */
export function countHeader(rawHeaders: readonly string[], lowerCaseName: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) count++;
  }
  return count;
}
