/**
 * The simulator's HTTP server: routing, authentication, roles, body parsing, fault injection and
 * statistics. Operations are in api.ts, the control API in control.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { parseRetryAfter } from "../provider/client/retry";
import { isAssumedRoute, roles } from "../provider/client/routes";
import * as api from "./api";
import { TooLarge, readBody, readJson, readMultipart, tokenMatches } from "./bodies";
import { handleControl } from "./control";
import { send, type ServerContext } from "./context";
import { exportCsv } from "./csv";
import { BEFORE, type FaultKind, type FaultRule } from "./faults";

type Handler = (ctx: api.Ctx) => api.Result;
interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  handler: Handler;
  /** A route only an assumption adds (see the assumptions table): answered as unknown in strict-spec mode. */
  assumed: boolean;
  multipart?: boolean;
}

function route(method: string, template: string, handler: Handler, extra: Partial<Route> = {}): Route {
  const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}$`);
  return { method, template, pattern, handler, assumed: isAssumedRoute(method, template), ...extra };
}

const ROUTES: Route[] = [
  route("GET", "/v1/auth/me", api.authMe),
  route("GET", "/v1/directory", api.listDirectoryUsers),
  route("GET", "/v1/directory/{id}", api.getDirectoryUser),
  route("PATCH", "/v1/directory/{id}", api.patchDirectoryUser),
  route("POST", "/v1/integration/count", api.countIntegrations),
  route("PATCH", "/v1/timeline/comments/{id}", api.editComment, { multipart: true }),
  route("PUT", "/endpoint/hva/automation", api.createRule),
  route("GET", "/endpoint/hva/automation", api.listRules),
  route("GET", "/endpoint/hva/automation/{id}", api.getRule),
  route("PATCH", "/endpoint/hva/automation/{id}", api.patchRule),
  route("DELETE", "/endpoint/hva/automation/{id}", api.deleteRule),
  route("GET", "/v1/cases/{id}/threat-indicators", api.threatIndicators),
  route("POST", "/v1/cases/export/csv", exportCsv),
];

const WRITES = new Set(["PUT", "PATCH", "DELETE"]);

/** Creates the (unstarted) HTTP server. */
export function createSimServer(sc: ServerContext): Server {
  const server = createServer((req, res) => {
    handle(sc, req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, api.fail(500, `simulator error: ${(err as Error).message}`));
      else res.destroy();
    });
  });
  server.on("connection", () => sc.stats.socketsOpened++);
  server.keepAliveTimeout = 30_000;
  return server;
}

async function handle(sc: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://sim");
  const method = req.method ?? "GET";
  if (url.pathname.startsWith("/__sim/")) return handleControlRequest(sc, req, res, url);
  let match: ReturnType<typeof findRoute>;
  try {
    match = findRoute(method, url.pathname, sc.strictSpec);
  } catch {
    req.resume();
    return send(res, api.fail(400, `malformed percent-escape in path ${JSON.stringify(url.pathname)}`));
  }
  if (!match) {
    await readBody(req).catch(() => undefined);
    return send(res, api.fail(404, `Cannot ${method} ${url.pathname}`));
  }
  const { r, params } = match;
  const fault = await countAndChooseFault(sc, req, `${method} ${r.template}`, url.pathname);
  if (fault && BEFORE.has(fault.kind)) return inject(fault, res);
  const caller = authenticate(sc, req);
  if (!caller) return send(res, api.fail(401, "Unauthorized"));
  if (WRITES.has(method) && !roles.writers.includes(caller.role)) {
    return send(
      res,
      api.fail(403, `Forbidden resource: role ${caller.role} may not ${method} ${url.pathname}`),
    );
  }
  let body: unknown;
  let parts: api.Ctx["parts"];
  try {
    if (r.multipart) parts = await readMultipart(req);
    else body = await readJson(req);
  } catch (err) {
    return send(res, api.fail(err instanceof TooLarge ? 413 : 400, (err as Error).message));
  }
  const crossTeam = () => void sc.stats.crossTeam++;
  const result = r.handler({ ...sc, caller, params, query: url.searchParams, body, parts, crossTeam });
  if (WRITES.has(method) && result.status < 300) {
    sc.stats.writes++;
    sc.store.save();
  }
  if (fault?.kind === "commit-stall") {
    setTimeout(() => send(res, result), fault.latencyMs ?? 200).unref();
    return;
  }
  if (fault) return inject(fault, res);
  send(res, result);
}

/** The control API: the token is checked before the body is read, so a stranger cannot make us buffer. */
async function handleControlRequest(sc: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL) {
  if (!tokenMatches(req.headers["x-sim-control"], sc.controlToken)) {
    req.resume();
    res.setHeader("connection", "close");
    return send(res, api.fail(401, "control token required"));
  }
  return handleControl(sc, req, res, url, await readBody(req));
}

/**
 * Counts the request, notes a retry that came before its Retry-After, and draws a fault. Latency is
 * served here; any other fault is returned for the caller to inject before or after processing.
 */
async function countAndChooseFault(sc: ServerContext, req: IncomingMessage, key: string, path: string) {
  sc.stats.requests[key] = (sc.stats.requests[key] ?? 0) + 1;
  const requestId = req.headers["x-request-id"];
  if (typeof requestId === "string" && (sc.notBefore.get(requestId) ?? 0) > Date.now())
    sc.stats.earlyRetries++;
  const fault = sc.faults.choose(key.split(" ")[0], path);
  if (fault?.kind === "latency") {
    // Unref'd: a held request never keeps a closed simulator's process (or a test worker) alive.
    await new Promise((done) => setTimeout(done, fault.latencyMs ?? 200).unref());
    return undefined;
  }
  if (fault?.kind === "429" && typeof requestId === "string")
    sc.notBefore.set(requestId, Date.now() + retryAfterMs(fault));
  return fault;
}

function findRoute(method: string, path: string, strict: boolean) {
  for (const r of ROUTES) {
    if (r.method !== method || (strict && r.assumed)) continue;
    const m = r.pattern.exec(path);
    if (m)
      return {
        r,
        params: Object.fromEntries(
          Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
        ),
      };
  }
  return undefined;
}

function authenticate(sc: ServerContext, req: IncomingMessage) {
  const h = req.headers.authorization ?? "";
  const m = /^Bearer (.+)$/.exec(h);
  return m ? sc.store.keys.find((k) => k.key === m[1]) : undefined;
}

const retryAfterMs = (fault: FaultRule) => parseRetryAfter(String(fault.retryAfter ?? "1")) ?? 0;

/** Error bodies in the API's shape. */
const apiError = (statusCode: number, message: string) => JSON.stringify({ statusCode, message });
/** A proxy's or gateway's HTML page. */
const page = (title: string) =>
  `<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

/** What each fault that answers (rather than drops the connection) sends: status and body. */
const ANSWERS: Partial<Record<FaultKind, [number, string]>> = {
  "403": [403, apiError(403, "Forbidden resource (injected)")],
  "429": [429, apiError(429, "Too Many Requests")],
  "500": [500, apiError(500, "Service unavailable (injected)")],
  "502": [502, apiError(502, "Service unavailable (injected)")],
  "503": [503, apiError(503, "Service unavailable (injected)")],
  html: [502, page("502 Bad Gateway")],
  "html-404": [404, page("404 Not Found")],
  "commit-500": [500, apiError(500, "Internal server error (injected after commit)")],
  "malformed-json": [200, '{"id": "x", "enabled": tru'],
  "wrong-shape": [200, '{"unexpected":[1,2,3]}'],
  "empty-200": [200, ""],
};

/** Answers with a fault instead of the result: drops the connection, or sends its canned answer. */
function inject(fault: FaultRule, res: ServerResponse): void {
  const answer = ANSWERS[fault.kind];
  if (!answer) {
    res.socket?.destroy();
    return;
  }
  const [status, body] = answer;
  const headers: Record<string, string> = {
    "content-type": fault.kind.startsWith("html") ? "text/html" : "application/json",
  };
  if (status === 429) headers["retry-after"] = String(fault.retryAfter ?? "1");
  res.writeHead(status, headers);
  res.end(body);
}
