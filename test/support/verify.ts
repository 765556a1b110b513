/**
 * Document 1 (chip verification) in tests: the error envelope and receipt checks every verify suite makes, and the
 * stored state read back through the platform's own database handle, so "nothing stored" is checked on PGlite (which
 * belongs to the platform's process) as well as on PostgreSQL.
 */
import { createHash } from "node:crypto";
import { expect } from "vitest";
import type { TestPlatform } from "./platform.js";
import { ONBOARDING_TOKEN, type HttpAnswer, type SimpleResponse } from "./http.js";

export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The verify envelope, byte for byte. */
export const verifyBody = (code: string, message: string) => JSON.stringify({ detail: { code, message } });

type AnyAnswer = HttpAnswer | SimpleResponse;
const textOf = (answer: AnyAnswer) => ("text" in answer ? answer.text : answer.body);
const headerOf = (answer: AnyAnswer, name: string): string | undefined => {
  if (answer.headers instanceof Headers) return answer.headers.get(name) ?? undefined;
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
};

/** Headers every verify answer carries. */
export function expectVerifyHeaders(answer: AnyAnswer) {
  expect(headerOf(answer, "content-type")).toBe("application/json; charset=utf-8");
  expect(headerOf(answer, "cache-control")).toBe("no-store");
}

/** A 201 with the verify headers: answers its JSON body. */
export function expectCreated(answer: HttpAnswer) {
  expect(answer.status, answer.text).toBe(201);
  expectVerifyHeaders(answer);
  return answer.json();
}

/**
 * The documented envelope `{"detail":{"code","message"}}` with `code` (and, when given, exactly `message`), the
 * verify headers, and no Retry-After unless the code carries one. Works for `send` and `call` answers.
 */
export function expectVerifyError(answer: AnyAnswer, status: number, code: string, message?: string) {
  const text = textOf(answer);
  expect({ status: answer.status, body: text }).toEqual({ status, body: expect.stringContaining(`"code":"${code}"`) });
  expectVerifyHeaders(answer);
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(["detail"]);
  expect(Object.keys(body.detail)).toEqual(["code", "message"]);
  expect(body.detail.code).toBe(code);
  if (message !== undefined) expect(text).toBe(verifyBody(code, message));
  if (code !== "SUBMISSION_IN_PROGRESS") expect(headerOf(answer, "retry-after")).toBeUndefined();
  return body;
}

/** A 202 with `{"receiptId","status":"accepted"}`; returns the receipt ID (and checks it when given). */
export function expectReceipt(answer: HttpAnswer, receiptId?: string): string {
  expect(answer.status, answer.text).toBe(202);
  expectVerifyHeaders(answer);
  expect(answer.headers["retry-after"]).toBeUndefined();
  const body = answer.json();
  expect(Object.keys(body)).toEqual(["receiptId", "status"]);
  expect(body.status).toBe("accepted");
  expect(body.receiptId).toMatch(UUID_SHAPE);
  if (receiptId !== undefined) expect(body.receiptId).toBe(receiptId);
  return body.receiptId;
}

/** Errors never echo the token, the nonce, the evidence or an identifier. */
export function expectNoEcho(answer: AnyAnswer, ...secrets: string[]) {
  for (const secret of [ONBOARDING_TOKEN, ...secrets]) expect(textOf(answer)).not.toContain(secret);
}

// ---------------------------------------------------------------------------------------------------------------
// Stored state, read through the platform's own database handle (PGlite and PostgreSQL alike)

/** How a challenge is stored: SHA-256 of the nonce's 32 bytes, lowercase hex without 0x (computed independently). */
export function nonceHash(nonce: string): string {
  return createHash("sha256").update(Buffer.from(nonce.slice(2), "hex")).digest("hex");
}

/** How a submission is stored: SHA-256 of the evidence file's bytes, lowercase hex without 0x. */
export function submissionHash(evidence: string): string {
  return createHash("sha256").update(evidence, "utf8").digest("hex");
}

function prismaOf(p: TestPlatform) {
  const database = p.platform.database;
  if (!database) throw new Error("this platform role opened no database");
  return database.prisma;
}

/** Number of challenge rows, on either database kind. */
export async function challengeRowCount(p: TestPlatform): Promise<number> {
  return prismaOf(p).verifyChallenge.count();
}

/** The stored challenge for a nonce (undefined when none was stored). */
export async function challengeRow(p: TestPlatform, nonce: string) {
  const row = await prismaOf(p).verifyChallenge.findUnique({ where: { nonceHash: nonceHash(nonce) } });
  return row ?? undefined;
}

/** Every evidence row stored for a challenge (the product allows at most one; the tests count, not trust that). */
export async function evidenceRowsFor(p: TestPlatform, nonce: string) {
  const challenge = await challengeRow(p, nonce);
  if (!challenge) return [];
  return prismaOf(p).verifyEvidence.findMany({ where: { challengeId: challenge.id } });
}
