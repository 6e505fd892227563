/**
 * The simulated operations. Each handler gets the caller and the parsed request and returns a JSON
 * result or a stream. Where the spec is silent the handlers act like a NestJS service would
 * (400 with `message` listing problems, 404 `Cannot GET /x` for unknown routes).
 */
import type { Readable } from "node:stream";
import {
  HEALTH_STATUSES,
  INTEGRATION_TYPES,
  SERVICE_PROVIDER_SCOPES,
  SORT_DIRECTIONS,
} from "../provider/client/types";
import { names } from "../provider/client/routes";
import type { SimKey } from "./seed";
import type { ServerContext } from "./context";

type Json = Record<string, unknown>;

/** What a handler answers. */
export type Result = { status: number; json?: unknown; stream?: Readable; contentType?: string };

/** A handler's view of the request (and of the server's settings). */
export interface Ctx extends Pick<ServerContext, "store" | "strictSpec" | "paging"> {
  caller: SimKey;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** Multipart parts, for the comment edit. */
  parts?: {
    fields: Record<string, string>;
    files: Array<{ filename: string; contentType: string; data: Buffer }>;
  };
  /** Counts a request that named another team's rule or user. */
  crossTeam?: () => void;
}

/** `found` if it is the caller's team's; another team's is counted and hidden (404, as unknown). */
function ownTeam<T extends { teamId?: unknown }>(ctx: Ctx, found: T | undefined): T | undefined {
  if (found && found.teamId !== ctx.caller.teamId) {
    ctx.crossTeam?.();
    return undefined;
  }
  return found;
}

/** A 4xx/5xx answer in the API's error shape. */
export const fail = (status: number, message: string | string[]): Result => ({
  status,
  json: { statusCode: status, message, error: ERROR_NAMES[status] ?? "Error" },
});
const ERROR_NAMES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
};
const ok = (json: unknown, status = 200): Result => ({ status, json });
const now = () => new Date().toISOString();

function team(ctx: Ctx) {
  return ctx.store.teams.find((t) => t.id === ctx.caller.teamId)!;
}

/** Rejects properties not in `allowed` (unless strict-spec, where hidden names are simply ignored). */
function unknownProps(ctx: Ctx, body: Json, allowed: readonly string[]): string[] {
  if (ctx.strictSpec) return [];
  return Object.keys(body)
    .filter((k) => !allowed.includes(k))
    .map((k) => `property ${k} should not exist`);
}

function objectBody(ctx: Ctx): Json | undefined {
  const b = ctx.body;
  return b && typeof b === "object" && !Array.isArray(b) ? (b as Json) : undefined;
}

export function authMe(ctx: Ctx): Result {
  const t = team(ctx);
  const k = ctx.caller;
  return ok({
    email: k.email,
    displayName: k.displayName,
    id: k.userId,
    role: k.role,
    teamId: t.id,
    parentTeamId: t.parentTeamId,
    serviceProvider: t.serviceProvider,
    completedOnboarding: true,
    hasServiceProviderParent: t.parentTeamId !== t.id,
  });
}

function userOf(ctx: Ctx): Json | undefined {
  return ownTeam(ctx, ctx.store.users.get(ctx.params.id));
}

/** The caller's team's directory users (an assumed route, absent in strict-spec). */
export function listDirectoryUsers(ctx: Ctx): Result {
  return ok([...ctx.store.users.values()].filter((u) => u.teamId === ctx.caller.teamId));
}

export function getDirectoryUser(ctx: Ctx): Result {
  const u = userOf(ctx);
  return u ? ok(u) : fail(404, `Directory user ${ctx.params.id} not found`);
}

const USER_FLAGS = ["needsChatOpsWelcome", "chatOpsOnboardingUser", "credentialsExposed"] as const;

export function patchDirectoryUser(ctx: Ctx): Result {
  const body = objectBody(ctx);
  if (!body) return fail(400, "request body must be a JSON object");
  const problems = unknownProps(ctx, body, USER_FLAGS);
  for (const f of USER_FLAGS)
    if (f in body && typeof body[f] !== "boolean") problems.push(`${f} must be a boolean value`);
  if (problems.length) return fail(400, problems);
  const u = userOf(ctx);
  if (!u) return fail(404, `Directory user ${ctx.params.id} not found`);
  const change = Object.fromEntries(USER_FLAGS.filter((f) => f in body).map((f) => [f, body[f]]));
  return ok(ctx.store.change("users", String(u.id), { ...change, updatedAt: now() }));
}

/** The integration filter's fields the spec shows (the sort and scope names are assumptions). */
const FILTER_FIELDS = [
  "size",
  "page",
  "filter",
  "search",
  "orderBy",
  "includeDisabled",
  "healthStatus",
  "ids",
  "integrationTypes",
];

/** An optional array of strings (each one of `allowed`, when given); a problem is pushed otherwise. */
function stringArray(
  body: Json,
  k: string,
  problems: string[],
  allowed?: readonly string[],
): string[] | undefined {
  const v = body[k];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || (allowed && !allowed.includes(x)))) {
    problems.push(
      allowed
        ? `each value in ${k} must be one of the following values: ${allowed.join(", ")}`
        : `${k} must be an array of strings`,
    );
    return undefined;
  }
  return v as string[];
}

/** The teams whose integrations a caller counts: its own, or (service providers) its clients' by default. */
function owners(ctx: Ctx, scope: unknown): string[] {
  const t = team(ctx);
  if (!t.serviceProvider || scope === "SERVICE_PROVIDER") return [t.id];
  return ctx.store.teams.filter((x) => x.parentTeamId === t.id && x.id !== t.id).map((x) => x.id);
}

export function countIntegrations(ctx: Ctx): Result {
  const body = objectBody(ctx) ?? {};
  const sortName = names.sortDirection;
  const scopeName = names.serviceProviderScope;
  const problems = unknownProps(ctx, body, [...FILTER_FIELDS, sortName, scopeName]);
  const health = stringArray(body, "healthStatus", problems, HEALTH_STATUSES);
  const types = stringArray(body, "integrationTypes", problems, INTEGRATION_TYPES);
  const ids = stringArray(body, "ids", problems);
  if (body.includeDisabled !== undefined && typeof body.includeDisabled !== "boolean")
    problems.push("includeDisabled must be a boolean value");
  const sort = ctx.strictSpec ? undefined : body[sortName];
  if (sort !== undefined && !SORT_DIRECTIONS.includes(sort as never))
    problems.push(`${sortName} must be one of the following values: asc, desc`);
  const scope = ctx.strictSpec ? undefined : body[scopeName];
  if (scope !== undefined) {
    if (!team(ctx).serviceProvider) problems.push(`${scopeName} is only allowed for service provider teams`);
    else if (!SERVICE_PROVIDER_SCOPES.includes(scope as never))
      problems.push(`${scopeName} must be one of the following values: CLIENTS, SERVICE_PROVIDER`);
  }
  if (problems.length) return fail(400, problems);
  const teams = owners(ctx, scope);
  const search = typeof body.search === "string" ? body.search.toLowerCase() : undefined;
  const filter = typeof body.filter === "string" ? body.filter.toLowerCase() : undefined;
  const totalCount = ctx.store.integrations.filter(
    (i) =>
      teams.includes(i.teamId) &&
      (body.includeDisabled === true || i.enabled) &&
      (!health || health.includes(i.healthStatus)) &&
      (!types || types.includes(i.integrationType)) &&
      (!ids || ids.includes(i.id)) &&
      (!search || i.name.toLowerCase().includes(search)) &&
      (!filter || i.integrationPlatform.includes(filter) || i.name.toLowerCase().includes(filter)),
  ).length;
  return ok({ totalCount });
}

export function threatIndicators(ctx: Ctx): Result {
  const c = ctx.store.cases.find((x) => x.id === ctx.params.id && x.teamId === ctx.caller.teamId);
  if (!c) return fail(404, `Case ${ctx.params.id} not found`);
  const dirParam = ctx.strictSpec ? null : ctx.query.get(names.sortDirection);
  if (dirParam !== null && !SORT_DIRECTIONS.includes(dirParam as never)) {
    return fail(400, [`${names.sortDirection} must be one of the following values: asc, desc`]);
  }
  const direction = (dirParam ?? "desc") as "asc" | "desc";
  // Strict-spec: paging parameters are unknown to the service; it answers its default first page.
  const { base, maxPageSize } = ctx.paging;
  const size = ctx.strictSpec ? 50 : clampInt(ctx.query.get(names.pageSize), 50, 1, maxPageSize);
  const page = ctx.strictSpec ? base : clampInt(ctx.query.get(names.page), base, base, 1_000_000);
  const totalCount = ctx.store.detectionCounts.get(c.id) ?? 0;
  return ok({ data: ctx.store.detectionsPage(c.id, direction, (page - base) * size, size), totalCount });
}

function clampInt(v: string | null, fallback: number, min: number, max: number): number {
  const n = v === null ? fallback : Number.parseInt(v, 10);
  return Number.isNaN(n) ? fallback : Math.min(max, Math.max(min, n));
}

export function editComment(ctx: Ctx): Result {
  const c = ctx.store.comments.get(ctx.params.id);
  if (!c || c.teamId !== ctx.caller.teamId) return fail(404, `Comment ${ctx.params.id} not found`);
  const parts = ctx.parts!;
  const manifest = parts.fields.files;
  if (manifest !== undefined) {
    let names: unknown;
    try {
      names = JSON.parse(manifest);
    } catch {
      names = undefined;
    }
    if (!Array.isArray(names) || names.length !== parts.files.length) {
      return fail(400, "files must list the file names of the uploaded file parts, in order");
    }
  }
  const change: Record<string, unknown> = {};
  if (parts.fields.content !== undefined && !c.deleted) change.content = parts.fields.content;
  if (manifest !== undefined || parts.files.length > 0) {
    change.attachments = parts.files.map((f, i) => ({
      id: `att-${ctx.params.id}-${Date.now().toString(36)}-${i}`,
      filename: f.filename,
      contentType: f.contentType,
      size: f.data.length,
      data: f.data.toString("base64"),
      createdAt: now(),
    }));
  }
  const updated = ctx.store.change("comments", String(c.id), { ...change, updatedAt: now() })!;
  const { caseId: _c, teamId: _t, ...view } = updated;
  return ok(view);
}

function ruleView(r: { id: string; teamId: string; enabled: boolean; searchField: string; search: string }) {
  return { id: r.id, teamId: r.teamId, enabled: r.enabled, searchField: r.searchField, search: r.search };
}

function ruleOf(ctx: Ctx) {
  return ownTeam(ctx, ctx.store.rules.get(ctx.params.id));
}

export function createRule(ctx: Ctx): Result {
  const body = objectBody(ctx);
  if (!body) return fail(400, "request body must be a JSON object");
  const problems = unknownProps(ctx, body, ["field", "search"]);
  if (typeof body.field !== "string" || body.field === "") problems.push("field must be a non-empty string");
  if (typeof body.search !== "string" || body.search === "")
    problems.push("search must be a non-empty string");
  if (problems.length) return fail(400, problems);
  return ok(ruleView(ctx.store.addRule(ctx.caller.teamId, body.field as string, body.search as string)), 201);
}

export function patchRule(ctx: Ctx): Result {
  const body = objectBody(ctx);
  if (!body) return fail(400, "request body must be a JSON object");
  const problems = unknownProps(ctx, body, ["enabled"]);
  if (typeof body.enabled !== "boolean") problems.push("enabled must be a boolean value");
  if (problems.length) return fail(400, problems);
  const r = ruleOf(ctx);
  if (!r) return fail(404, `HVA automation rule ${ctx.params.id} not found`);
  ctx.store.change("rules", r.id, { enabled: body.enabled });
  return ok(ruleView(r));
}

export function getRule(ctx: Ctx): Result {
  const r = ruleOf(ctx);
  return r ? ok(ruleView(r)) : fail(404, `HVA automation rule ${ctx.params.id} not found`);
}

export function listRules(ctx: Ctx): Result {
  return ok([...ctx.store.rules.values()].filter((r) => r.teamId === ctx.caller.teamId).map(ruleView));
}

export function deleteRule(ctx: Ctx): Result {
  const r = ruleOf(ctx);
  if (!r) return fail(404, `HVA automation rule ${ctx.params.id} not found`);
  ctx.store.change("rules", r.id, "delete");
  return { status: 204 };
}
