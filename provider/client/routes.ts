/**
 * Every route, query name, JSON name and rule the client uses. What the API spec does not show comes
 * from the assumptions table (`assumptions.ts`, docs/assumptions.md).
 */
import { assumed } from "./assumptions";

export { ASSUMPTIONS, isAssumedRoute, type AssumedRoute, type Assumption } from "./assumptions";

const enc = encodeURIComponent;

/** Paths of the operations. */
export const routes = {
  /** Spec: GET /v1/auth/me. */
  authMe: () => "/v1/auth/me",
  /** Spec: PATCH /v1/directory/{id}. ASSUMPTION: GET on the same path reads the user. */
  directoryUser: (id: string) => `/v1/directory/${enc(id)}`,
  /** ASSUMPTION: GET /v1/directory lists the team's directory users. */
  directoryUsers: () => "/v1/directory",
  /** Spec: POST /v1/integration/count. */
  integrationCount: () => "/v1/integration/count",
  /** Spec: PATCH /v1/timeline/comments/{id}. */
  timelineComment: (id: string) => `/v1/timeline/comments/${enc(id)}`,
  /** Spec: PUT /endpoint/hva/automation (create). ASSUMPTION: GET on it lists the team's rules. */
  hvaRules: () => "/endpoint/hva/automation",
  /** Spec: PATCH /endpoint/hva/automation/{id}. ASSUMPTION: GET and DELETE on it read and delete. */
  hvaRule: (id: string) => `/endpoint/hva/automation/${enc(id)}`,
  /** Spec: GET /v1/cases/{id}/threat-indicators. */
  caseThreatIndicators: (caseId: string) => `/v1/cases/${enc(caseId)}/threat-indicators`,
  /** Spec: POST /v1/cases/export/csv. */
  casesExportCsv: () => "/v1/cases/export/csv",
} as const;

/** Query and JSON names the spec hides (ASSUMPTIONS). */
export const names = {
  /** The sort direction (count body, indicators query): `orderDir`, as public client code has it. */
  sortDirection: assumed("names.sortDirection").name,
  /** The service-provider scope in the integration-count body. */
  serviceProviderScope: assumed("names.serviceProviderScope").name,
  /** The page-number query parameter on threat indicators. */
  page: assumed("paging.indicators").page,
  /** The page-size query parameter on threat indicators. */
  pageSize: assumed("paging.indicators").pageSize,
} as const;

/** Paging rules the spec hides. */
export const paging = {
  /** ASSUMPTION: the page size asked (the server may return fewer; the client follows totalCount). */
  pageSize: assumed("paging.indicators").size,
  /** Most pages fetched for one list, so a misbehaving server cannot loop forever. */
  maxPages: 10_000,
} as const;

/** Role rules the spec hides ("Which role may call which operation: not shown"). */
export const roles = {
  /** ASSUMPTION: roles that may write (PUT/PATCH/DELETE). */
  writers: assumed("roles.writers").writers as readonly string[],
} as const;

/** ASSUMPTION: true for the API's answer to a route it lacks (`Cannot GET /path`), never a missing object. */
export function unknownRoute(apiMessage: string | undefined): boolean {
  return apiMessage !== undefined && UNKNOWN_ROUTE.test(apiMessage);
}
const UNKNOWN_ROUTE = new RegExp(assumed("unknown-route").pattern);

/** The operations the API spec shows (method and path template): they exist on every SecOps API. */
export const SPEC_ROUTES: readonly { method: string; path: string }[] = [
  { method: "GET", path: "/v1/auth/me" },
  { method: "PATCH", path: "/v1/directory/{id}" },
  { method: "POST", path: "/v1/integration/count" },
  { method: "PATCH", path: "/v1/timeline/comments/{id}" },
  { method: "PUT", path: "/endpoint/hva/automation" },
  { method: "PATCH", path: "/endpoint/hva/automation/{id}" },
  { method: "GET", path: "/v1/cases/{id}/threat-indicators" },
  { method: "POST", path: "/v1/cases/export/csv" },
];

const SPEC_PATTERNS = SPEC_ROUTES.map((r) => ({
  method: r.method,
  // A template without a parameter names no object: a 404 there can only mean "no such route".
  fixed: !r.path.includes("{"),
  re: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

/**
 * What a 404 or 405 says about the route rather than an object: `"wrong-base-url"` when a spec route
 * is missing (every SecOps API has it), `"unsupported"` when an assumed one is, else undefined.
 */
export function missingRoute(
  method: string,
  path: string,
  status: number,
  apiMessage: string | undefined,
): "wrong-base-url" | "unsupported" | undefined {
  if (status !== 404 && status !== 405) return undefined;
  const bare = path.split("?")[0];
  const spec = SPEC_PATTERNS.find((r) => r.method === method && r.re.test(bare));
  const unknown = unknownRoute(apiMessage);
  if (spec && (spec.fixed || unknown)) return "wrong-base-url";
  return unknown ? "unsupported" : undefined;
}

/** ASSUMPTION: the multipart part names of PATCH /v1/timeline/comments/{id} (see the table). */
export const multipart = assumed("multipart.comment");
