/**
 * The shim's reuse of a route's serialised answer (rest-shim/answer-reuse.ts), against a recording executor and a
 * version source the test moves: a reused answer is the operation's own bytes with the same status and headers
 * (`Cache-Control: no-store` included), a new version runs the operation again, an unknown version never reuses, an
 * answer whose version moved while it was computed is not kept, errors are not kept, the key is the variables as
 * sent, and the route's HTTP rules and per-IP limits still apply to every request.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AnswerStore } from "../../rest-shim/answer-reuse.js";
import { holdFirst } from "../support/barrier.js";
import { get } from "../support/http.js";
import { testConfig } from "../support/config.js";
import { expectVerifyError, expectVerifyHeaders } from "../support/verify.js";
import { RECORD, RECORD_JSON, happyExecutor, startShim, type RunningShim } from "./helpers.js";

let shim: RunningShim | undefined;
afterEach(async () => {
  await shim?.close();
  shim = undefined;
});

/** A version source like the chain reader's: `advance()` is a new block, `drop()` a lost node. */
function versions() {
  let current: object | null = {};
  return {
    source: { chainBlock: () => current },
    advance: () => void (current = {}),
    drop: () => void (current = null),
  };
}

const readUrl = (id = "1") => `${shim!.httpUrl}/v1/verify/machines/${id}`;
const verifyCalls = () => shim!.executor.calls.filter((c) => c.operation === "VerifyMachine").length;

describe("reusing the read route's answer", () => {
  it("serves the operation's own bytes, status and headers again without running it", async () => {
    const v = versions();
    shim = await startShim({ answerVersions: v.source });
    const computed = await get(readUrl());
    const reused = await get(readUrl());
    expect(verifyCalls()).toBe(1);
    expect(computed.status).toBe(200);
    expect(reused.status).toBe(200);
    expect(Buffer.from(reused.text)).toEqual(Buffer.from(computed.text));
    expect(reused.text).toBe(RECORD_JSON);
    expectVerifyHeaders(reused);
    expect(reused.headers["content-length"]).toBe(computed.headers["content-length"]);
    expect(reused.headers["cache-control"]).toBe("no-store");
  });

  it("runs the operation again once the version moved, and serves the new answer from then on", async () => {
    const v = versions();
    let chip = "VERIFIED";
    const executor = happyExecutor().answer("VerifyMachine", () => ({
      data: { machineVerification: { ...RECORD, verification: { kyb: { status: "UNVERIFIED" }, chip: { status: chip } } } },
    }));
    shim = await startShim({ executor, answerVersions: v.source });
    expect((await get(readUrl())).json().verification.chip.status).toBe("verified");
    chip = "REVOKED"; // the state changed, and with it ...
    expect((await get(readUrl())).json().verification.chip.status).toBe("verified"); // (same version: reused)
    v.advance(); // ... the version: a new block
    expect((await get(readUrl())).json().verification.chip.status).toBe("revoked");
    expect((await get(readUrl())).json().verification.chip.status).toBe("revoked");
    expect(verifyCalls()).toBe(2);
  });

  it("neither reuses nor keeps while the version is unknown (no pinned block)", async () => {
    const v = versions();
    shim = await startShim({ answerVersions: v.source });
    v.drop();
    await get(readUrl());
    await get(readUrl());
    expect(verifyCalls()).toBe(2);
  });

  it("does not keep an answer whose version moved while the operation ran", async () => {
    const v = versions();
    const gate = holdFirst();
    let chip = "VERIFIED";
    const executor = happyExecutor().answer("VerifyMachine", async () => {
      const seen = chip; // the first operation reads the old state, then is held until a new block served another
      await gate.pass();
      return { data: { machineVerification: { ...RECORD, verification: { kyb: { status: "UNVERIFIED" }, chip: { status: seen } } } } };
    });
    shim = await startShim({ executor, answerVersions: v.source });
    const slow = get(readUrl());
    await gate.entered;
    chip = "REVOKED";
    v.advance();
    expect((await get(readUrl())).json().verification.chip.status).toBe("revoked"); // computed and kept at the new block
    gate.release();
    expect((await slow).json().verification.chip.status).toBe("verified"); // its own answer, but not kept ...
    expect((await get(readUrl())).json().verification.chip.status).toBe("revoked"); // ... over the new block's
    expect(verifyCalls()).toBe(2);
  });

  it("does not keep errors", async () => {
    const v = versions();
    const executor = happyExecutor().answer("VerifyMachine", {
      data: null,
      errors: [{ message: "no such machine", extensions: { code: "MACHINE_NOT_FOUND" } }],
    });
    shim = await startShim({ executor, answerVersions: v.source });
    expectVerifyError(await get(readUrl("7")), 404, "MACHINE_NOT_FOUND");
    expectVerifyError(await get(readUrl("7")), 404, "MACHINE_NOT_FOUND");
    expect(verifyCalls()).toBe(2);
  });

  it("keys answers by the variables exactly as sent", async () => {
    const v = versions();
    const executor = happyExecutor().answer("VerifyMachine", (call) => ({
      data: { machineVerification: { ...RECORD, machineId: call.variables.machineId } },
    }));
    shim = await startShim({ executor, answerVersions: v.source });
    for (const id of ["1", "2", "%31", "1", "2", "%31"]) expect((await get(readUrl(id))).json().machineId).toBe(id);
    expect(verifyCalls()).toBe(3);
  });

  it("still applies the route's HTTP rules and per-IP limits to requests it could answer from the store", async () => {
    const v = versions();
    shim = await startShim({ config: testConfig({ RATE_LIMIT_VERIFY_READ_PER_IP: "3" }), answerVersions: v.source });
    expect((await get(readUrl())).status).toBe(200);
    expectVerifyError(await get(readUrl(), { headers: { accept: "text/html" } }), 406, "NOT_ACCEPTABLE");
    expect((await get(readUrl())).status).toBe(200);
    expect((await get(readUrl())).status).toBe(200);
    expectVerifyError(await get(readUrl()), 429, "RATE_LIMITED");
    expect(verifyCalls()).toBe(1);
  });

  it("never reuses without a version source (role `rest`) or on routes that declare no basis", async () => {
    shim = await startShim();
    await get(readUrl());
    await get(readUrl());
    expect(verifyCalls()).toBe(2);
    await shim.close();
    shim = await startShim({ answerVersions: versions().source });
    await get(`${shim.httpUrl}/health`);
    await get(`${shim.httpUrl}/health`);
    expect(shim.executor.calls.filter((c) => c.operation === "Health").length).toBe(2);
  });
});

describe("AnswerStore", () => {
  const answer = (bytes: number) => ({ status: 200, body: Buffer.alloc(bytes, 0x61) });

  it("holds at most its byte bound: an answer that would pass it empties the store first", () => {
    const version = {};
    const store = new AnswerStore(() => version, 100);
    store.keep(store.begin(), "a", answer(40));
    store.keep(store.begin(), "b", answer(40));
    expect(store.size).toBe(2);
    store.keep(store.begin(), "c", answer(40));
    expect(store.size).toBe(1);
    expect(store.lookup(store.begin(), "c")?.body.length).toBe(40);
    expect(store.lookup(store.begin(), "a")).toBeUndefined();
    store.keep(store.begin(), "d", answer(200));
    expect(store.lookup(store.begin(), "d")).toBeUndefined();
  });
});
