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
import { send, type ServerContext } from "./context";

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
      sc.stats.requests = {};
      sc.stats.writes = 0;
      sc.stats.socketsOpened = 0;
      sc.stats.earlyRetries = 0;
      sc.stats.crossTeam = 0;
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

/** A rule made out of band in any team (as someone in the product's console would), with a fresh id. */
function addRule(sc: ServerContext, body: Json): Result {
  const { teamId, searchField, search, enabled = true } = body;
  const teams = sc.store.teams.map((t) => t.id);
  const problems = [
    ...Object.keys(body)
      .filter((k) => !["teamId", "searchField", "search", "enabled"].includes(k))
      .map((k) => `${k} is not a property of a rule`),
    ...(typeof teamId === "string" && teams.includes(teamId)
      ? []
      : [`teamId must be one of ${teams.join(", ")}`]),
    ...(typeof searchField === "string" && searchField !== ""
      ? []
      : ["searchField must be a non-empty string"]),
    ...(typeof search === "string" && search !== "" ? [] : ["search must be a non-empty string"]),
    ...(typeof enabled === "boolean" ? [] : ["enabled must be true or false"]),
  ];
  if (problems.length) return fail(400, problems.join("; "));
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
  const teams = sc.store.teams.map((t) => t.id);
  const problems = [
    ...Object.keys(body)
      .filter((k) => !["teamId", "email", "displayName"].includes(k))
      .map((k) => `${k} is not a property of a new user (teamId, email, displayName)`),
    ...(typeof teamId === "string" && teams.includes(teamId)
      ? []
      : [`teamId must be one of ${teams.join(", ")}`]),
    ...(email === undefined || (typeof email === "string" && /^[^@\s]+@[^@\s]+$/.test(email))
      ? []
      : ["email must be an email address"]),
    ...(displayName === undefined || (typeof displayName === "string" && displayName !== "")
      ? []
      : ["displayName must be a non-empty string"]),
  ];
  if (problems.length) return fail(400, problems.join("; "));
  const fields: Json = {};
  if (typeof email === "string") Object.assign(fields, { email, allEmails: [email], additionalEmails: [] });
  if (typeof displayName === "string") Object.assign(fields, { displayName, name: displayName });
  const user = sc.store.addUser(teamId as string, fields);
  sc.store.save();
  return { status: 201, json: user };
}

function mutate(sc: ServerContext, method: string, section: string, id: string, body: Json): Result {
  const item = sc.store.outOfBand(
    section === "hva" ? "hva" : "users",
    id,
    method === "DELETE" ? "delete" : body,
  );
  if (!item) return fail(404, `${section === "hva" ? "rule" : "directory user"} ${id} not found`);
  sc.store.save();
  return { status: 200, json: item };
}
