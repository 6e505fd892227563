/**
 * Every assumption about what the API spec hides, as one table of data: `routes.ts` reads its values,
 * the simulator's `--strict-spec` drops its routes, and a test checks docs/assumptions.md against it.
 */

/** A route the spec does not show. */
export interface AssumedRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path template, e.g. `/endpoint/hva/automation/{id}`. */
  path: string;
}

/** One assumption. */
export interface Assumption {
  /** Stable id, e.g. `hva.read`. */
  id: string;
  /** What is assumed (the docs' first column). */
  text: string;
  /** What depends on it. */
  usedFor: string;
  /** What happens without it: under the simulator's `--strict-spec`, or "—" when that mode keeps it. */
  withoutIt: string;
  /** Routes it adds (absent in strict-spec). */
  routes?: readonly AssumedRoute[];
  /** The names or values it fixes, read by `routes.ts`. */
  values?: Readonly<Record<string, unknown>>;
}

/** The table, with literal types for {@link assumed}. Change an assumption here and nowhere else. */
const TABLE = [
  {
    id: "hva.read",
    text: "`GET /endpoint/hva/automation/{id}` reads a rule",
    usedFor: "refresh of an HVA rule when it is not in the list; import",
    withoutIt: "state kept, one warning: drift detection unavailable; import refused",
    routes: [{ method: "GET", path: "/endpoint/hva/automation/{id}" }],
  },
  {
    id: "hva.list",
    text: "`GET /endpoint/hva/automation` lists the team's rules (bare array or `{ data }`)",
    usedFor: "refresh from one list; `adoptExisting`; reconciling an ambiguous PUT; `secops hva export`",
    withoutIt:
      "refresh reads each rule; `adoptExisting` and reconciliation fail with a clear `SECOPS_UNSUPPORTED` (never a blind second PUT)",
    routes: [{ method: "GET", path: "/endpoint/hva/automation" }],
  },
  {
    id: "hva.delete",
    text: "`DELETE /endpoint/hva/automation/{id}` deletes a rule",
    usedFor: "destroy",
    withoutIt: "the rule is disabled, with a warning that it was not deleted",
    routes: [{ method: "DELETE", path: "/endpoint/hva/automation/{id}" }],
  },
  {
    id: "directory.read",
    text: "`GET /v1/directory/{id}` reads a user",
    usedFor: "previous values, refresh and import of a directory user's settings",
    withoutIt:
      "create works; `restoreOnDelete` fails at create; refresh keeps state and warns; import refused",
    routes: [{ method: "GET", path: "/v1/directory/{id}" }],
  },
  {
    id: "directory.list",
    text: "`GET /v1/directory` lists the team's directory users (bare array or `{ data }`)",
    usedFor: "`List` of directory users' settings (`pulumi do ... list`)",
    withoutIt: "that `List` fails with a clear `SECOPS_UNSUPPORTED` (never an empty list)",
    routes: [{ method: "GET", path: "/v1/directory" }],
  },
  {
    id: "unknown-route",
    text: 'An unknown route answers `404 {"message": "Cannot GET /path"}` (NestJS style)',
    usedFor: "telling a missing route (`SECOPS_UNSUPPORTED`) from a missing object (`SECOPS_NOT_FOUND`)",
    withoutIt: "—",
    values: { pattern: "^Cannot (GET|POST|PUT|PATCH|DELETE) /" },
  },
  {
    id: "names.sortDirection",
    text: "Sort direction is named `orderDir` (count body and indicators query)",
    usedFor: "sort order",
    withoutIt: "ignored by a strict server",
    values: { name: "orderDir" },
  },
  {
    id: "names.serviceProviderScope",
    text: "Service-provider scope is named `serviceProviderScope` in the count body",
    usedFor: "scope",
    withoutIt: "ignored by a strict server",
    values: { name: "serviceProviderScope" },
  },
  {
    id: "paging.indicators",
    text: "Indicator paging: query `page` and `size` (100 asked); pages counted from 0 or 1 (detected), a smaller size cap followed",
    usedFor: "every page of a case",
    withoutIt: "the client gets one page, detects no progress and fails with `SECOPS_INCOMPLETE`",
    values: { page: "page", pageSize: "size", size: 100 },
  },
  {
    id: "roles.writers",
    text: "Roles: ADMIN and ANALYST may write; VIEWER gets 403 on PUT/PATCH/DELETE",
    usedFor: "403 explanations",
    withoutIt: "—",
    values: { writers: ["ADMIN", "ANALYST"] },
  },
  {
    id: "multipart.comment",
    text: "Comment edit multipart: text part `files` = JSON list of the new file names (`[]` removes all), each file a part named `files`; without the text part attachments stay",
    usedFor: "`editTimelineComment`",
    withoutIt: "—",
    values: { content: "content", filesManifest: "files", filePart: "files" },
  },
  {
    id: "success",
    text: "Any 2xx is success (the spec shows only PUT 201 and PATCH 200)",
    usedFor: "every call",
    withoutIt: "—",
  },
  {
    id: "ids",
    text: "Identifiers (`id`) are present on rules, users, comments and detections",
    usedFor: "resource ids, paging",
    withoutIt: "—",
  },
  {
    id: "csv.columns",
    text: "CSV export columns: `id, sid, title, status, severity, createdAt, detectionCount` (simulator only)",
    usedFor: "simulator",
    withoutIt: "—",
    values: { columns: ["id", "sid", "title", "status", "severity", "createdAt", "detectionCount"] },
  },
] as const satisfies readonly Assumption[];

/** Every assumption about what the spec hides (docs/assumptions.md). */
export const ASSUMPTIONS: readonly Assumption[] = TABLE;

type WithValues = Extract<(typeof TABLE)[number], { values: unknown }>;

/** The values of the assumption `id`. */
export function assumed<I extends WithValues["id"]>(id: I): Extract<WithValues, { id: I }>["values"] {
  return ASSUMPTIONS.find((a) => a.id === id)?.values as never;
}

/** True when `method path` (a template) is a route only an assumption adds. */
export function isAssumedRoute(method: string, path: string): boolean {
  return ASSUMPTIONS.some((a) => (a.routes ?? []).some((r) => r.method === method && r.path === path));
}
