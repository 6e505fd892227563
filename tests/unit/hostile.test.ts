/**
 * The client against a hostile server and hostile input (issue 11): broken streams, slow drips,
 * oversized bodies, resets after the headers, gateway 404s, secrets in inspection and causes, ids
 * that would address another route, and explicit data-source options.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { SecOpsClient, SecOpsError, getIdentity } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";

const KEY = "s3cr3t-k3y-5f4e3d2c1b0a";
let rec: Recorder;
const clients: SecOpsClient[] = [];
const mk = (extra: Record<string, unknown> = {}) => {
  const c = new SecOpsClient({
    apiKey: KEY,
    baseUrl: rec.url,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    ...extra,
  });
  clients.push(c);
  return c;
};
const rule = { id: "r1", enabled: true, searchField: "name", search: "x" };

beforeEach(async () => {
  rec = await startRecorder();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await rec.close();
});

test("destroying an unread export stream emits no error and frees the slot for the next call", async () => {
  const c = mk({ maxConcurrency: 1 });
  rec.reply({ status: 200, text: "a,b\n".repeat(100_000), headers: { "content-type": "text/csv" } });
  const errors: unknown[] = [];
  process.on("uncaughtException", (e) => errors.push(e));
  try {
    const stream = await c.exportCasesCsv();
    const closed = new Promise((d) => stream.once("close", d));
    stream.destroy();
    await closed;
    rec.reply({ status: 200, json: rule });
    await expect(c.setHvaRuleEnabled("r1", true)).resolves.toEqual(rule);
  } finally {
    process.removeAllListeners("uncaughtException");
  }
  expect(errors).toEqual([]);
});

test("a call waiting for a slot behind a held stream ends within timeoutMs, unsent", async () => {
  const c = mk({ maxConcurrency: 1, timeoutMs: 300 });
  rec.reply({ status: 200, text: "x".repeat(1_000_000), headers: { "content-type": "text/csv" } });
  const held = await c.exportCasesCsv();
  held.on("error", () => undefined); // unread, it may hit the idle timeout; not what this test is about
  // The slot's own timer (timeoutMs) ends the wait: its error says so, and nothing was sent.
  await expect(c.getIdentity()).rejects.toMatchObject({
    code: "SECOPS_TIMEOUT",
    message: "GET /v1/auth/me: no connection slot became free within 300 ms (not sent)",
  });
  expect(rec.requests.map((r) => r.path)).toEqual(["/v1/cases/export/csv"]);
  held.destroy();
});

test("a slow-drip export is cut off by deadlineMs although no single gap reaches the idle timeout", async () => {
  const c = mk({ timeoutMs: 2000 });
  rec.reply({
    status: 200,
    text: "abcdefghijklmnopqrstuvwxyz".repeat(4),
    dripMs: 50,
    headers: { "content-type": "text/csv" },
  });
  const dir = mkdtempSync(join(tmpdir(), "secops-drip-"));
  try {
    await expect(c.exportCasesCsvToFile(join(dir, "x.csv"), { deadlineMs: 400 })).rejects.toMatchObject({
      code: "SECOPS_TIMEOUT",
      message: "POST /v1/cases/export/csv: the download did not finish within 400 ms",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a reset after the headers is retried for an idempotent call, within one attempt budget", async () => {
  const c = mk({ maxRetries: 2 });
  rec.reply({ status: 200, json: rule, resetAfter: 5 }, { status: 200, json: rule });
  await expect(c.setHvaRuleEnabled("r1", true)).resolves.toEqual(rule);
  expect(rec.requests).toHaveLength(2);
  rec.requests.length = 0;
  rec.reply({ status: 200, json: rule, resetAfter: 5 });
  await expect(c.getIdentity()).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  expect(rec.requests).toHaveLength(3); // maxRetries + 1, never more
});

test("a PUT whose body broke off after a 2xx is ambiguous, never re-sent", async () => {
  const c = mk();
  rec.reply({ status: 201, json: rule, resetAfter: 5 });
  await expect(c.createHvaRule({ field: "name", search: "x" })).rejects.toMatchObject({
    code: "SECOPS_AMBIGUOUS",
  });
  expect(rec.requests).toHaveLength(1);
});

test("alternating 503 and malformed 200 costs at most maxRetries + 1 requests", async () => {
  const c = mk({ maxRetries: 4 });
  rec.reply(
    { status: 503, json: {} },
    { status: 200, text: "not json" },
    { status: 503, json: {} },
    { status: 200, text: "not json" },
    { status: 503, json: {} },
    { status: 200, text: "not json" },
  );
  await expect(c.getIdentity()).rejects.toBeInstanceOf(SecOpsError);
  expect(rec.requests).toHaveLength(5);
});

test("a Content-Length over the cap is refused before reading and never retried", async () => {
  const c = mk({ maxResponseBytes: 2048 });
  const big = JSON.stringify({ big: "x".repeat(10_000) });
  rec.reply({
    status: 200,
    text: big,
    headers: { "content-type": "application/json", "content-length": String(big.length) },
  });
  await expect(c.getIdentity()).rejects.toMatchObject({
    code: "SECOPS_RESPONSE_INVALID",
    message: `GET /v1/auth/me: response body declares ${big.length} bytes, over the 2048-byte limit (refused before reading; not retried)`,
  });
  expect(rec.requests).toHaveLength(1);
});

test("only the API's JSON 404 means gone; a gateway's HTML 404 is an error", async () => {
  const c = mk();
  rec.reply({ status: 404, json: { statusCode: 404, message: "Rule r1 not found" } });
  await expect(c.getHvaRule("r1")).resolves.toBeUndefined();
  rec.reply({ status: 404, text: "<html><body>404 Not Found</body></html>" });
  await expect(c.getHvaRule("r1")).rejects.toMatchObject({
    code: "SECOPS_UNEXPECTED_STATUS",
    status: 404,
    message:
      "GET /endpoint/hva/automation/r1 failed (404) without the API's JSON error body (text/html): a gateway or proxy may have answered, so nothing is concluded about the object",
  });
  rec.reply({ status: 404, json: { error: "not here" } });
  await expect(c.getHvaRule("r1")).rejects.toMatchObject({ code: "SECOPS_UNEXPECTED_STATUS" });
});

test("the key is in no inspection of a client during a request, and no cause quotes an echoed body", async () => {
  const c = mk();
  rec.reply({ status: 200, json: rule, delayMs: 200 });
  const pending = c.setHvaRuleEnabled("r1", true);
  // Inspected while the request is in flight: the server has it and holds its answer.
  for (let i = 0; i < 1000 && rec.requests.length === 0; i++) await new Promise((d) => setImmediate(d));
  const seen = inspect(c, { depth: Infinity, showHidden: true });
  await pending;
  expect(seen).not.toContain(KEY);
  expect(seen).not.toContain("Bearer");

  rec.reply({ status: 200, text: `Bearer ${KEY}` });
  const e = (await c.getIdentity().catch((err: unknown) => err)) as SecOpsError;
  expect(e).toMatchObject({
    code: "SECOPS_RESPONSE_INVALID",
    message: "GET /v1/auth/me: response is not JSON (text/html)",
  });
  const all = [e.message, e.stack, JSON.stringify(e), inspect(e, { depth: Infinity, showHidden: true })].join(
    "\n",
  );
  expect(all).not.toContain(KEY.slice(0, 6));
  expect(all).not.toContain("Bearer");
});

test.each([
  [".", "id: must not be . or .. (or decode to them): that would address another route"],
  ["..", "id: must not be . or .. (or decode to them): that would address another route"],
  ["%2e%2E", "id: must not be . or .. (or decode to them): that would address another route"],
  ["%252e%252e", "id: must not be . or .. (or decode to them): that would address another route"],
  ["   ", "id: must be a non-empty string"],
  ["a\uD800b", "id: contains a lone surrogate (not valid Unicode)"],
])("id %j is refused before any request", async (id, message) => {
  const c = mk();
  await expect(c.getDirectoryUser(id)).rejects.toMatchObject({
    code: "SECOPS_INVALID_INPUT",
    field: "id",
    message,
  });
  await expect(c.setHvaRuleEnabled(id, true)).rejects.toMatchObject({ code: "SECOPS_INVALID_INPUT" });
  expect(rec.requests).toHaveLength(0);
});

test("ids that merely contain dots are fine", async () => {
  const c = mk();
  rec.reply({ status: 200, json: { id: "a.b" } });
  await c.getDirectoryUser("a.b");
  await c.getDirectoryUser("...");
  expect(rec.requests.map((r) => r.path)).toEqual(["/v1/directory/a.b", "/v1/directory/..."]);
});

test("a second close() resolves", async () => {
  const c = mk();
  await c.close();
  await expect(c.close()).resolves.toBeUndefined();
});

test.each([
  [{ apiKey: 5 }, "opts.apiKey", "opts.apiKey: must be a non-empty string"],
  [{ apiKey: "" }, "opts.apiKey", "opts.apiKey: must be a non-empty string"],
  [{ apikey: "k-12345678" }, "opts.apikey", "opts.apikey: is not an option; did you mean apiKey?"],
  ["k-12345678", "opts", "opts: must be an object with apiKey and/or baseUrl"],
])(
  "explicit data-source options %j are refused, never replaced by the environment's",
  async (opts, field, message) => {
    const env = { key: process.env.SECOPS_API_KEY, url: process.env.SECOPS_BASE_URL };
    process.env.SECOPS_API_KEY = KEY;
    process.env.SECOPS_BASE_URL = rec.url;
    try {
      await expect(getIdentity(opts as never)).rejects.toMatchObject({
        code: "SECOPS_INVALID_INPUT",
        field,
        message,
      });
    } finally {
      process.env.SECOPS_API_KEY = env.key;
      process.env.SECOPS_BASE_URL = env.url;
      if (env.key === undefined) delete process.env.SECOPS_API_KEY;
      if (env.url === undefined) delete process.env.SECOPS_BASE_URL;
    }
    expect(rec.requests).toHaveLength(0);
  },
);
