/**
 * The verify subgraph's statuses are UPPER_CASE enums and its instants the `DateTime` scalar in the supergraph the
 * gateway serves (read by introspection, on in development), while the REST route of the same record keeps
 * document 1's lowercase spellings. Real gateway, real chain, real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get } from "../support/http.js";
import { graphql, PLATFORM_START_TIMEOUT_MS, startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";

let p: IsolatedPlatform;
beforeAll(async () => {
  p = await startIsolatedPlatform({ NODE_ENV: "development" });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

describe("typed verify fields through the gateway", () => {
  it("statuses are enums and instants DateTime in the supergraph; REST keeps document 1's spellings", async () => {
    const read = await graphql(p.graphql, `{ machineVerification(machineId: "1") { verification { kyb { status } chip { status } } } }`);
    expect(read.status).toBe(200);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.machineVerification.verification.chip.status).toBe("VERIFIED");
    const rest = await get(`${p.http}/v1/verify/machines/1`);
    expect(rest.status).toBe(200);
    expect(rest.json().verification.chip.status).toBe("verified");
    // Both topics read the same chain state over either interface, only the spelling differs.
    expect(rest.json().verification.kyb.status).toBe(read.body.data.machineVerification.verification.kyb.status.toLowerCase());
    expect(rest.text).toContain('"chip":{"status":"verified"}');

    const TYPES = `{
      status: __type(name: "VerificationStatus") { kind enumValues { name } }
      record: __type(name: "ChipEvidenceRecord") { fields { name type { kind name ofType { kind name } } } }
      receipt: __type(name: "IntakeReceipt") { fields { name type { ofType { kind name } } } }
    }`;
    const { status, body } = await graphql(p.graphql, TYPES);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.status).toEqual({
      kind: "ENUM",
      enumValues: [{ name: "VERIFIED" }, { name: "UNVERIFIED" }, { name: "EXPIRED" }, { name: "REVOKED" }],
    });
    const field = (name: string) => body.data.record.fields.find((f: { name: string }) => f.name === name).type;
    expect(field("acceptedAt")).toEqual({ kind: "NON_NULL", name: null, ofType: { kind: "SCALAR", name: "DateTime" } });
    expect(field("attestedAt")).toEqual({ kind: "SCALAR", name: "DateTime", ofType: null });
    const receiptStatus = body.data.receipt.fields.find((f: { name: string }) => f.name === "status").type;
    expect(receiptStatus).toEqual({ ofType: { kind: "ENUM", name: "IntakeStatus" } });
  });

});
