/**
 * The pinned chip vendor trust bundle: the configured PEM bundle (VENDOR_TRUST_BUNDLE) in production, the demo
 * vendor CA in dev mode. Loaded once; a missing bundle makes evidence intake answer 503 (retryable) rather than
 * reject good evidence.
 */
import { readFile } from "node:fs/promises";
import type { PlatformConfig } from "../../shared/config.js";
import type { DemoFixture } from "../../shared/chain/demo-fixture.js";
import { loadTrustBundle, type TrustBundle } from "./trust.js";

export function trustBundleLoader(config: PlatformConfig, demo: DemoFixture | null): () => Promise<TrustBundle> {
  let bundle: Promise<TrustBundle> | undefined;
  return () => {
    bundle ??= (async () => {
      if (config.vendorTrustBundlePath) return loadTrustBundle(await readFile(config.vendorTrustBundlePath, "utf8"));
      if (demo) return loadTrustBundle(`${demo.vendor.rootCertPem}\n${demo.vendor.intermediateCertPem}`);
      throw new Error("no chip vendor trust bundle: set VENDOR_TRUST_BUNDLE");
    })();
    bundle.catch(() => (bundle = undefined));
    return bundle;
  };
}
