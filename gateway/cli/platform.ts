/**
 * The CLI's one way to the platform's markets API: the typed client of `@machine-economy/client`
 * (clients/typescript/src/stream/transport.ts), so the CLI is the package's first user and builds no HTTP request
 * of its own.
 */
export { ApiError, getBytes, marketsClient, putBytes, send, type Answer, type MarketsClient, type SendOptions } from "../../clients/typescript/src/stream/transport.js";
