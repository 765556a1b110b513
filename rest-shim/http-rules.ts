/**
 * The HTTP rules a route checks before its body is read, compiled once per route into one function.
 *
 * Order (after routing has settled the path and the method): credentials, then headers (Content-Encoding,
 * Content-Type, Accept), then the declared size. The first failing rule answers; the result names the kind of
 * rejection and the route's table turns it into its family's code.
 */
import type { IncomingMessage } from "node:http";
import { acceptsJson, isJsonContentType } from "./media-types.js";
import { countHeader, type OnboardingTokenCheck } from "./onboarding-auth.js";

export interface RequestRules {
  /** Exactly one `Authorization: Bearer <onboarding token>` (document 1 POST routes). */
  readonly onboardingToken?: boolean;
  /** The answer is JSON only: an `Accept` header must admit `application/json`. */
  readonly acceptJson?: boolean;
  /** A JSON body: one JSON Content-Type, no Content-Encoding, at most `limit` bytes. */
  readonly jsonBody?: { readonly limit: number };
  /** A raw body (stream chunk uploads): one `application/octet-stream` Content-Type, no Content-Encoding, at most `limit` bytes declared. */
  readonly octetBody?: { readonly limit: number };
}

export function hasRequestRules(rules: RequestRules): boolean {
  return rules.onboardingToken === true || rules.acceptJson === true || rules.jsonBody !== undefined || rules.octetBody !== undefined;
}

export type Rejection = "unauthorized" | "badHeaders" | "notAcceptable" | "tooLarge";

/** Returns the first broken rule, or undefined when the request may proceed. */
export type RequestCheck = (request: IncomingMessage) => Rejection | undefined;

export function compileRequestCheck(rules: RequestRules, onboardingToken: OnboardingTokenCheck): RequestCheck {
  const needsToken = rules.onboardingToken === true;
  const needsJsonAccept = rules.acceptJson === true;
  const bodyLimit = rules.jsonBody?.limit;
  const octetLimit = rules.octetBody?.limit;
  return (request) => {
    if (needsToken && !onboardingToken(request)) return "unauthorized";
    const headers = request.headers;
    if (bodyLimit !== undefined) {
      if (headers["content-encoding"] !== undefined) return "badHeaders";
      // Node keeps the first of repeated Content-Type headers; a request that sends two is ambiguous.
      if (!isJsonContentType(headers["content-type"]) || countHeader(request.rawHeaders, "content-type") !== 1) {
        return "badHeaders";
      }
    }
    if (octetLimit !== undefined) {
      const type = headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
      if (headers["content-encoding"] !== undefined || type !== "application/octet-stream" || countHeader(request.rawHeaders, "content-type") !== 1) {
        return "badHeaders";
      }
      if (Number(headers["content-length"] ?? 0) > octetLimit) return "tooLarge";
    }
    if (needsJsonAccept && !acceptsJson(headers.accept)) return "notAcceptable";
    // A chunked body has no length yet; the body reader counts it (see body.ts).
    if (bodyLimit !== undefined && Number(headers["content-length"] ?? 0) > bodyLimit) return "tooLarge";
    return undefined;
  };
}

/** True when the client announced a body that nothing has read: answering early must then close the connection. */
export function announcesBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined;
}
