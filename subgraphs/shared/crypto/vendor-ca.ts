/**
 * Demo chip vendor CA: a root, an intermediate and chip leaf certificates (ECDSA P-256), generated deterministically
 * from a seed so the demo fixture is reproducible. In dev mode the root and intermediate are the pinned trust bundle.
 *
 * INTERFACE STUB: implementation in progress.
 */
export interface DemoChip {
  leafCertPem: string;
  /** PKCS#8 PEM of the chip's P-256 private key. */
  privateKeyPem: string;
}

export interface DemoVendor {
  rootCertPem: string;
  intermediateCertPem: string;
  /** Issue a chip leaf certificate under the intermediate; `name` picks the deterministic key and serial. */
  issueChip(name: string): Promise<DemoChip>;
}

export async function createDemoVendor(_seed: string): Promise<DemoVendor> {
  throw new Error("createDemoVendor: not implemented yet");
}
