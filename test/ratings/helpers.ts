/**
 * Shared helpers of the document 2 suites: a platform with generous per-IP limits (on PGlite, or its own PostgreSQL
 * database when DATABASE_URL is set), GET requests over real sockets, the error envelopes, demo-fixture accessors,
 * chain actions as the admin or a demo key, and a faucet client on an injected clock.
 */
import { Wallet, type Contract, type HDNodeWallet } from "ethers";
import { URI, type TOTP } from "otpauth";
import { expect } from "vitest";
import { FAUCET_OPERATIONS } from "../../rest-shim/routes/faucet.js";
import { signTwoFactorReset, type TwoFactorResetFields } from "../../subgraphs/ratings/faucet/two-factor-reset.message.js";
import type { Clock } from "../../subgraphs/shared/clock.js";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { waitFor } from "../../subgraphs/shared/chain/deploy.js";
import type { DemoRatedMachine } from "../../subgraphs/shared/chain/demo-ratings.js";
import { DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import type { ContractName } from "../../subgraphs/shared/config.js";
import { postJson, type HttpAnswer } from "../support/http.js";
import type { StartOptions } from "../../gateway/platform.js";
import { graphql, startIsolatedPlatform, type IsolatedPlatform, type TestPlatform } from "../support/platform.js";
import { waitUntil } from "../support/wait.js";

export type RatingsPlatform = IsolatedPlatform;

/** The platform with generous per-IP limits on its own database (PGlite, or PostgreSQL with DATABASE_URL). */
export function startRatingsPlatform(env: Record<string, string> = {}, options: StartOptions = {}): Promise<RatingsPlatform> {
  return startIsolatedPlatform(env, options);
}

/** A read-route error: `{"detail":"<text>"}`, FastAPI's content type. */
export function expectDetail(answer: HttpAnswer, status: number, detail: string): void {
  expect({ status: answer.status, text: answer.text }).toEqual({ status, text: JSON.stringify({ detail }) });
  expect(answer.headers["content-type"]).toBe("application/json");
}

/** A monetization error: `{"detail":{"code","message"}}`. */
export function expectCoded(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.status === status ? answer.json().detail?.code : answer.text }).toEqual({ status, code });
  expect(Object.keys(answer.json().detail)).toEqual(["code", "message"]);
}

/** A faucet error: `{"code","message"}`. */
export function expectFaucetError(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, body: answer.text }).toMatchObject({ status });
  const body = answer.json();
  expect(Object.keys(body)).toEqual(["code", "message"]);
  expect(body.code).toBe(code);
}

/** Demo machine 7..15 of the ratings fixture. */
export function rated(p: TestPlatform, machineId: number): DemoRatedMachine {
  const machine = p.demo.ratings.machines.find((m) => m.machineId === String(machineId));
  if (!machine) throw new Error(`no rated demo machine ${machineId}`);
  return machine;
}

/** Sends a transaction with `key` (default: the admin) and waits until the platform's reader has seen its block. */
export async function transact(
  p: TestPlatform,
  name: ContractName,
  call: (contract: Contract) => Promise<{ hash: string; wait(): Promise<unknown> } & object>,
  key = DEV_DEPLOYER_KEY,
): Promise<void> {
  const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  try {
    const contract = connectContract(name, p.platform.chain!.addresses, new Wallet(key, provider));
    await waitFor(call(contract) as never);
    await waitForBlock(p, await provider.getBlockNumber());
  } finally {
    provider.destroy();
  }
}

/** Resolves once the platform's chain reader is pinned at `block` or later. */
export async function waitForBlock(p: TestPlatform, block: number): Promise<void> {
  await waitUntil(() => {
    const pinned = p.platform.services.ratings!.pinnedBlock();
    return pinned !== null && pinned >= block;
  });
}

/** A faucet owner's authenticator app, enrolled from an otpauth URI. */
export const authenticator = (otpauthUri: string): TOTP => URI.parse(otpauthUri) as TOTP;

/** The authenticator of a REST setup or reset answer. */
export const authenticatorOf = (answer: HttpAnswer): TOTP => authenticator(answer.json().data.otpauthUri);

/**
 * Faucet and two-factor requests to a platform started with `TRUST_PROXY=true` and an injected clock: each request
 * names its client IP in X-Forwarded-For; codes and reset signatures are made at the platform's clock, so no 30 s
 * step boundary or freshness edge can fall between making and checking them.
 */
export class FaucetClient {
  constructor(
    private readonly p: RatingsPlatform,
    private readonly clock: Clock,
  ) {}

  post(route: string, body: unknown, ip: string): Promise<HttpAnswer> {
    return postJson(`${this.p.http}${route}`, body, { headers: { "x-forwarded-for": ip } });
  }

  /** One of the shim's faucet operations, sent to the GraphQL listener. */
  graphql(operation: keyof typeof FAUCET_OPERATIONS, variables: Record<string, unknown>, ip: string) {
    return graphql(this.p.graphql, FAUCET_OPERATIONS[operation].document, variables, { "x-forwarded-for": ip });
  }

  /** The code of the step `steps` away from the platform's clock (one step of drift is accepted either way). */
  code(totp: TOTP, steps = 0): string {
    return totp.generate({ timestamp: this.clock.now() + steps * 30_000 });
  }

  /** A code the authenticator does not show now, nor one step either side. */
  wrongCode(totp: TOTP): string {
    const shown = new Set([-1, 0, 1].map((steps) => this.code(totp, steps)));
    for (let n = 0; ; n++) {
      const candidate = String(n).padStart(6, "0");
      if (!shown.has(candidate)) return candidate;
    }
  }

  /** The reset body for `ownerAddress` signed by `signer`, issued at the platform's clock unless `fields` say otherwise. */
  resetBody(signer: Wallet | HDNodeWallet, fields: Partial<TwoFactorResetFields> = {}) {
    return signTwoFactorReset(signer, {
      issuer: this.p.config.ratings.faucet.issuer,
      ownerAddress: signer.address,
      chainId: this.p.demo.chainId,
      issuedAt: new Date(this.clock.now()).toISOString(),
      ...fields,
    });
  }

  /** Setup from `ip`; 200 expected. */
  async enrol(owner: string, ip: string): Promise<TOTP> {
    const setup = await this.post("/2fa/setup", { ownerAddress: owner }, ip);
    expect(setup.status, setup.text).toBe(200);
    return authenticatorOf(setup);
  }

  /** Setup and confirm from `ip` with the previous step's code: the current and next steps remain for funding. */
  async activate(owner: string, ip: string): Promise<TOTP> {
    const totp = await this.enrol(owner, ip);
    const confirmed = await this.post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: this.code(totp, -1) }, ip);
    expect(confirmed.status, confirmed.text).toBe(200);
    return totp;
  }

  /** A fund request body for `owner` to a fresh wallet. */
  fundBody(owner: string, code: string) {
    return { ownerAddress: owner, targetWalletAddress: Wallet.createRandom().address, chainId: "service", twoFactorCode: code };
  }

  /** The owner's enrolment row and per-bucket failure rows, as stored (both databases). */
  async stored(owner: string): Promise<{ enrolment: unknown; failures: unknown[] }> {
    const prisma = this.p.platform.database!.prisma;
    const ownerAddress = owner.toLowerCase();
    return {
      enrolment: await prisma.faucetTwoFactor.findUnique({ where: { ownerAddress } }),
      failures: await prisma.faucetTwoFactorFailure.findMany({ where: { ownerAddress }, orderBy: { clientBucket: "asc" } }),
    };
  }
}
