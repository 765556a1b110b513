/**
 * Document 2's readiness report as GET /ready writes it: the field names and order of the upstream server.
 * `readyBody(true)` is the all-ready answer (200), `readyBody(false)` the nothing-ready one (503).
 */
export interface ReadyReport {
  status: "ready" | "not_ready";
  rpc_connected: boolean;
  contracts: {
    identity_registry: boolean;
    identity_staking: boolean;
    event_registry: boolean;
    machine_nft: boolean;
    did_registry: boolean;
    admin_flags: boolean;
  };
}

/** The contract checks, all true or all false. */
export function readyContracts(ok: boolean): ReadyReport["contracts"] {
  return {
    identity_registry: ok,
    identity_staking: ok,
    event_registry: ok,
    machine_nft: ok,
    did_registry: ok,
    admin_flags: ok,
  };
}

/** The report with every check `ok`. */
export function readyReport(ok: boolean): ReadyReport {
  return { status: ok ? "ready" : "not_ready", rpc_connected: ok, contracts: readyContracts(ok) };
}

/** The body bytes, as GET /ready answers them (JSON in this field order). */
export const readyBody = (ok: boolean) => JSON.stringify(readyReport(ok));

/** The all-ready body. */
export const READY_BODY = readyBody(true);
