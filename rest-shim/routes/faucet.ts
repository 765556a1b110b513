/**
 * Document 2's faucet and two-factor routes (`POST /2fa/setup`, `/2fa/confirm`, `/faucet/fund`) and our owner-signed
 * `POST /2fa/reset` on the 1.0 listener, in the Gas Station's envelope `{"code","message"}` (rest-shim/errors/faucet.ts,
 * docs/faucet.md). The shim checks the body's shape (a JSON object whose named members are strings); the subgraph
 * checks every value.
 */
import { FAUCET_ERRORS, FAUCET_RESET_ERRORS } from "../errors/faucet.js";
import type { ShimOperation } from "../executor.js";
import type { Rejection } from "../http-rules.js";
import { RouteInputError, utf8Text } from "../json-body.js";
import { AREAS, fieldOf, type RouteDefinition } from "../route-definition.js";
import { body } from "./ratings-json.js";

const op = (name: string, document: string): ShimOperation => ({ name, document });

export const FAUCET_OPERATIONS = {
  setupTwoFactor: op(
    "SetupTwoFactor",
    `mutation SetupTwoFactor($ownerAddress: String!, $format: String!) {
  setupTwoFactor(ownerAddress: $ownerAddress, format: $format) { ownerAddress otpauthUri qrImageUrl }
}`,
  ),
  resetTwoFactor: op(
    "ResetTwoFactor",
    `mutation ResetTwoFactor($ownerAddress: String!, $issuedAt: String!, $signature: String!, $format: String!) {
  resetTwoFactor(ownerAddress: $ownerAddress, issuedAt: $issuedAt, signature: $signature, format: $format) { ownerAddress otpauthUri qrImageUrl }
}`,
  ),
  confirmTwoFactor: op(
    "ConfirmTwoFactor",
    `mutation ConfirmTwoFactor($ownerAddress: String!, $twoFactorCode: String!) {
  confirmTwoFactor(ownerAddress: $ownerAddress, twoFactorCode: $twoFactorCode) { ownerAddress twoFactorActive }
}`,
  ),
  fundWallet: op(
    "FundWallet",
    `mutation FundWallet($input: FundWalletInput!) { fundWallet(input: $input) { status requestId txHash fundedAmount } }`,
  ),
} as const;

const BODY_LIMIT = 2048;

const REJECTIONS = {
  unauthorized: "INTERNAL_ERROR",
  badHeaders: "INVALID_PAYLOAD",
  notAcceptable: "INTERNAL_ERROR",
  tooLarge: "INVALID_PAYLOAD",
} as const satisfies Record<Rejection, string>;

/** A JSON object; `required` members must be strings, `optional` ones strings or absent (null counts as absent). */
function members(raw: Buffer, required: string[], optional: string[] = []): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(utf8Text(raw, "INVALID_PAYLOAD"));
  } catch {
    throw new RouteInputError("INVALID_PAYLOAD");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new RouteInputError("INVALID_PAYLOAD");
  const record = value as Record<string, unknown>;
  const result: Record<string, string> = {};
  for (const name of [...required, ...optional]) {
    const member = record[name];
    if (member === undefined || member === null) {
      if (required.includes(name)) throw new RouteInputError("INVALID_PAYLOAD");
      continue;
    }
    if (typeof member !== "string") throw new RouteInputError("INVALID_PAYLOAD");
    result[name] = member;
  }
  return result;
}

const base = {
  method: "POST",
  area: AREAS.ratings,
  errors: FAUCET_ERRORS,
  rules: { jsonBody: { limit: BODY_LIMIT } },
  rejections: REJECTIONS,
  rateLimits: ["ratingsPerIp"],
  unavailableCode: "SERVICE_UNAVAILABLE",
} as const;

/** Setup's and reset's 200: the new enrolment. */
const enrolmentAnswer = (e: { ownerAddress: string; otpauthUri: string; qrImageUrl: string }) => ({
  status: 200,
  body: body({ status: "success", data: { ownerAddress: e.ownerAddress, otpauthUri: e.otpauthUri, qrImageUrl: e.qrImageUrl } }),
});

export const FAUCET_ROUTES: readonly RouteDefinition[] = [
  {
    ...base,
    path: "/2fa/setup",
    operation: FAUCET_OPERATIONS.setupTwoFactor,
    variables: ({ body: raw }) => {
      const { ownerAddress, format } = members(raw, ["ownerAddress"], ["format"]);
      return { ownerAddress, format: format ?? "png" };
    },
    respond: (data) => enrolmentAnswer(fieldOf(data, "setupTwoFactor")),
  },
  {
    ...base,
    path: "/2fa/reset",
    errors: FAUCET_RESET_ERRORS,
    operation: FAUCET_OPERATIONS.resetTwoFactor,
    variables: ({ body: raw }) => {
      const { ownerAddress, issuedAt, signature, format } = members(raw, ["ownerAddress", "issuedAt", "signature"], ["format"]);
      return { ownerAddress, issuedAt, signature, format: format ?? "png" };
    },
    respond: (data) => enrolmentAnswer(fieldOf(data, "resetTwoFactor")),
  },
  {
    ...base,
    path: "/2fa/confirm",
    operation: FAUCET_OPERATIONS.confirmTwoFactor,
    variables: ({ body: raw }) => members(raw, ["ownerAddress", "twoFactorCode"]),
    respond: (data) => {
      const c = fieldOf(data, "confirmTwoFactor");
      return { status: 200, body: body({ status: "success", data: { ownerAddress: c.ownerAddress, twoFactorActive: c.twoFactorActive } }) };
    },
  },
  {
    ...base,
    path: "/faucet/fund",
    operation: FAUCET_OPERATIONS.fundWallet,
    variables: ({ body: raw }) => ({
      input: members(raw, ["ownerAddress", "targetWalletAddress", "chainId", "twoFactorCode"], ["requestId"]),
    }),
    respond: (data) => {
      const f = fieldOf(data, "fundWallet");
      const outcome =
        f.status === "SKIPPED"
          ? { status: "skipped", data: { requestId: f.requestId } }
          : { status: "success", data: { requestId: f.requestId, txHash: f.txHash, fundedAmount: f.fundedAmount } };
      return { status: 200, body: body(outcome) };
    },
  },
];
