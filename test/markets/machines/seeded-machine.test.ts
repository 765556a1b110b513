/**
 * A machine record seeded by the test support (seedBoundMachine) reads and writes through the REST shim like one
 * bound with a signed challenge: its stored identity proof carries every field the MachineIdentityProof type
 * declares non-null, so PATCH and GET /machines/:id answer the record rather than a serialisation error (500).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../../support/platform.js";
import { PLATFORM_START_TIMEOUT_MS, startMarketsPlatform } from "../helpers.js";
import { marketsCall } from "../../support/markets.js";
import { seedBoundMachine } from "../../support/machine-sessions.js";

let p: TestPlatform;
const call = (method: string, path: string, body?: unknown) => marketsCall(p.markets, method, path, body);

beforeAll(async () => {
  p = await startMarketsPlatform();
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

describe("a seeded bound machine", () => {
  it("PATCH /machines/:id renames it (200), the row and GET agree", async () => {
    const { id, identity } = await seedBoundMachine(p);
    const patched = await call("PATCH", `/machines/${id}`, { displayName: "renamed" });
    expect(patched.status).toBe(200);
    expect(patched.body.item).toMatchObject({ id, displayName: "renamed", status: "active", identityRef: identity.did });
    expect(patched.body.item.identityProof).toMatchObject({
      method: "eip191",
      identityRef: identity.did,
      signerAddress: identity.controllerAddress,
      controllerAddresses: [identity.controllerAddress],
    });
    const row = await p.platform.database!.prisma.marketMachine.findUniqueOrThrow({ where: { id } });
    expect(row.displayName).toBe("renamed");
    expect(row.identityVerified).toBe(true);
    const read = await call("GET", `/machines/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.item).toEqual(patched.body.item);
  });

});
