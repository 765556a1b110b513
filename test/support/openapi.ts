/**
 * Reading the generated OpenAPI documents the way a client does: what many operations share (error responses,
 * response headers, parameters, envelope schemas, examples) sits once under `components` and is referenced.
 */

/** The value a `{ $ref: "#/components/..." }` names in `document` (following chains); any other value as it is. */
export function resolveRef(document: any, value: any): any {
  const seen = new Set<string>();
  while (value && typeof value === "object" && typeof value.$ref === "string") {
    const ref: string = value.$ref;
    if (!ref.startsWith("#/") || seen.has(ref)) throw new Error(`unresolvable $ref ${ref}`);
    seen.add(ref);
    value = ref
      .slice(2)
      .split("/")
      .reduce((node, key) => node?.[key.replaceAll("~1", "/").replaceAll("~0", "~")], document);
    if (value === undefined) throw new Error(`$ref ${ref} names nothing`);
  }
  return value;
}
