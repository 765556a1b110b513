/**
 * The canonical machine ID: a decimal string from 1 to 2^256-1 with no sign, whitespace or leading zeros.
 * Any other spelling (a DID, an address, `+1`, `01`, ` 1`) is not a machine ID.
 */
const CANONICAL_DECIMAL = /^[1-9][0-9]{0,77}$/;
const MAX_MACHINE_ID = (1n << 256n) - 1n;

export function parseMachineId(text: unknown): bigint | null {
  if (typeof text !== "string" || !CANONICAL_DECIMAL.test(text)) return null;
  const value = BigInt(text);
  return value <= MAX_MACHINE_ID ? value : null;
}
