/**
 * What the platform's refusals become in the client: an `ApiError` carrying the error envelope's code, the HTTP
 * status and the whole envelope (`details` where the code has them), and a `FlowError` for refusals a flow makes
 * itself before anything is sent or paid (a compatibility signal that does not match, a listing that fails its
 * checks, a chunk whose hash is wrong).
 */

/** The error envelopes of the three listeners: markets `{ error: { code, message, details } }`, verify and ratings `{ error, message }` or `{ detail }`. */
export type ErrorEnvelope = Record<string, unknown>;

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    /** The envelope's code (markets `error.code`, verify `error`, ratings `error`); `HTTP_<status>` when it names none. */
    readonly code: string,
    readonly status: number,
    readonly envelope: ErrorEnvelope | null,
    readonly method: string,
    readonly url: string,
  ) {
    super(`${method} ${url}: ${status} ${code}${messageOf(envelope) ? ` (${messageOf(envelope)})` : ""}`);
  }

  /** The envelope's `details` (markets), if any. */
  get details(): unknown {
    const error = this.envelope?.error;
    return error && typeof error === "object" ? (error as { details?: unknown }).details : undefined;
  }
}

/** A refusal of the client itself, before a request or payment it would otherwise make. */
export class FlowError extends Error {
  override readonly name = "FlowError";
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * A step of a flow that could not be completed, worded for a person (the stream buyer's steps: a listing refused
 * before payment, a chunk refused before decryption, a refusal of the markets API naming its code). The CLI's own
 * CliError extends it, so the CLI prints these as its own (exit 1); buyStream turns them into FlowErrors.
 */
export class StepError extends Error {}

function messageOf(envelope: ErrorEnvelope | null): string | undefined {
  const error = envelope?.error;
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
  return typeof envelope?.message === "string" ? envelope.message : undefined;
}

/** The code an envelope names: markets `{ error: { code } }`, verify/ratings `{ error: "CODE" }`, FastAPI `{ detail }`. */
export function codeOf(envelope: ErrorEnvelope | null, status: number): string {
  const error = envelope?.error;
  if (error && typeof error === "object" && typeof (error as { code?: unknown }).code === "string") return (error as { code: string }).code;
  if (typeof error === "string") return error;
  if (typeof envelope?.code === "string") return envelope.code;
  return `HTTP_${status}`;
}
