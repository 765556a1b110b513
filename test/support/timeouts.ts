/**
 * Time budgets of the test projects (vitest.config.ts imports this file, so it imports nothing).
 *
 * A platform start (anvil, contracts, demo fixture, database, gateway) takes seconds alone, but minutes on a loaded
 * 2-core machine running other suites: the `platform` project's hook timeout is this budget.
 */
export const PLATFORM_START_TIMEOUT_MS = 300_000;

/** Per-test budget of the platform project (chain transactions, child processes). */
export const PLATFORM_TEST_TIMEOUT_MS = 120_000;

/**
 * Budget of a test whose work is sized for coverage, not speed (evidence fuzzing: thousands of mutants checked with
 * real crypto, about 2,000 of them over HTTP). Minutes on a loaded 2-core machine; the budget only turns a hang into
 * a failure (speed belongs in `npm run bench`).
 */
export const FUZZ_TEST_TIMEOUT_MS = 600_000;

/**
 * Deadlines of the test platforms' database transactions and pooled connections (DB_TRANSACTION_MAX_WAIT_MS,
 * DB_TRANSACTION_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS): a hang guard only. The product's 2 s / 5 s are per-request latency budgets; tests that queue dozens of transactions
 * on one row lock (order limits, issuance caps, fuzzing) outran them at a load average of 28 and answered
 * 503, which is machine speed, not behaviour. test/db/transactions.test.ts checks the deadlines themselves.
 */
export const TEST_TRANSACTION_DEADLINE_MS = 60_000;
