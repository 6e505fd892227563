/**
 * The one listing of a team's objects behind the plugin's `List`, `secops hva export` and `secops
 * drift`, so all find the same objects under the same names. The API has no paging: each page lists
 * again and continues after the last id returned (id order), so nothing is returned twice or skipped.
 */
import type { SecOpsClient } from "../../client/client";
import { SecOpsInputError } from "../../client/errors";
import { didYouMean } from "../../client/options";
import type { ListSpec } from "./definition";
import { uniquelyNamed } from "./names";
import { RESOURCES } from "./registry";

/** One object found: an id the resource's import takes as is, and a resource name for it. */
export interface Listed {
  id: string;
  name: string;
}

/** The listing of a type token, if it can be listed. */
const listSpec = (token: string): ListSpec | undefined =>
  RESOURCES.find((r) => r.definition.token === token)?.definition.list as ListSpec | undefined;

/** The type tokens that can be listed. */
export const LISTABLE = RESOURCES.filter((r) => r.definition.list).map((r) => r.definition.token);

/** The query keys of a listable type (the schema's `listInputs`). */
export function listQueryKeys(token: string): ListSpec["query"] {
  return listSpec(token)?.query ?? {};
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

/** What a continuation token carries: the last id returned, the listing's limit and its count. */
interface Cursor {
  after: string;
  limit: number;
  returned: number;
}

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

/** Checks a page request before anything is sent (SECOPS_INVALID_INPUT naming the field). */
export function checkListRequest(req: ListPageRequest): void {
  const keys = listSpec(req.token)?.query;
  if (!keys)
    throw new SecOpsInputError(
      "token",
      `${req.token} cannot be listed; the secops provider lists ${LISTABLE.join(" and ")}`,
    );
  if (req.limit < 0) throw new SecOpsInputError("limit", "must not be negative");
  if (req.pageSize < 0) throw new SecOpsInputError("page_size", "must not be negative");
  // What the query cannot mean is refused, naming the key.
  const known = Object.keys(keys);
  for (const [key, value] of Object.entries(req.query)) {
    const spec = keys[key];
    if (!spec) {
      const hint = didYouMean(key, known) || (known.length ? ` (known: ${known.join(", ")})` : "");
      throw new SecOpsInputError(key, `is not a query key of ${req.token}${hint}`);
    }
    if (value !== undefined && value !== null && typeof value !== spec.type)
      throw new SecOpsInputError(key, `must be a ${spec.type}`);
  }
  if (req.continuation) decodeCursor(req.continuation);
}

/** One object found, with what the API says of it. */
export interface ListedObject<T> extends Listed {
  item: T;
}

/** Every object of `token` in the client's team that matches `query`, named, in id order. */
export async function listObjects<T extends { id: string }>(
  client: SecOpsClient,
  token: string,
  query: Record<string, unknown> = {},
): Promise<Array<ListedObject<T>>> {
  checkListRequest({ token, query, limit: 0, pageSize: 0, continuation: "" });
  const spec = listSpec(token) as unknown as ListSpec<T>;
  const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null));
  return uniquelyNamed(await spec.fetch(client), (item) => spec.nameOf(item))
    .filter(({ item }) => spec.matches(item, given))
    .map(({ name, item }) => ({ id: item.id, name, item }));
}

/** One page of a listing (see {@link ListPageRequest}); the request is checked first. */
export async function listPage(client: SecOpsClient, req: ListPageRequest): Promise<ListPage> {
  checkListRequest(req);
  const cursor = req.continuation ? decodeCursor(req.continuation) : undefined;
  // Results this page may hold: the protocol repeats `limit`; `pulumi do ... --count` sends what is left.
  const left =
    req.limit < 1
      ? Infinity
      : cursor && req.limit === cursor.limit
        ? Math.max(0, cursor.limit - cursor.returned)
        : req.limit;
  // A page size of none: all (each page is a whole list request anyway).
  const size = Math.min(req.pageSize > 0 ? req.pageSize : Infinity, left);
  const all = (await listObjects(client, req.token, req.query)).filter((o) => !cursor || o.id > cursor.after);
  const page = all.slice(0, size);
  const results = page.map(({ id, name }) => ({ id, name }));
  const returned = (cursor?.returned ?? 0) + results.length;
  const more = all.length > page.length && left > results.length && results.length > 0;
  const next: Cursor = { after: page[page.length - 1]?.id, limit: cursor?.limit ?? req.limit, returned };
  return { results, continuation: more ? Buffer.from(JSON.stringify(next)).toString("base64url") : "" };
}
