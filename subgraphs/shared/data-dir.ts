/**
 * The data directory holds the embedded database, the chain state and the demo fixture with its private keys: it is
 * the platform's own (mode 0700), and files holding secrets are 0600 even if the directory is later opened up.
 */
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";

const PRIVATE_DIR = 0o700;
const SECRET_FILE = 0o600;

/** Creates the directory 0700, or tightens an existing one that others could read (and says so). */
export function prepareDataDir(dir: string, log: (line: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    chmodSync(dir, PRIVATE_DIR);
    log(`data: ${dir} was mode ${mode.toString(8)}; set to 700 (it holds keys and the database)`);
  }
}

/** Writes a file only its owner can read, whatever mode an earlier version of it had. */
export function writeSecretFile(file: string, text: string): void {
  writeFileSync(file, text, { mode: SECRET_FILE });
  chmodSync(file, SECRET_FILE);
}
