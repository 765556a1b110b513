/**
 * GraphQL enums over the state lists the services keep (`ORDER_STATUSES`, `TASK_STATUSES`, ...). Each enum's names
 * are the UPPER_CASE spellings and its internal values the stored lowercase ones, so services, rows and audit payloads
 * keep the stored spellings while GraphQL answers the names; the REST shim writes them back in lowercase
 * (rest-shim/routes/enum-spelling.ts). One list of states per lifecycle: the enum cannot drift from the service.
 */
import { registerEnumType } from "type-graphql";

/** `{ PAYMENT_PENDING: "payment_pending", ... }` for the values `["payment_pending", ...]`. */
export type StatusEnum<T extends string> = { readonly [K in T as Uppercase<K>]: K };

export function statusEnum<T extends string>(name: string, values: readonly T[], description: string): StatusEnum<T> {
  const entries = values.map((value) => {
    const key = value.toUpperCase();
    if (!/^[A-Z][A-Z0-9_]*$/.test(key)) throw new Error(`${name}: "${value}" has no GraphQL enum name`);
    return [key, value] as const;
  });
  const enumObject = Object.freeze(Object.fromEntries(entries)) as StatusEnum<T>;
  registerEnumType(enumObject, { name, description });
  return enumObject;
}
