/**
 * The control API under `/__sim/`, guarded by the control token (header `x-sim-control`):
 * statistics, faults at runtime, and out-of-band changes for drift tests.
 *
 *   GET    /__sim/stats                 requests per route, writes, sockets opened, faults injected
 *   POST   /__sim/stats/reset
 *   GET    /__sim/faults | PUT /__sim/faults (rules, or {"spec": "429:0.1@PUT /endpoint"}) | DELETE
 *   GET    /__sim/state                 rules and directory users
 *   POST   /__sim/hva                   { teamId, searchField, search, enabled? }: a rule made by hand
 *   PATCH  /__sim/hva/{id}              { enabled?, search?, searchField? }   DELETE /__sim/hva/{id}
 *   POST   /__sim/directory             { teamId, email?, displayName? }: a user added to a team
 *   PATCH  /__sim/directory/{id}        { needsChatOpsWelcome?, ... }         DELETE /__sim/directory/{id}
 * A DELETE answers the object as it was.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fail, type Result } from "./api";
import { parseFaultSpec, type FaultRule } from "./faults";
import { emptyStats, send, type ServerContext } from "./context";

type Json = Record<string, unknown>;

/** Handles one control request. */
export function handleControl(
  sc: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  text: string,
): void {
  let body: Json;
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    return send(res, fail(400, "control body must be JSON"));
  }
  try {
    send(res, dispatch(sc, req.method ?? "GET", url.pathname.slice("/__sim".length), body));
  } catch (err) {
    send(res, fail(400, (err as Error).message));
  }
}

function dispatch(sc: ServerContext, method: string, path: string, body: Json): Result {
  const ok = (json: unknown): Result => ({ status: 200, json });
  const [, section, id] = path.split("/");
  switch (`${method} /${section}`) {
    case "GET /stats":
      return ok({ ...sc.stats, faultsInjected: sc.faults.injected });
    case "POST /stats":
      Object.assign(sc.stats, emptyStats());
      for (const k of Object.keys(sc.faults.injected)) delete sc.faults.injected[k];
      return ok({});
    case "GET /faults":
      return ok(sc.faults.list());
    case "PUT /faults":
      sc.faults.set(
        typeof body.spec === "string" ? parseFaultSpec(body.spec) : ((body.rules ?? body) as FaultRule[]),
      );
      return ok(sc.faults.list());
    case "DELETE /faults":
      sc.faults.set([]);
      return ok([]);
    case "GET /state":
      return ok({ rules: [...sc.store.rules.values()], users: [...sc.store.users.values()] });
    case "POST /hva":
      return id === undefined ? addRule(sc, body) : fail(404, `Cannot ${method} /__sim${path}`);
    case "POST /directory":
      return id === undefined ? addUser(sc, body) : fail(404, `Cannot ${method} /__sim${path}`);
    case "PATCH /hva":
    case "DELETE /hva":
    case "PATCH /directory":
    case "DELETE /directory":
      return mutate(sc, method, section, decodeURIComponent(id ?? ""), body);
    default:
      return fail(404, `Cannot ${method} /__sim${path}`);
  }
}

/** The problems of a control body: the names it does not take, then each check (problem: passed) that failed. */
function problems(body: Json, names: string[], notTaken: string, checks: Record<string, boolean>): string[] {
  const unknown = Object.keys(body).filter((k) => !names.includes(k));
  const failed = Object.keys(checks).filter((problem) => !checks[problem]);
  return [...unknown.map((k) => `${k} ${notTaken}`), ...failed];
}

const nonEmpty = (v: unknown): v is string => typeof v === "string" && v !== "";

/** The check that `teamId` names a team of the simulator. */
function teamCheck(sc: ServerContext, teamId: unknown): Record<string, boolean> {
  const teams = sc.store.teams.map((t) => t.id);
  return { [`teamId must be one of ${teams.join(", ")}`]: teams.includes(teamId as string) };
}

/** A rule made out of band in any team (as someone in the product's console would), with a fresh id. */
function addRule(sc: ServerContext, body: Json): Result {
  const { teamId, searchField, search, enabled = true } = body;
  const found = problems(
    body,
    ["teamId", "searchField", "search", "enabled"],
    "is not a property of a rule",
    {
      ...teamCheck(sc, teamId),
      "searchField must be a non-empty string": nonEmpty(searchField),
      "search must be a non-empty string": nonEmpty(search),
      "enabled must be true or false": typeof enabled === "boolean",
    },
  );
  if (found.length) return fail(400, found.join("; "));
  const rule = sc.store.addRule(
    teamId as string,
    searchField as string,
    search as string,
    enabled as boolean,
  );
  sc.store.save();
  return { status: 201, json: rule };
}

/** A directory user added to a team out of band, with the next free id of that team. */
function addUser(sc: ServerContext, body: Json): Result {
  const { teamId, email, displayName } = body;
  const notTaken = "is not a property of a new user (teamId, email, displayName)";
  const found = problems(body, ["teamId", "email", "displayName"], notTaken, {
    ...teamCheck(sc, teamId),
    "email must be an email address":
      email === undefined || (nonEmpty(email) && /^[^@\s]+@[^@\s]+$/.test(email)),
    "displayName must be a non-empty string": displayName === undefined || nonEmpty(displayName),
  });
  if (found.length) return fail(400, found.join("; "));
  const fields: Json = {};
  if (typeof email === "string") Object.assign(fields, { email, allEmails: [email], additionalEmails: [] });
  if (typeof displayName === "string") Object.assign(fields, { displayName, name: displayName });
  const user = sc.store.addUser(teamId as string, fields);
  sc.store.save();
  return { status: 201, json: user };
}

function mutate(sc: ServerContext, method: string, section: string, id: string, body: Json): Result {
  const item = sc.store.change(
    section === "hva" ? "rules" : "users",
    id,
    method === "DELETE" ? "delete" : body,
  );
  if (!item) return fail(404, `${section === "hva" ? "rule" : "directory user"} ${id} not found`);
  sc.store.save();
  return { status: 200, json: item };
}
