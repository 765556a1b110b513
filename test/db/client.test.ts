/** openDatabase: where the data lives, health checks, and how infrastructure failures look to callers. */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../subgraphs/shared/errors.js";
import {
  CONNECT_TIMEOUT_MS,
  DataDirInUseError,
  isStoreFailure,
  openDatabase,
  toStoreError,
} from "../../subgraphs/shared/db/index.js";
import { databaseTargets, withTestDatabase } from "../support/db.js";
import { PLATFORM_TEST_TIMEOUT_MS } from "../support/timeouts.js";

describe("embedded PGlite under the data directory", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "db-client-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("keeps data across restarts and admits one opener at a time", async () => {
    const first = await openDatabase({ dataDir });
    expect(first.kind).toBe("pglite");
    expect(await readdir(path.join(dataDir, "pglite"))).toContain("PG_VERSION");
    await first.prisma.monetizationDecision.create({
      data: { machineId: "7", optedIn: true, signer: "0x07", timestamp: 7n, updatedAt: new Date() },
    });
    await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DataDirInUseError);
    await first.close();

    const reopened = await openDatabase({ dataDir });
    try {
      expect(await reopened.prisma.monetizationDecision.findUnique({ where: { deployment_machineId: { deployment: "v1", machineId: "7" } } })).not.toBeNull();
    } finally {
      await reopened.close();
    }
  });

  it("reports queries on a closed database as store failures", async () => {
    const db = await openDatabase({ dataDir }, { inMemory: true });
    expect(await db.ping()).toBe(true);
    await db.close();
    const error = await db.prisma.monetizationDecision.count().catch((e: unknown) => e);
    expect(isStoreFailure(error)).toBe(true);
    expect(toStoreError(error)).toBeInstanceOf(StoreUnavailableError);
  });
});

describe.each(databaseTargets())("request errors on %s", (target) => {
  const testDb = withTestDatabase(target);

  it("answers ping and keeps bugs in raw SQL apart from store failures", async () => {
    expect(testDb.db.kind).toBe(target);
    expect(await testDb.db.ping()).toBe(true);
    const syntaxError = await testDb.db.prisma.$queryRaw`SELEC 1`.catch((e: unknown) => e);
    expect(syntaxError).toMatchObject({ code: "P2010" });
    expect(isStoreFailure(syntaxError)).toBe(false);
    expect(toStoreError(syntaxError)).toBe(syntaxError);
  });

  it("runs one parameterised statement (Database.statement) with the types the heartbeat passes; its bugs are not store failures", async () => {
    const [row] = await testDb.db.statement<{ hash: Buffer; keys: string[]; at: Date; json: { a: number }; nothing: null }>(
      `SELECT $1::bytea AS hash, $2::text[] AS keys, $3::timestamptz AS at, json_build_object('a', $4::int) AS json, $5::bytea AS nothing`,
      [Buffer.from([1, 2, 255]), ["p1", "p'2"], "2026-11-24T06:00:00.123Z", 7, null],
    );
    expect(Buffer.from(row!.hash)).toEqual(Buffer.from([1, 2, 255]));
    expect(row!.keys).toEqual(["p1", "p'2"]);
    expect(new Date(row!.at).toISOString()).toBe("2026-11-24T06:00:00.123Z");
    expect(row!.json).toEqual({ a: 7 });
    expect(row!.nothing).toBeNull();
    const bug = await testDb.db.statement("SELEC $1::int", [1]).catch((e: unknown) => e);
    expect(bug).toBeInstanceOf(Error);
    expect(isStoreFailure(bug)).toBe(false);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("PostgreSQL that cannot be reached", () => {
  const serverUrl = process.env.DATABASE_URL ?? "";

  /** A TCP proxy to the real server whose connections the test can cut. */
  async function startProxy() {
    const target = new URL(serverUrl);
    const sockets = new Set<net.Socket>();
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = new URL(serverUrl);
    url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    return {
      url: url.toString(),
      /** Stops accepting and drops every open connection, like a crashed server. */
      async kill() {
        await new Promise((resolve) => {
          server.close(resolve);
          for (const socket of sockets) socket.destroy();
        });
      },
    };
  }

  // No elapsed-time bounds (a loaded machine would break them): the error's cause tells a refused connection (at once) from the connect
  // timeout; a hang fails on the test timeout.
  it("fails to open at once when nothing listens: the refusal, not the connect timeout", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const url = new URL(serverUrl);
    url.host = `127.0.0.1:${closedPort}`;
    const error = await openDatabase({ dataDir: ".", databaseUrl: url.toString() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe("ECONNREFUSED");
  });

  it("fails to open within the connect timeout when the server never answers", async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = new URL(serverUrl);
    url.host = `127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      const error = await openDatabase({ dataDir: ".", databaseUrl: url.toString() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      // pg's connectionTimeoutMillis (CONNECT_TIMEOUT_MS) ended the wait, not a refusal and not the test's timeout.
      expect(CONNECT_TIMEOUT_MS).toBeLessThan(PLATFORM_TEST_TIMEOUT_MS);
      expect((error as { cause?: Error }).cause?.message).toMatch(/timeout/i);
    } finally {
      silent.close();
    }
  });

  it("reports a lost server quickly as a store failure, in and out of transactions", async () => {
    const proxy = await startProxy();
    const db = await openDatabase({ dataDir: ".", databaseUrl: proxy.url });
    try {
      expect(await db.ping()).toBe(true);
      await proxy.kill();
      const plain = await db.prisma.verifyChallenge.count().catch((e: unknown) => e);
      const inTransaction = await db.prisma.$transaction((tx) => tx.verifyChallenge.count()).catch((e: unknown) => e);
      const raw = await db.prisma.$queryRaw`SELECT 1`.catch((e: unknown) => e);
      for (const error of [plain, inTransaction, raw]) {
        expect(isStoreFailure(error), String(error)).toBe(true);
        expect(toStoreError(error)).toBeInstanceOf(StoreUnavailableError);
      }
      const statement = await db.statement("SELECT 1", []).catch((e: unknown) => e);
      expect(isStoreFailure(statement), String(statement)).toBe(true);
      expect(await db.ping()).toBe(false);
    } finally {
      await db.close();
    }
  });

  it("reports a statement whose connection the server terminates (SQLSTATE 57P01 from pg itself) as a store failure", async () => {
    const db = await openDatabase({ dataDir: ".", databaseUrl: serverUrl });
    try {
      const error = await db.statement("SELECT pg_terminate_backend(pg_backend_pid())", []).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "57P01" });
      expect(isStoreFailure(error)).toBe(true);
      expect(toStoreError(error)).toBeInstanceOf(StoreUnavailableError);
      // The pool replaced the terminated connection.
      expect(await db.statement<{ one: number }>("SELECT 1 AS one", [])).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});
