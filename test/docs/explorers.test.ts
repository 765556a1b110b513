/**
 * The API explorers in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core): Swagger UI on each
 * REST listener (`/docs`, assets from swagger-ui-dist) and GraphiQL on the GraphQL listener in development
 * (`/graphiql`, assets from graphiql, react and react-dom). Each page renders offline, one request made from it
 * succeeds, and its screenshot is not blank. Chromium is not on every machine: `.ci/run` installs it and sets
 * BROWSER_TESTS_REQUIRED=1, which makes its absence a failure; elsewhere these tests are skipped with a warning.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const required = process.env.BROWSER_TESTS_REQUIRED === "1";
if (!available && !required) {
  console.warn(`\n*** SKIPPED test/docs/explorers.test.ts: no Chromium at ${CHROMIUM} (apt-get install -y chromium; CI installs it) ***\n`);
}

// Flags Chromium needs on these machines: no sandbox as root, and no background connections to Google's hosts.
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let p: IsolatedPlatform;
let browser: Browser;
let shots: string;

/** Distinct colours in a sample of the screenshot's pixels, counted by Chromium itself (no PNG decoder needed). */
async function distinctColours(page: Page, png: Buffer): Promise<number> {
  const probe = await browser.newPage();
  try {
    return await probe.evaluate(async (dataUrl) => {
      const image = new Image();
      image.src = dataUrl;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext("2d")!;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      const colours = new Set<number>();
      for (let i = 0; i < data.length; i += 4 * 97) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
      return colours.size;
    }, `data:image/png;base64,${png.toString("base64")}`);
  } finally {
    await probe.close();
    void page;
  }
}

async function screenshot(page: Page, name: string): Promise<Buffer> {
  const png = await page.screenshot({ fullPage: false });
  writeFileSync(path.join(shots, `${name}.png`), png);
  return png;
}

describe.runIf(available || required)("API explorers in headless Chromium", () => {
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `BROWSER_TESTS_REQUIRED=1 but no Chromium at ${CHROMIUM}`).toBe(true);
    p = await startIsolatedPlatform({ NODE_ENV: "development" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    shots = mkdtempSync(path.join(os.tmpdir(), "explorer-shots-"));
  });
  afterAll(async () => {
    await browser?.close();
    await p?.close();
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  it.each(["http", "markets", "mcr2"] as const)("Swagger UI on the %s listener renders its document and runs a request", async (listener) => {
    const base = listener === "http" ? p.http : listener === "markets" ? p.markets : p.mcr2;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const external: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(base)) external.push(request.url());
    });
    try {
      await page.goto(`${base}/docs`);
      const operation = page.locator(".opblock-get").first();
      await operation.waitFor();
      await operation.locator(".opblock-summary").click();
      // tryItOutEnabled: the form is open; path parameters carry the document's examples (the demo fixture).
      const execute = page.locator("button.execute").first();
      await execute.waitFor();
      const answered = page.waitForResponse((response) => response.request().method() === "GET" && !response.url().includes("/openapi.json") && !response.url().includes("/docs"));
      await execute.click();
      const response = await answered;
      expect(response.status()).toBeLessThan(500);
      await page.locator(".live-responses-table .response-col_status").first().waitFor();
      const png = await screenshot(page, `swagger-${listener}`);
      expect(await distinctColours(page, png)).toBeGreaterThan(8);
      expect(await page.title()).toBe("API reference");
      expect(external).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("GraphiQL on the GraphQL listener renders and runs its default query", async () => {
    const origin = new URL(p.graphql).origin;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const external: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(origin)) external.push(request.url());
    });
    try {
      await page.goto(`${origin}/graphiql`);
      await page.locator(".graphiql-container").waitFor();
      const answered = page.waitForResponse((response) => response.url() === `${origin}/graphql` && (response.request().postData() ?? "").includes("machine("));
      await page.locator(".graphiql-execute-button").click();
      const response = await answered;
      expect(response.status()).toBe(200);
      expect(((await response.json()) as { data?: { machine?: { machineId?: string } } }).data?.machine?.machineId).toBe("1");
      await page.locator(".graphiql-response").getByText('"machineId": "1"').waitFor();
      const png = await screenshot(page, "graphiql");
      expect(await distinctColours(page, png)).toBeGreaterThan(8);
      expect(external).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

