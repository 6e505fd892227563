/**
 * Listing what exists in a team, page by page: the one listing behind the plugin's `List` RPC (what
 * `pulumi do <token> list` calls), `secops hva export` and `secops drift`, so that all of them find the
 * same objects under the same names.
 *
 * The API lists a team's objects in one answer (no paging is shown), so each page lists again and
 * continues after the last id it returned (objects in id order): an object made or deleted between
 * two pages is never returned twice nor makes another one skipped.
 */
import type { SecOpsClient } from "../client/client";
import { SecOpsInputError } from "../client/errors";
import { closest } from "../client/options";
import type { DirectoryUser, HvaRule } from "../client/types";
import { namedRules } from "./hva-names";

/** One object found: an id the resource's import takes as is, and a resource name for it. */
export interface Listed {
  id: string;
  name: string;
}

/** A query key: its type and what it matches. */
interface QueryKey {
  type: "string" | "boolean";
  description: string;
}

/** What can be listed of one resource type. */
interface Lister<T> {
  /** The query keys (`listInputs` in the package schema). */
  query: Record<string, QueryKey>;
  /** Every object of the caller's team. */
  fetch(client: SecOpsClient): Promise<T[]>;
  /** The objects with their names (names are given over the whole team, so a filter never renames). */
  named(all: T[]): Array<{ name: string; item: T & { id: string } }>;
  /** Whether an object matches the query. */
  matches(item: T, query: Record<string, unknown>): boolean;
}

/** `dc-*` as a regular expression: `*` any run of characters, `?` one, the rest literal. */
export function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[\\s\\S]*")
    .replace(/\?/g, "[\\s\\S]");
  return new RegExp(`^${body}$`);
}

const HVA_LISTER: Lister<HvaRule> = {
  query: {
    field: { type: "string", description: "Only the rules matching on this field (e.g. `name`)." },
    enabled: { type: "boolean", description: "Only the enabled (true) or the disabled (false) rules." },
    search: {
      type: "string",
      description: "A glob over each rule's search text: `*` any characters, `?` one (`dc-*`).",
    },
  },
  fetch: (client) => client.listHvaRules(),
  named: (all) => namedRules(all).map(({ name, rule }) => ({ name, item: rule })),
  matches: (rule, q) =>
    (q.field === undefined || (rule.searchField ?? "name") === q.field) &&
    (q.enabled === undefined || (rule.enabled !== false) === q.enabled) &&
    (q.search === undefined || globRegExp(String(q.search)).test(rule.search ?? "")),
};

/** A resource name from a user: the email's local part, else the name, else the id. */
function userName(user: DirectoryUser): string {
  const base = (user.email?.split("@")[0] || user.name || user.displayName || user.id)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return base === "" ? "user" : /^[0-9]/.test(base) ? `user-${base}` : base;
}

const USER_LISTER: Lister<DirectoryUser> = {
  query: {},
  fetch: (client) => client.listDirectoryUsers(),
  named: (all) => {
    const seen = new Map<string, number>();
    return [...all]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((item) => {
        const base = userName(item);
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        return { name: n === 1 ? base : `${base}-${n}`, item };
      });
  },
  matches: () => true,
};

/** What can be listed, by type token. */
const LISTERS: Record<string, Lister<never>> = {
  "secops:index:HvaAutomationRule": HVA_LISTER as Lister<never>,
  "secops:index:DirectoryUserSettings": USER_LISTER as Lister<never>,
};

/** The type tokens that can be listed. */
export const LISTABLE = Object.keys(LISTERS);

/** The query keys of a listable type (the schema's `listInputs`). */
export function listQueryKeys(token: string): Record<string, QueryKey> {
  return LISTERS[token]?.query ?? {};
}

/** One page request, as the engine's `ListRequest` carries it. */
export interface ListPageRequest {
  token: string;
  query: Record<string, unknown>;
  /** The most results of the whole listing; below 1, none. */
  limit: number;
  /** The most results of this page; below 1, the provider's page size. */
  pageSize: number;
  /** Empty for the first page; else what the previous page returned. */
  continuation: string;
}

/** One page: its results and, when more remain, the token of the next. */
export interface ListPage {
  results: Listed[];
  continuation: string;
}

/** Results per page when the caller asks for none. */
export const DEFAULT_PAGE_SIZE = 100;

/** What a continuation token carries: the last id returned, the listing's limit and its count. */
interface Cursor {
  after: string;
  limit: number;
  returned: number;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString("base64url");

function decodeCursor(token: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Cursor;
    if (typeof c.after === "string" && Number.isInteger(c.limit) && Number.isInteger(c.returned)) return c;
  } catch {
    /* refused below */
  }
  throw new SecOpsInputError(
    "continuation_token",
    "is not a token this provider gave; start the listing again",
  );
}

/** Refuses what the query cannot mean, naming the key (before anything is sent). */
function checkQuery(token: string, query: Record<string, unknown>): void {
  const keys = LISTERS[token].query;
  const known = Object.keys(keys);
  for (const [key, value] of Object.entries(query)) {
    const spec = keys[key];
    if (!spec) {
      const near = closest(key, known);
      const hint = near ? `; did you mean ${near}?` : known.length ? ` (known: ${known.join(", ")})` : "";
      throw new SecOpsInputError(key, `is not a query key of ${token}${hint}`);
    }
    if (value !== undefined && value !== null && typeof value !== spec.type)
      throw new SecOpsInputError(key, `must be a ${spec.type}`);
  }
}

/**
 * How many results this page may still hold. The protocol sends the same `limit` on every page of
 * one listing; `pulumi do <token> list --count N` sends what is left of N instead. A limit equal to
 * the one the listing started with is the first; any other is the second.
 */
function remaining(limit: number, cursor: Cursor | undefined): number {
  if (limit < 1) return Infinity;
  if (cursor && limit === cursor.limit) return Math.max(0, cursor.limit - cursor.returned);
  return limit;
}

/** Checks a page request before anything is sent (SECOPS_INVALID_INPUT naming the field). */
export function checkListRequest(req: ListPageRequest): void {
  if (!LISTERS[req.token])
    throw new SecOpsInputError(
      "token",
      `${req.token} cannot be listed; the secops provider lists ${LISTABLE.join(" and ")}`,
    );
  if (req.limit < 0) throw new SecOpsInputError("limit", "must not be negative");
  if (req.pageSize < 0) throw new SecOpsInputError("page_size", "must not be negative");
  checkQuery(req.token, req.query);
  if (req.continuation) decodeCursor(req.continuation);
}

/** One object found, with what the API says of it. */
export interface ListedObject<T> extends Listed {
  item: T;
}

/**
 * Every object of `token` in the client's team that matches `query`, named, in id order: the listing
 * behind each page of `List`, and what `secops drift` and `secops hva export` compare and adopt.
 */
export async function listObjects<T extends { id: string }>(
  client: SecOpsClient,
  token: string,
  query: Record<string, unknown> = {},
): Promise<Array<ListedObject<T>>> {
  checkListRequest({ token, query, limit: 0, pageSize: 0, continuation: "" });
  const lister = LISTERS[token] as unknown as Lister<T>;
  const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null));
  return lister
    .named(await lister.fetch(client))
    .filter(({ item }) => lister.matches(item, given))
    .map(({ name, item }) => ({ id: item.id, name, item }));
}

/** One page of a listing (see {@link ListPageRequest}); the request is checked first. */
export async function listPage(client: SecOpsClient, req: ListPageRequest): Promise<ListPage> {
  checkListRequest(req);
  const cursor = req.continuation ? decodeCursor(req.continuation) : undefined;
  const left = remaining(req.limit, cursor);
  const size = Math.min(req.pageSize > 0 ? req.pageSize : DEFAULT_PAGE_SIZE, left);
  const all = (await listObjects(client, req.token, req.query)).filter((o) => !cursor || o.id > cursor.after);
  const page = all.slice(0, size);
  const results = page.map(({ id, name }) => ({ id, name }));
  const returned = (cursor?.returned ?? 0) + results.length;
  const more = all.length > page.length && left > results.length && results.length > 0;
  const limit = cursor?.limit ?? req.limit;
  return {
    results,
    continuation: more ? encodeCursor({ after: page[page.length - 1].id, limit, returned }) : "",
  };
}
