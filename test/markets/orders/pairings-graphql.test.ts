/**
 * Pairings, orders and payments on GraphQL (the gateway), with the pairing switch off (AGENT_PAIRING_VERIFICATION=
 * off): a pairing without a proof records no verification and its token works; the federated `Machine` entity shows
 * the machine's pairings and open orders; GraphQL callers get the same codes as REST.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { agentHeaders, api, bindMachine, createOrder, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";
import { sessionOf } from "../../support/machine-sessions.js";

describe("pairings and orders on GraphQL, pairing verification off", () => {
  let p: MarketsPlatform;
  let machine: { id: string; onChain: string };

  beforeAll(async () => {
    p = await startMarketsPlatform({ AGENT_PAIRING_VERIFICATION: "off" });
    const demo = p.machine("active", 0);
    machine = { id: (await bindMachine(p, demo)).id, onChain: demo.machineId };
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const create = `mutation ($machineId: String!, $input: CreateAgentPairingInput!, $s: String) {
    createAgentPairing(machineId: $machineId, input: $input, machineSession: $s) { id status verification { method } pairingToken agentDid delegationPolicy { perTransactionLimit } }
  }`;

  it("no proof needed: the pairing records no verification, and its token orders", async () => {
    const wallet = Wallet.createRandom();
    const { body } = await graphql(p.graphql, create, { machineId: machine.id, s: sessionOf(machine.id), input: { agentAddress: wallet.address, delegationPolicy: { perTransactionLimit: 5 } } });
    const pairing = body.data.createAgentPairing;
    expect(pairing).toMatchObject({ status: "ACTIVE", verification: null, agentDid: `did:pkh:eip155:1:${wallet.address}`, delegationPolicy: { perTransactionLimit: 5 } });
    const order = expectOk(await createOrder(p, machine.id, pairing.pairingToken), 201).item;
    // A proof sent anyway is still checked.
    const bad = await graphql(p.graphql, create, {
      machineId: machine.id,
      s: sessionOf(machine.id),
      input: { agentAddress: wallet.address, agentProof: { challengeId: "apc_000000000000000000000000", signature: "0x00" } },
    });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("AGENT_PAIRING_PROOF_INVALID");
    expect(await prismaOf(p).marketAgentPairing.count({ where: { agentAddress: wallet.address } })).toBe(1);

    const nested = await graphql(
      p.graphql,
      `{ machine(machineId: "${machine.onChain}") { marketMachine { id agentPairings { items { id status hasAuthToken } } openOrders { items { id status } } } } }`,
    );
    const record = nested.body.data.machine.marketMachine;
    expect(record.id).toBe(machine.id);
    expect(record.agentPairings.items).toContainEqual({ id: pairing.id, status: "ACTIVE", hasAuthToken: true });
    expect(record.openOrders.items).toContainEqual({ id: order.id, status: "CREATED" });

    // Closed orders leave the open list.
    expectOk(await api(p, "POST", `/market/orders/${order.id}/cancel`, undefined, agentHeaders(pairing.pairingToken)));
    const after = await graphql(p.graphql, `{ machine(machineId: "${machine.onChain}") { marketMachine { openOrders { items { id } } } } }`);
    expect(after.body.data.machine.marketMachine.openOrders.items.map((o: { id: string }) => o.id)).not.toContain(order.id);
  });

  it("GraphQL writes get the REST codes: no token AGENT_AUTH_REQUIRED, order read and payment intent", async () => {
    const wallet = Wallet.createRandom();
    const { body } = await graphql(p.graphql, create, { machineId: machine.id, s: sessionOf(machine.id), input: { agentAddress: wallet.address } });
    const token = body.data.createAgentPairing.pairingToken;
    const order = expectOk(await createOrder(p, machine.id, token), 201).item;
    const intent = `mutation ($t: String, $o: String!) { createPaymentIntent(pairingToken: $t, orderId: $o) { orderStatus payment { status rail } } }`;
    expect((await graphql(p.graphql, intent, { t: null, o: order.id })).body.errors?.[0]?.extensions?.code).toBe("AGENT_AUTH_REQUIRED");
    expect((await graphql(p.graphql, intent, { t: token, o: order.id })).body.data.createPaymentIntent).toEqual({
      orderStatus: "READY",
      payment: { status: "NOT_REQUIRED", rail: "not-required" },
    });
    const read = await graphql(p.graphql, `query ($o: String!) { marketOrder(orderId: $o) { status executingDeadline } marketOrderPayment(orderId: $o) { status } }`, { o: order.id });
    // Statuses are enums in GraphQL (REST writes them in lowercase); a ready order has no execution deadline.
    expect(read.body.data).toEqual({ marketOrder: { status: "READY", executingDeadline: null }, marketOrderPayment: { status: "NOT_REQUIRED" } });
  });
});
