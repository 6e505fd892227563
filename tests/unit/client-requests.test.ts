/** Every SecOpsClient method sends exactly the request the spec (and routes.ts) describes. */
import busboy from "busboy";
import { Readable } from "node:stream";
import { SecOpsClient, VERSION } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";

const KEY = "test-key-0123456789abcdef";
let rec: Recorder;
let client: SecOpsClient;

beforeEach(async () => {
  rec = await startRecorder();
  client = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, retryBaseDelayMs: 1, retryMaxDelayMs: 5 });
});
afterEach(async () => {
  await client.close();
  await rec.close();
});

const identity = {
  email: "a@b.c",
  displayName: "A",
  id: "u1",
  role: "ADMIN",
  teamId: "t1",
  parentTeamId: "t1",
};
const last = () => rec.requests[rec.requests.length - 1];
const jsonBody = () => JSON.parse(last().body.toString("utf8"));

test("every request carries the bearer key, user agent and accept header", async () => {
  rec.reply({ status: 200, json: identity });
  await client.getIdentity();
  expect(last().headers.authorization).toBe(`Bearer ${KEY}`);
  expect(last().headers["user-agent"]).toBe(`pulumi-secops/${VERSION}`);
  expect(last().headers.accept).toBe("application/json");
});

test("getIdentity: GET /v1/auth/me, no body", async () => {
  rec.reply({ status: 200, json: { ...identity, serviceProvider: true } });
  const me = await client.getIdentity();
  expect(last()).toMatchObject({ method: "GET", path: "/v1/auth/me", query: {} });
  expect(last().body.length).toBe(0);
  expect(me).toEqual({ ...identity, serviceProvider: true });
});

test("getDirectoryUser: GET /v1/directory/{id} with the id encoded", async () => {
  rec.reply({ status: 200, json: { id: "u/1", needsChatOpsWelcome: true } });
  const u = await client.getDirectoryUser("u/1");
  expect(last()).toMatchObject({ method: "GET", path: "/v1/directory/u%2F1" });
  expect(u.needsChatOpsWelcome).toBe(true);
});

test("updateDirectoryUser: PATCH with only the given flags", async () => {
  rec.reply({ status: 200, json: { id: "u1", credentialsExposed: false, chatOpsOnboardingUser: true } });
  const u = await client.updateDirectoryUser("u1", { credentialsExposed: false });
  expect(last()).toMatchObject({ method: "PATCH", path: "/v1/directory/u1" });
  expect(last().headers["content-type"]).toBe("application/json");
  expect(jsonBody()).toEqual({ credentialsExposed: false });
  expect(u).toMatchObject({ id: "u1", credentialsExposed: false });
});

test("countIntegrations: POST with every filter, hidden names from routes.ts", async () => {
  rec.reply({ status: 200, json: { totalCount: 7 } });
  const n = await client.countIntegrations({
    size: 10,
    page: 2,
    filter: "okta",
    search: "prod",
    orderBy: "name",
    sortDirection: "desc",
    includeDisabled: true,
    healthStatus: ["healthy", "unknown"],
    ids: ["i1", "i2"],
    integrationTypes: ["siem", "network_vpn"],
  });
  expect(n).toBe(7);
  expect(rec.requests).toHaveLength(1); // no identity lookup without a scope
  expect(last()).toMatchObject({ method: "POST", path: "/v1/integration/count" });
  expect(jsonBody()).toEqual({
    size: 10,
    page: 2,
    filter: "okta",
    search: "prod",
    orderBy: "name",
    orderDir: "desc",
    includeDisabled: true,
    healthStatus: ["healthy", "unknown"],
    ids: ["i1", "i2"],
    integrationTypes: ["siem", "network_vpn"],
  });
});

test("countIntegrations: the scope is sent for a service provider, identity fetched once", async () => {
  rec.reply(
    { status: 200, json: { ...identity, serviceProvider: true } },
    { status: 200, json: { totalCount: 3 } },
  );
  expect(await client.countIntegrations({ serviceProviderScope: "SERVICE_PROVIDER" })).toBe(3);
  expect(await client.countIntegrations({ serviceProviderScope: "CLIENTS" })).toBe(3);
  expect(rec.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    "GET /v1/auth/me",
    "POST /v1/integration/count",
    "POST /v1/integration/count",
  ]);
  expect(jsonBody()).toEqual({ serviceProviderScope: "CLIENTS" });
});

test("countIntegrations: scope from a caller that is not a service provider is rejected before sending", async () => {
  expect.assertions(3);
  rec.reply({ status: 200, json: { ...identity, serviceProvider: false } });
  await client.countIntegrations({ serviceProviderScope: "CLIENTS" }).catch((e) => {
    expect(e.code).toBe("SECOPS_INVALID_INPUT");
    expect(e.message).toBe(
      "filter.serviceProviderScope: only service-provider callers may set it; team t1 is not a service provider",
    );
  });
  expect(rec.requests.map((r) => r.path)).toEqual(["/v1/auth/me"]);
});

test("editTimelineComment: multipart with content, the files manifest and each file part", async () => {
  rec.reply({
    status: 200,
    json: { id: "c1", content: "new", attachments: [{ id: "a1", filename: "x.png", size: 3 }] },
  });
  const c = await client.editTimelineComment("c1", {
    content: "new",
    files: [
      { filename: "x.png", contentType: "image/png", data: new Uint8Array([1, 2, 3]) },
      { filename: "y.jpg", contentType: "image/jpeg", data: new Uint8Array([9]) },
    ],
  });
  expect(c.attachments?.[0]?.filename).toBe("x.png");
  expect(last()).toMatchObject({ method: "PATCH", path: "/v1/timeline/comments/c1" });
  expect(last().headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
  const parts = await parseMultipart(last());
  expect(parts).toEqual([
    { field: "content", value: "new" },
    { field: "files", value: '["x.png","y.jpg"]' },
    { file: "files", filename: "x.png", mimeType: "image/png", data: [1, 2, 3] },
    { file: "files", filename: "y.jpg", mimeType: "image/jpeg", data: [9] },
  ]);
});

test("editTimelineComment: content only sends no files part (attachments untouched)", async () => {
  rec.reply({ status: 200, json: { id: "c1", content: "only text" } });
  await client.editTimelineComment("c1", { content: "only text" });
  expect(await parseMultipart(last())).toEqual([{ field: "content", value: "only text" }]);
});

test("createHvaRule: PUT /endpoint/hva/automation with field and search; 201 parsed", async () => {
  rec.reply({
    status: 201,
    json: { id: "r1", teamId: "t1", enabled: true, searchField: "name", search: "dc-*" },
  });
  const r = await client.createHvaRule({ field: "name", search: "dc-*" });
  expect(last()).toMatchObject({ method: "PUT", path: "/endpoint/hva/automation" });
  expect(jsonBody()).toEqual({ field: "name", search: "dc-*" });
  expect(r).toEqual({ id: "r1", teamId: "t1", enabled: true, searchField: "name", search: "dc-*" });
});

test("setHvaRuleEnabled: PATCH with { enabled }", async () => {
  rec.reply({ status: 200, json: { id: "r1", enabled: false } });
  const r = await client.setHvaRuleEnabled("r1", false);
  expect(last()).toMatchObject({ method: "PATCH", path: "/endpoint/hva/automation/r1" });
  expect(jsonBody()).toEqual({ enabled: false });
  expect(r.enabled).toBe(false);
});

test("getHvaRule: GET by id; undefined on 404", async () => {
  rec.reply(
    { status: 200, json: { id: "r1", enabled: true } },
    { status: 404, json: { statusCode: 404, message: "HVA automation rule r2 not found" } },
  );
  expect(await client.getHvaRule("r1")).toEqual({ id: "r1", enabled: true });
  expect(await client.getHvaRule("r2")).toBeUndefined();
  expect(rec.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    "GET /endpoint/hva/automation/r1",
    "GET /endpoint/hva/automation/r2",
  ]);
});

test("getHvaRule: an unknown route is SECOPS_UNSUPPORTED, never 'gone'", async () => {
  expect.assertions(2);
  rec.reply({ status: 404, json: { statusCode: 404, message: "Cannot GET /endpoint/hva/automation/r1" } });
  await client.getHvaRule("r1").catch((e) => {
    expect(e.code).toBe("SECOPS_UNSUPPORTED");
    expect(e.status).toBe(404);
  });
});

test("listHvaRules: GET list, bare array or { data }", async () => {
  rec.reply(
    { status: 200, json: [{ id: "r1" }] },
    { status: 200, json: { data: [{ id: "r2" }], totalCount: 1 } },
  );
  expect(await client.listHvaRules()).toEqual([{ id: "r1" }]);
  expect(await client.listHvaRules()).toEqual([{ id: "r2" }]);
  expect(last()).toMatchObject({ method: "GET", path: "/endpoint/hva/automation" });
});

test("deleteHvaRule: DELETE by id; 204 with no body", async () => {
  rec.reply({ status: 204 });
  await expect(client.deleteHvaRule("r1")).resolves.toBeUndefined();
  expect(last()).toMatchObject({ method: "DELETE", path: "/endpoint/hva/automation/r1" });
});

test("listCaseThreatIndicators: pages with orderDir/page/size until totalCount", async () => {
  rec.reply(
    { status: 200, json: { data: [{ id: "d1" }, { id: "d2" }], totalCount: 3 } },
    { status: 200, json: { data: [{ id: "d3" }], totalCount: 3 } },
  );
  const res = await client.listCaseThreatIndicators("case-1", { sortDirection: "asc" });
  expect(res).toEqual({ data: [{ id: "d1" }, { id: "d2" }, { id: "d3" }], totalCount: 3 });
  expect(rec.requests.map((r) => [r.path, r.query])).toEqual([
    // The server's own first page (no page number), then page 1: the next page if pages count from 0.
    ["/v1/cases/case-1/threat-indicators", { orderDir: "asc", size: "100" }],
    ["/v1/cases/case-1/threat-indicators", { orderDir: "asc", page: "1", size: "100" }],
  ]);
});

test("listCaseThreatIndicators: a server that repeats a page fails with SECOPS_INCOMPLETE", async () => {
  expect.assertions(2);
  rec.reply({ status: 200, json: { data: [{ id: "d1" }], totalCount: 5 } });
  await client.listCaseThreatIndicators("c").catch((e) => {
    expect(e.code).toBe("SECOPS_INCOMPLETE");
    expect(e.message).toBe(
      "GET /v1/cases/c/threat-indicators: the server stopped making progress at page 2 with 1 of 5 indicators; refusing to return a partial list",
    );
  });
});

test("exportCasesCsv: POST /v1/cases/export/csv returned as a stream", async () => {
  rec.reply({ status: 200, text: "id,title\r\n1,x\r\n", headers: { "content-type": "text/csv" } });
  const stream = await client.exportCasesCsv();
  expect(stream).toBeInstanceOf(Readable);
  let text = "";
  for await (const c of stream) text += c;
  expect(text).toBe("id,title\r\n1,x\r\n");
  expect(last()).toMatchObject({ method: "POST", path: "/v1/cases/export/csv" });
});

test("routes start at the base URL's origin (a trailing slash changes nothing; a path is refused, see http.test.ts)", async () => {
  const c2 = new SecOpsClient({ apiKey: KEY, baseUrl: `${rec.url}/` });
  rec.reply({ status: 200, json: identity });
  await c2.getIdentity();
  expect(last().path).toBe("/v1/auth/me");
  await c2.close();
});

type Part =
  { field: string; value: string } | { file: string; filename: string; mimeType: string; data: number[] };
function parseMultipart(r: { headers: Record<string, unknown>; body: Buffer }): Promise<Part[]> {
  return new Promise((resolve, reject) => {
    const out: Part[] = [];
    const bb = busboy({ headers: r.headers as never });
    bb.on("field", (field, value) => out.push({ field, value }));
    bb.on("file", (file, stream, info) => {
      const chunks: Buffer[] = [];
      const entry = { file, filename: info.filename ?? "", mimeType: info.mimeType, data: [] as number[] };
      out.push(entry);
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => (entry.data = [...Buffer.concat(chunks)]));
    });
    bb.on("close", () => resolve(out));
    bb.on("error", reject);
    bb.end(r.body);
  });
}
