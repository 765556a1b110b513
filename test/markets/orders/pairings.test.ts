/**
 * Agent pairings (document 3, Agent pairings, Authentication 2 and 3; public notes 2.3) over the real REST shim and
 * gateway: the agentDid rules, signed single-use expiring proofs, the HS256 session token and its claims, rotation,
 * PATCH (policy, pause, resume), revoke. Every refusal leaves the pairing rows unchanged.
 */
import { Wallet, getAddress } from "ethers";
import { decodeJwt, decodeProtectedHeader } from "jose";
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../support/clock.js";
import {
  agentHeaders,
  api,
  bindMachine,
  createOrder,
  expectMarketsError,
  expectOk,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  startMarketsPlatform,
  type MarketsPlatform,
} from "../helpers.js";

describe("agent pairings", () => {
  let p: MarketsPlatform;
  let machine: string;
  const clock = manualClock(Date.parse("2026-11-24T10:00:00.000Z"));

  beforeAll(async () => {
    p = await startMarketsPlatform({}, { clock });
    machine = (await bindMachine(p, p.machine("active", 0))).id;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const pairingRows = () => prismaOf(p).marketAgentPairing.findMany({ where: { machineId: machine }, orderBy: { id: "asc" } });
  const challenge = (body: Record<string, unknown>) => api(p, "POST", `/machines/${machine}/agent-pairings/challenges`, body);

  describe("challenge: agentDid rules", () => {
    const wallet = Wallet.createRandom();
    it("omitted agentDid becomes did:pkh:eip155:1:<checksummed agentAddress> (lowercase address accepted)", async () => {
      const item = expectOk(await challenge({ agentAddress: wallet.address.toLowerCase() }), 201).item;
      expect(item).toMatchObject({ agentAddress: wallet.address, agentDid: `did:pkh:eip155:1:${wallet.address}`, verificationMethod: "eip191" });
      expect(item.message).toContain(item.challengeId);
      expect(item.message).toContain(wallet.address);
    });

    it("a given agentDid with another chain ID and the checksummed address is kept", async () => {
      const did = `did:pkh:eip155:31337:${wallet.address}`;
      expect(expectOk(await challenge({ agentAddress: wallet.address, agentDid: did }), 201).item.agentDid).toBe(did);
    });

    it.each([
      ["lowercase address in the DID", (a: string) => `did:pkh:eip155:1:${a.toLowerCase()}`],
      ["another address", () => `did:pkh:eip155:1:${getAddress("0x" + "ab".repeat(20))}`],
      ["another method", (a: string) => `did:ethr:${a}`],
      ["chain ID 0", (a: string) => `did:pkh:eip155:0:${a}`],
      ["no chain ID", (a: string) => `did:pkh:eip155::${a}`],
      ["solana namespace", (a: string) => `did:pkh:solana:1:${a}`],
    ])("%s: VALIDATION_ERROR, no challenge stored", async (_name, did) => {
      const before = await prismaOf(p).marketPairingChallenge.count();
      expectMarketsError(await challenge({ agentAddress: wallet.address, agentDid: did(wallet.address) }), 400, "VALIDATION_ERROR");
      expect(await prismaOf(p).marketPairingChallenge.count()).toBe(before);
    });

    it.each([["not hex", "0xZZ"], ["bad checksum", wallet.address.slice(0, 2) + wallet.address.slice(2).split("").map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("")], ["number", 5]])(
      "agentAddress %s: VALIDATION_ERROR",
      async (_name, agentAddress) => {
        const before = await prismaOf(p).marketPairingChallenge.count();
        expectMarketsError(await challenge({ agentAddress }), 400, "VALIDATION_ERROR");
        expect(await prismaOf(p).marketPairingChallenge.count()).toBe(before);
      },
    );
  });

  describe("create", () => {
    it("a signed proof pairs: active, verification recorded, token once with the documented claims", async () => {
      const wallet = Wallet.createRandom();
      const policy = { allowedSkillKeys: ["oracle.price-feed"], perTransactionLimit: 1, dailySpendLimit: 5, currency: "USD" };
      const pairing = await pairAgent(p, machine, wallet, policy);
      expect(pairing).toMatchObject({
        machineId: machine,
        status: "active",
        agentAddress: wallet.address,
        agentDid: `did:pkh:eip155:1:${wallet.address}`,
        agentProvider: "anthropic",
        agentRole: "machine-market-buyer",
        hasAuthToken: true,
        verification: { method: "eip191", signerAddress: wallet.address },
      });
      const normalized = { allowedServiceIds: [], allowedSkillKeys: ["oracle.price-feed"], currency: "USD", dailySpendLimit: 5, deniedServiceIds: [], deniedSkillKeys: [], perTransactionLimit: 1 };
      expect(pairing.delegationPolicy).toEqual(normalized);
      const hash = createHash("sha256").update(canonicalize(normalized)!).digest("hex");
      expect(pairing.delegationPolicyHash).toBe(hash);
      const token = pairing.pairingToken as string;
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: "HS256" });
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({
        machineId: machine,
        pairingId: pairing.id,
        sessionId: pairing.sessionId,
        agentAddress: wallet.address,
        agentDid: pairing.agentDid,
        delegationPolicyHash: hash,
        jti: pairing.sessionTokenId,
      });
      expect(typeof claims.iss).toBe("string");
      expect(typeof claims.aud).toBe("string");
      expect(claims.exp! - claims.iat!).toBe(3600);
      expect(pairing.tokenLastFour).toBe(token.slice(-4));
      expect(new Date(pairing.sessionExpiresAt).getTime() - new Date(pairing.sessionIssuedAt).getTime()).toBe(3_600_000);
      // Never shown again, never stored.
      const listed = expectOk(await api(p, "GET", `/machines/${machine}/agent-pairings`)).items.find((x: any) => x.id === pairing.id);
      expect(listed).toBeDefined();
      expect(listed.pairingToken).toBeUndefined();
      expect(JSON.stringify(await pairingRows())).not.toContain(token);
      const events = expectOk(await api(p, "GET", `/audit-events?machineId=${machine}&kind=agent-pairing.created`)).items;
      expect(events.some((e: any) => e.data.pairingId === pairing.id)).toBe(true);
      expect(JSON.stringify(events)).not.toContain(token);
    });

    async function refused(body: Record<string, unknown>, status: number, code: string) {
      const before = await pairingRows();
      expectMarketsError(await api(p, "POST", `/machines/${machine}/agent-pairings`, body), status, code);
      expect(await pairingRows()).toEqual(before);
    }

    it("no agentProof: AGENT_PAIRING_PROOF_REQUIRED (401)", async () => {
      await refused({ agentAddress: Wallet.createRandom().address }, 401, "AGENT_PAIRING_PROOF_REQUIRED");
    });

    it("signed by another key, unknown challenge, another address's challenge: AGENT_PAIRING_PROOF_INVALID", async () => {
      const wallet = Wallet.createRandom();
      const c = expectOk(await challenge({ agentAddress: wallet.address }), 201).item;
      const other = await Wallet.createRandom().signMessage(c.message);
      await refused({ agentAddress: wallet.address, agentProof: { challengeId: c.challengeId, signature: other } }, 401, "AGENT_PAIRING_PROOF_INVALID");
      const good = await wallet.signMessage(c.message);
      await refused({ agentAddress: wallet.address, agentProof: { challengeId: "apc_000000000000000000000000", signature: good } }, 401, "AGENT_PAIRING_PROOF_INVALID");
      await refused({ agentAddress: Wallet.createRandom().address, agentProof: { challengeId: c.challengeId, signature: good } }, 401, "AGENT_PAIRING_PROOF_INVALID");
      // The challenge was not used up by the refusals.
      expectOk(await api(p, "POST", `/machines/${machine}/agent-pairings`, { agentAddress: wallet.address, agentProof: { challengeId: c.challengeId, signature: good } }), 201);
    });

    it("a proof is single-use: the second create with it is AGENT_PAIRING_PROOF_INVALID", async () => {
      const wallet = Wallet.createRandom();
      const c = expectOk(await challenge({ agentAddress: wallet.address }), 201).item;
      const body = { agentAddress: wallet.address, agentProof: { challengeId: c.challengeId, signature: await wallet.signMessage(c.message) } };
      expectOk(await api(p, "POST", `/machines/${machine}/agent-pairings`, body), 201);
      await refused(body, 401, "AGENT_PAIRING_PROOF_INVALID");
    });

    it("after expiresAt: AGENT_PAIRING_PROOF_EXPIRED", async () => {
      const wallet = Wallet.createRandom();
      const c = expectOk(await challenge({ agentAddress: wallet.address }), 201).item;
      const body = { agentAddress: wallet.address, agentProof: { challengeId: c.challengeId, signature: await wallet.signMessage(c.message) } };
      clock.set(Date.parse(c.expiresAt));
      try {
        await refused(body, 401, "AGENT_PAIRING_PROOF_EXPIRED");
      } finally {
        clock.set(Date.parse("2026-11-24T10:00:00.000Z"));
      }
    });

    it("a bad policy: VALIDATION_ERROR", async () => {
      const wallet = Wallet.createRandom();
      await refused({ agentAddress: wallet.address, delegationPolicy: { perTransactionLimit: -1 } }, 400, "VALIDATION_ERROR");
      await refused({ agentAddress: wallet.address, delegationPolicy: { allowedSkillKeys: "x" } }, 400, "VALIDATION_ERROR");
      await refused({ agentAddress: wallet.address, delegationPolicy: { currency: "usd" } }, 400, "VALIDATION_ERROR");
    });
  });

  describe("session token on market writes", () => {
    it("rotation: a fresh proof gives a new token; the old one is AGENT_AUTH_INVALID", async () => {
      const wallet = Wallet.createRandom();
      const pairing = await pairAgent(p, machine, wallet);
      const c = expectOk(await challenge({ agentAddress: wallet.address }), 201).item;
      const rotated = expectOk(
        await api(p, "POST", `/machines/${machine}/agent-pairings/${pairing.id}/sessions`, {
          agentProof: { challengeId: c.challengeId, signature: await wallet.signMessage(c.message) },
        }),
        201,
      ).item;
      expect(rotated.pairingToken).not.toBe(pairing.pairingToken);
      expect(rotated.sessionId).not.toBe(pairing.sessionId);
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), 401, "AGENT_AUTH_INVALID");
      expectOk(await createOrder(p, machine, rotated.pairingToken), 201);
    });

    it("rotation without a proof: AGENT_PAIRING_PROOF_REQUIRED, session unchanged", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom());
      const before = await pairingRows();
      expectMarketsError(await api(p, "POST", `/machines/${machine}/agent-pairings/${pairing.id}/sessions`, {}), 401, "AGENT_PAIRING_PROOF_REQUIRED");
      expect(await pairingRows()).toEqual(before);
    });

    it("no token: AGENT_AUTH_REQUIRED; garbage, a forged signature or a Basic header: AGENT_AUTH_INVALID; no order written", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom());
      const before = await prismaOf(p).marketOrder.count();
      const search = expectOk(await api(p, "POST", "/market/search", { machineId: machine, skillKey: "oracle.price-feed" })).item;
      const body = { machineId: machine, searchId: search.searchId, quoteId: search.quotes[0].id };
      expectMarketsError(await api(p, "POST", "/market/orders", body), 401, "AGENT_AUTH_REQUIRED");
      expectMarketsError(await api(p, "POST", "/market/orders", body, agentHeaders("not-a-token")), 401, "AGENT_AUTH_INVALID");
      const [h, c, s] = (pairing.pairingToken as string).split(".");
      const forged = `${h}.${c}.${s!.slice(0, -2)}${s!.endsWith("AA") ? "BB" : "AA"}`;
      expectMarketsError(await api(p, "POST", "/market/orders", body, agentHeaders(forged)), 401, "AGENT_AUTH_INVALID");
      expectMarketsError(await api(p, "POST", "/market/orders", body, { authorization: `Basic ${pairing.pairingToken}` }), 401, "AGENT_AUTH_INVALID");
      expectMarketsError(
        await api(p, "POST", "/market/orders", body, { ...agentHeaders(pairing.pairingToken), authorization: "Bearer other" }),
        401,
        "AGENT_AUTH_INVALID",
      );
      expect(await prismaOf(p).marketOrder.count()).toBe(before);
      // Authorization: Bearer works as well as the header.
      expectOk(await api(p, "POST", "/market/orders", body, { authorization: `Bearer ${pairing.pairingToken}` }), 201);
    });

    it("past exp: AGENT_AUTH_EXPIRED", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom());
      const search = expectOk(await api(p, "POST", "/market/search", { machineId: machine, skillKey: "oracle.price-feed" })).item;
      clock.set(Date.parse(pairing.sessionExpiresAt));
      try {
        const before = await prismaOf(p).marketOrder.count();
        expectMarketsError(
          await api(p, "POST", "/market/orders", { machineId: machine, searchId: search.searchId, quoteId: search.quotes[0].id }, agentHeaders(pairing.pairingToken)),
          401,
          "AGENT_AUTH_EXPIRED",
        );
        expect(await prismaOf(p).marketOrder.count()).toBe(before);
      } finally {
        clock.set(Date.parse("2026-11-24T10:00:00.000Z"));
      }
    });

    it("PATCH policy: the old token's hash no longer matches (AGENT_AUTH_INVALID) until rotation", async () => {
      const wallet = Wallet.createRandom();
      const pairing = await pairAgent(p, machine, wallet);
      const patched = expectOk(await api(p, "PATCH", `/machines/${machine}/agent-pairings/${pairing.id}`, { delegationPolicy: { perTransactionLimit: 2 } })).item;
      expect(patched.delegationPolicyHash).not.toBe(pairing.delegationPolicyHash);
      expect(patched.pairingToken).toBeUndefined();
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), 401, "AGENT_AUTH_INVALID");
      const c = expectOk(await challenge({ agentAddress: wallet.address }), 201).item;
      const rotated = expectOk(
        await api(p, "POST", `/machines/${machine}/agent-pairings/${pairing.id}/sessions`, {
          agentProof: { challengeId: c.challengeId, signature: await wallet.signMessage(c.message) },
        }),
        201,
      ).item;
      expect(decodeJwt(rotated.pairingToken).delegationPolicyHash).toBe(patched.delegationPolicyHash);
      expectOk(await createOrder(p, machine, rotated.pairingToken), 201);
    });

    it("pause: AGENT_PAIRING_INACTIVE (409); resume: the same token works again", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom());
      expect(expectOk(await api(p, "PATCH", `/machines/${machine}/agent-pairings/${pairing.id}`, { status: "paused" })).item.status).toBe("paused");
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), 409, "AGENT_PAIRING_INACTIVE");
      expect(expectOk(await api(p, "PATCH", `/machines/${machine}/agent-pairings/${pairing.id}`, { status: "active" })).item.status).toBe("active");
      expectOk(await createOrder(p, machine, pairing.pairingToken), 201);
    });

    it("PATCH with a bad status or nothing to change: VALIDATION_ERROR, unchanged", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom());
      const before = await pairingRows();
      expectMarketsError(await api(p, "PATCH", `/machines/${machine}/agent-pairings/${pairing.id}`, { status: "revoked" }), 400, "VALIDATION_ERROR");
      expectMarketsError(await api(p, "PATCH", `/machines/${machine}/agent-pairings/${pairing.id}`, {}), 400, "VALIDATION_ERROR");
      expect(await pairingRows()).toEqual(before);
    });

    it("a token of another machine's pairing: AGENT_PAIRING_REQUIRED (409)", async () => {
      const other = (await bindMachine(p, p.machine("active", 1))).id;
      const pairing = await pairAgent(p, other, Wallet.createRandom());
      const before = await prismaOf(p).marketOrder.count();
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), 409, "AGENT_PAIRING_REQUIRED");
      expect(await prismaOf(p).marketOrder.count()).toBe(before);
    });
  });

  describe("revoke", () => {
    it("with open orders: 409 OPEN_MARKET_ORDERS with their orderIds, still active; without: 204, revoked, token refused", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom());
      const order = expectOk(await createOrder(p, machine, pairing.pairingToken), 201).item;
      const refused = await api(p, "DELETE", `/machines/${machine}/agent-pairings/${pairing.id}`);
      expect(refused.status).toBe(409);
      expect(refused.json()).toEqual({ error: { code: "OPEN_MARKET_ORDERS", message: "The pairing has open market orders.", details: { orderIds: [order.id] } } });
      expect((await prismaOf(p).marketAgentPairing.findUniqueOrThrow({ where: { id: pairing.id } })).status).toBe("active");
      expectOk(await api(p, "POST", `/market/orders/${order.id}/cancel`, undefined, agentHeaders(pairing.pairingToken)));
      const revoked = await api(p, "DELETE", `/machines/${machine}/agent-pairings/${pairing.id}`);
      expect(revoked.status).toBe(204);
      const row = await prismaOf(p).marketAgentPairing.findUniqueOrThrow({ where: { id: pairing.id } });
      expect(row.status).toBe("revoked");
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), 409, "AGENT_PAIRING_INACTIVE");
      expectMarketsError(await api(p, "PATCH", `/machines/${machine}/agent-pairings/${pairing.id}`, { status: "active" }), 409, "AGENT_PAIRING_INACTIVE");
    });

    it("unknown pairing: NOT_FOUND", async () => {
      expectMarketsError(await api(p, "DELETE", `/machines/${machine}/agent-pairings/pair_aaaaaaaaaaaaaaaa`), 404, "NOT_FOUND");
    });
  });
});
