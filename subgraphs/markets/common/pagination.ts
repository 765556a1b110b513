/**
 * List pages of the markets API (public notes 2.1): `limit` 1..500 (default 100) and an opaque `cursor`; a page is
 * `{items, nextCursor}` with the cursor omitted (null in GraphQL) on the last page.
 *
 * A cursor is the keyset position after the page's last row (e.g. `[createdAt, id]`), as base64url JSON. Clients
 * must treat it as opaque; a cursor that does not decode to the expected shape is VALIDATION_ERROR.
 */
import { MarketsErrors } from "./errors.js";

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 500;
/** Longer cursors were never issued by this service. */
export const MAX_CURSOR_LENGTH = 512;

export interface PageRequest {
  limit: number;
  /** The decoded keyset position, or null for the first page. */
  after: string[] | null;
}

export function pageRequest(limit: number | null | undefined, cursor: string | null | undefined, positionLength: number): PageRequest {
  const size = limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_LIMIT) throw MarketsErrors.validation();
  return { limit: size, after: cursor == null ? null : decodeCursor(cursor, positionLength) };
}

export function encodeCursor(position: string[]): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string, positionLength: number): string[] {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw MarketsErrors.validation();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw MarketsErrors.validation();
  }
  if (!Array.isArray(value) || value.length !== positionLength || !value.every((part) => typeof part === "string")) {
    throw MarketsErrors.validation();
  }
  return value as string[];
}

/**
 * Rows were fetched with `take: limit + 1`: the extra row only says another page exists. Returns the page and the
 * cursor after its last row (null on the last page).
 */
export function pageOf<Row>(rows: Row[], limit: number, positionOf: (row: Row) => string[]): { items: Row[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(positionOf(items[items.length - 1]!)) };
}

/**
 * The markets lists ordered by `(createdAt, id)` ascending (agents, pairings, machines, stream policies and
 * listings): the keyset part of the Prisma query for the page after `page.after` (a cursor whose instant does not
 * parse is VALIDATION_ERROR), the order and the one extra row `pageOf` needs. Merge `where` into the list's own filter.
 */
export function createdAtKeyset(page: PageRequest) {
  const after = page.after && { createdAt: new Date(page.after[0]!), id: page.after[1]! };
  if (after && Number.isNaN(after.createdAt.getTime())) throw MarketsErrors.validation();
  return {
    where: after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {},
    orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }],
    take: page.limit + 1,
  };
}

/** The page of rows fetched with {@link createdAtKeyset}, its cursor the last row's `[createdAt, id]`. */
export function createdAtPage<Row extends { createdAt: Date; id: string }>(rows: Row[], page: PageRequest): { items: Row[]; nextCursor: string | null } {
  return pageOf(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id]);
}
