/** The HTTP layer (undici): error codes by cause, retries, Retry-After, ambiguity, timeouts, limits, rules. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { errors, type Dispatcher } from "undici";
import { SecOpsClient } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";

const KEY = "http-test-key-9f8e7d6c5b4a";
let rec: Recorder;
const fast = { retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
/** Clients of the current test, closed after it even when it fails. */
const clients: SecOpsClient[] = [];
const mk = (extra: Record<string, unknown> = {}) => {
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, ...fast, ...extra });
  clients.push(c);
  return c;
};
const rule = { id: "r1", enabled: true };

beforeEach(async () => {
  rec = await startRecorder();
});
afterEach(async () => {
  jest.useRealTimers();
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await rec.close();
});

test.each([
  [400, "SECOPS_BAD_REQUEST"],
  [401, "SECOPS_AUTH"],
  [403, "SECOPS_FORBIDDEN"],
  [404, "SECOPS_NOT_FOUND"],
  [409, "SECOPS_CONFLICT"],
  [500, "SECOPS_SERVER"],
  [302, "SECOPS_UNEXPECTED_STATUS"],
])("status %i -> %s with the API message in the documented form", async (status, code) => {
  const c = mk();
  rec.reply({
    status,
    json: { statusCode: status, message: "nope" },
    headers: status === 302 ? { location: "https://evil.example/" } : {},
  });
  await expect(c.setHvaRuleEnabled("r1", true)).rejects.toMatchObject({
    code,
    status,
    message: `PATCH /endpoint/hva/automation/r1 failed (${status}): nope`,
  });
  expect(rec.requests).toHaveLength(1); // not retried, redirect not followed
  await c.close();
});

test("a NestJS message list is joined", async () => {
  const c = mk();
  rec.reply({ status: 400, json: { statusCode: 400, message: ["enabled must be a boolean value", "x"] } });
  await expect(c.setHvaRuleEnabled("r1", true)).rejects.toMatchObject({
    code: "SECOPS_BAD_REQUEST",
    message: "PATCH /endpoint/hva/automation/r1 failed (400): enabled must be a boolean value; x",
  });
  await c.close();
});

test("429, 502, 503, 504 are retried, then succeed", async () => {
  const c = mk();
  rec.reply(
    { status: 429, json: {} },
    { status: 502, json: {} },
    { status: 503, json: {} },
    { status: 504, json: {} },
    { status: 200, json: rule },
  );
  expect(await c.setHvaRuleEnabled("r1", true)).toEqual(rule);
  expect(rec.requests).toHaveLength(5);
  await c.close();
});

test("retries stop after maxRetries with the last answer", async () => {
  const c = mk({ maxRetries: 2 });
  rec.reply({ status: 503, json: { statusCode: 503, message: "down" } });
  await expect(c.getIdentity()).rejects.toMatchObject({
    code: "SECOPS_SERVER",
    message: "GET /v1/auth/me failed (503): down",
  });
  expect(rec.requests).toHaveLength(3);
  await c.close();
});

/** Waits (without timers, which are fake) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((r) => setImmediate(r));
  expect(done()).toBe(true);
}

test("no retry earlier than Retry-After (seconds), on fake timers", async () => {
  jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
  const c = mk();
  rec.reply({ status: 429, json: {}, headers: { "retry-after": "1" } }, { status: 200, json: rule });
  const call = c.setHvaRuleEnabled("r1", true);
  await until(() => rec.requests.length === 1);
  await jest.advanceTimersByTimeAsync(999);
  expect(rec.requests).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(1);
  await expect(call).resolves.toEqual(rule);
  expect(rec.requests).toHaveLength(2);
  expect(rec.requests[1].at - rec.requests[0].at).toBeGreaterThanOrEqual(1000);
});

test("no retry earlier than Retry-After when timers fire early (they run on the loop's cached clock)", async () => {
  // Under load Node's loop time lags the wall clock, so a 1,000 ms timer can fire before Date.now()
  // has advanced 1,000 ms. Simulate a 40 ms lag: the retry must still wait for the wall clock.
  const realSetTimeout = global.setTimeout;
  const early = jest
    .spyOn(global, "setTimeout")
    .mockImplementation(((fn: () => void, ms?: number) =>
      realSetTimeout(fn, ms !== undefined && ms >= 100 ? ms - 40 : ms)) as typeof setTimeout);
  const c = mk();
  try {
    rec.reply({ status: 429, json: {}, headers: { "retry-after": "1" } }, { status: 200, json: rule });
    await c.setHvaRuleEnabled("r1", true);
  } finally {
    early.mockRestore();
    await c.close();
  }
  expect(rec.requests).toHaveLength(2);
  expect(rec.requests[1].at - rec.requests[0].at).toBeGreaterThanOrEqual(1000);
});

test("no retry earlier than Retry-After (HTTP date), on fake timers", async () => {
  jest.useFakeTimers({
    doNotFake: ["nextTick", "setImmediate", "queueMicrotask"],
    now: Date.parse("2026-11-21T12:00:00.000Z"),
  });
  const c = mk();
  const when = new Date(Date.now() + 5000).toUTCString();
  rec.reply({ status: 503, json: {}, headers: { "retry-after": when } }, { status: 200, json: rule });
  const call = c.setHvaRuleEnabled("r1", true);
  await until(() => rec.requests.length === 1);
  await jest.advanceTimersByTimeAsync(4_990);
  expect(rec.requests).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(10);
  await expect(call).resolves.toEqual(rule);
  expect(rec.requests[1].at).toBeGreaterThanOrEqual(Date.parse(when));
});

test("a Retry-After beyond the cap ends the retries with SECOPS_RATE_LIMITED", async () => {
  const c = mk({ maxRetryAfterMs: 1000 });
  rec.reply({
    status: 429,
    json: { statusCode: 429, message: "slow down" },
    headers: { "retry-after": "120" },
  });
  await expect(c.getIdentity()).rejects.toMatchObject({
    code: "SECOPS_RATE_LIMITED",
    message: "GET /v1/auth/me failed (429): slow down",
    retryAfterSeconds: 120,
  });
  expect(rec.requests).toHaveLength(1);
  await c.close();
});

test("a reset PUT is not re-sent: SECOPS_AMBIGUOUS", async () => {
  const c = mk();
  rec.reply("reset", { status: 201, json: rule });
  await expect(c.createHvaRule({ field: "name", search: "x" })).rejects.toMatchObject({
    code: "SECOPS_AMBIGUOUS",
    message: expect.stringMatching(
      /^PUT \/endpoint\/hva\/automation: .*the request may have been applied \(not re-sent\)$/,
    ),
  });
  expect(rec.requests).toHaveLength(1);
  await c.close();
});

test("a reset idempotent request (PATCH, count POST) is retried", async () => {
  const c = mk();
  rec.reply("reset", { status: 200, json: rule }, "reset", { status: 200, json: { totalCount: 2 } });
  expect(await c.setHvaRuleEnabled("r1", true)).toEqual(rule);
  expect(await c.countIntegrations()).toBe(2);
  expect(rec.requests).toHaveLength(4);
  await c.close();
});

test("a PUT that failed before connecting is retried (nothing was sent)", async () => {
  // A port with nothing listening: ECONNREFUSED every time, so the retries are spent.
  const srv = createServer();
  await new Promise<void>((d) => srv.listen(0, "127.0.0.1", d));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((d) => srv.close(d));
  process.env.SECOPS_LOG = "debug"; // read when the client is made
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, ...fast });
  const lines: string[] = [];
  const spy = jest
    .spyOn(process.stderr, "write")
    .mockImplementation((chunk) => (lines.push(String(chunk)), true));
  const outcome = c.createHvaRule({ field: "name", search: "x" }).finally(() => {
    delete process.env.SECOPS_LOG;
    spy.mockRestore();
  });
  await expect(outcome).rejects.toMatchObject({
    code: "SECOPS_NETWORK",
    message: expect.stringMatching(/^PUT \/endpoint\/hva\/automation failed: .*ECONNREFUSED/),
    cause: expect.anything(),
    status: undefined, // never invented
  });
  // SECOPS_LOG=debug shows each attempt: three tries, each refused before anything was sent.
  expect(lines.map((l) => l.replace(/ \d+ms\n$/, ""))).toEqual([
    "[secops] PUT /endpoint/hva/automation -> ECONNREFUSED attempt=1",
    "[secops] PUT /endpoint/hva/automation -> ECONNREFUSED attempt=2",
    "[secops] PUT /endpoint/hva/automation -> ECONNREFUSED attempt=3",
  ]);
  await c.close();
});

test("timeouts: SECOPS_TIMEOUT for a read", async () => {
  const c = mk({ timeoutMs: 100, maxRetries: 0 });
  rec.reply({ status: 200, json: rule, delayMs: 500 });
  await expect(c.getHvaRule("r1")).rejects.toMatchObject({
    code: "SECOPS_TIMEOUT",
    message: "GET /endpoint/hva/automation/r1: timed out after 100 ms",
  });
  await c.close();
});

test("under 10 s, each attempt's deadline is an AbortSignal.timeout of what is left; when it fires, SECOPS_TIMEOUT", async () => {
  // No wall clock (issue 36): the signal the client makes is swapped for one the test fires.
  const fired: AbortController[] = [];
  const asked: number[] = [];
  const timeout = jest.spyOn(AbortSignal, "timeout").mockImplementation((ms: number) => {
    asked.push(ms);
    fired.push(new AbortController());
    return fired[fired.length - 1].signal;
  });
  try {
    // A server that never answers (and holds no timer): only the deadline can end the call.
    let seen = 0;
    const silent = createServer(() => seen++);
    await new Promise<void>((d) => silent.listen(0, "127.0.0.1", d));
    const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const c = mk({ baseUrl, timeoutMs: 9_999, maxRetries: 0 });
    const call = c.getHvaRule("r1");
    await until(() => seen === 1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBeGreaterThan(0);
    expect(asked[0]).toBeLessThanOrEqual(9_999);
    fired[0].abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    await expect(call).rejects.toMatchObject({
      code: "SECOPS_TIMEOUT",
      message: "GET /endpoint/hva/automation/r1: timed out after 9999 ms",
    });
    silent.closeAllConnections();
    await new Promise((d) => silent.close(d));
  } finally {
    timeout.mockRestore();
  }
});

test("under 10 s, a read whose attempt timed out is sent again, with a deadline of its own", async () => {
  // The deadline is per attempt, not per call: the first attempt's signal fires, the second answers.
  const fired: AbortController[] = [];
  const timeout = jest.spyOn(AbortSignal, "timeout").mockImplementation(() => {
    fired.push(new AbortController());
    return fired[fired.length - 1].signal;
  });
  try {
    const c = mk({ timeoutMs: 9_999 });
    rec.reply({ status: 200, json: rule, delayMs: 60_000 }, { status: 200, json: rule });
    const call = c.getHvaRule("r1");
    await until(() => rec.requests.length === 1);
    fired[0].abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    await expect(call).resolves.toEqual(rule);
    expect(rec.requests).toHaveLength(2);
    expect(fired).toHaveLength(2);
  } finally {
    timeout.mockRestore();
  }
});

test("from 10 s, each attempt's deadlines are undici's own: headers within what is left, each body gap within timeoutMs", async () => {
  // No wall clock (issue 36): a dispatcher records what it is given and fails as undici's timers do.
  const given: Dispatcher.RequestOptions[] = [];
  const failing = (err: Error) =>
    ({
      request: async (o: Dispatcher.RequestOptions) => {
        given.push(o);
        throw err;
      },
    }) as unknown as Dispatcher;
  const stalled = mk({
    timeoutMs: 10_000,
    maxRetries: 0,
    dispatcher: failing(new errors.HeadersTimeoutError()),
  });
  await expect(stalled.getHvaRule("r1")).rejects.toMatchObject({
    code: "SECOPS_TIMEOUT",
    message: "GET /endpoint/hva/automation/r1: timed out after 10000 ms",
  });
  expect(given[0].headersTimeout).toBeGreaterThan(0);
  expect(given[0].headersTimeout).toBeLessThanOrEqual(10_000);
  expect(given[0]).toMatchObject({ bodyTimeout: 10_000, signal: undefined });
  const trickle = mk({
    timeoutMs: 10_000,
    maxRetries: 0,
    dispatcher: failing(new errors.BodyTimeoutError()),
  });
  await expect(trickle.getHvaRule("r1")).rejects.toMatchObject({
    code: "SECOPS_TIMEOUT",
    message: "GET /endpoint/hva/automation/r1: timed out after 10000 ms",
  });
});

test("timeouts: a timed-out PUT is ambiguous, not re-sent", async () => {
  const c = mk({ timeoutMs: 100 });
  rec.reply({ status: 201, json: rule, delayMs: 500 });
  await expect(c.createHvaRule({ field: "name", search: "x" })).rejects.toMatchObject({
    code: "SECOPS_AMBIGUOUS",
    message: expect.stringMatching(
      /^PUT \/endpoint\/hva\/automation: timed out after 100 ms; the request may have been applied/,
    ),
  });
  expect(rec.requests).toHaveLength(1);
  await c.close();
});

test.each([
  ["malformed JSON", { status: 200, text: '{"id": "x", "enabled": tru' }, /response is not JSON/],
  ["an HTML page", { status: 200, text: "<html>oops</html>" }, /response is not JSON \(text\/html\)/],
  ["an empty 200", { status: 200, json: undefined }, /response \$ does not fit the API schema/],
  [
    "a wrong shape",
    { status: 200, json: { id: 5 } },
    /response \$\.id does not fit the API schema: Invalid input: expected string, received number/,
  ],
])("%s -> SECOPS_RESPONSE_INVALID", async (_name, reply, message) => {
  const c = mk();
  rec.reply(reply as never);
  await expect(c.setHvaRuleEnabled("r1", true)).rejects.toMatchObject({
    code: "SECOPS_RESPONSE_INVALID",
    message: expect.stringMatching(message),
  });
  await c.close();
});

test("a JSON body over the size cap is refused", async () => {
  const c = mk({ maxResponseBytes: 2048 });
  rec.reply({ status: 200, json: { id: "r1", search: "x".repeat(5000) } });
  await expect(c.getHvaRule("r1")).rejects.toMatchObject({
    code: "SECOPS_RESPONSE_INVALID",
    message: "GET /endpoint/hva/automation/r1: response body exceeds the 2048-byte limit (not retried)",
  });
  await c.close();
});

test("the concurrency budget bounds requests in flight and sockets", async () => {
  const c = mk({ maxConcurrency: 3 });
  let inFlight = 0;
  let peak = 0;
  const srv = createServer((_req, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalCount: 1 }));
    }, 5);
  });
  let sockets = 0;
  srv.on("connection", () => sockets++);
  await new Promise<void>((d) => srv.listen(0, "127.0.0.1", d));
  const c2 = new SecOpsClient({
    apiKey: KEY,
    baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    maxConcurrency: 3,
  });
  await Promise.all(Array.from({ length: 60 }, () => c2.countIntegrations()));
  expect(peak).toBe(3);
  expect(sockets).toBeLessThanOrEqual(3);
  await c2.close();
  await c.close();
  srv.closeAllConnections();
  await new Promise((d) => srv.close(d));
});

test("a call waiting out Retry-After gives its slot back: another call is sent meanwhile", async () => {
  jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
  const c = mk({ maxConcurrency: 1 });
  rec.reply({ status: 429, json: {}, headers: { "retry-after": "1" } }, { status: 200, json: rule });
  const waiting = c.getHvaRule("a");
  await until(() => rec.requests.length === 1);
  const other = c.getHvaRule("b");
  await until(() => rec.requests.length === 2); // no timer has moved: "a" is still waiting
  await expect(other).resolves.toEqual(rule);
  await jest.advanceTimersByTimeAsync(1000);
  await expect(waiting).resolves.toEqual(rule);
  expect(rec.requests.map((r) => r.path)).toEqual([
    "/endpoint/hva/automation/a",
    "/endpoint/hva/automation/b",
    "/endpoint/hva/automation/a",
  ]);
});

describe("construction", () => {
  const K = "k-12345678";
  test.each<[Record<string, unknown>, string, string]>([
    [{ apiKey: "", baseUrl: "https://x" }, "apiKey", "apiKey must be a non-empty string"],
    [{ apiKey: "a b", baseUrl: "https://x" }, "apiKey", "apiKey must not contain whitespace"],
    [
      { apiKey: "abc", baseUrl: "https://x" },
      "apiKey",
      "apiKey is too short to be an API key (at least 8 characters)",
    ],
    ...["k\u0000-123456", "k\u007f-123456", "k-1234\u20ac5678"].map(
      (apiKey): [Record<string, unknown>, string, string] => [
        { apiKey, baseUrl: "https://x" },
        "apiKey",
        "apiKey contains characters a header cannot carry (control characters or beyond Latin-1)",
      ],
    ),
    [
      { apiKey: K, baseUrl: "https://x", userAgent: "me\r\nx-evil: 1" },
      "userAgent",
      "userAgent must be a string without control characters or line breaks",
    ],
    [
      { apiKey: K, baseUrl: "https://x", timeout: 1 },
      "timeout",
      "timeout is not an option of SecOpsClient; did you mean timeoutMs?",
    ],
    [
      { apiKey: K, baseUrl: "http://api.example.com" },
      "baseUrl",
      "baseUrl must be an https URL (plain http is allowed only for loopback hosts)",
    ],
    [
      { apiKey: K, baseUrl: "not a url" },
      "baseUrl",
      'baseUrl must be an absolute https URL such as https://api.example.com (got "not a url")',
    ],
    [
      { apiKey: K, baseUrl: "https://user:pw@:x" },
      "baseUrl",
      "baseUrl must be an absolute https URL such as https://api.example.com (got a value with an @ (not shown: it may hold credentials))",
    ],
    [
      { apiKey: K, baseUrl: "https://u:p@x" },
      "baseUrl",
      "baseUrl must not contain credentials, a query or a fragment",
    ],
    [
      { apiKey: K, baseUrl: "https://x", timeoutMs: 0 },
      "timeoutMs",
      "timeoutMs must be an integer from 1 to 3600000",
    ],
    [
      { apiKey: K, baseUrl: "https://x", maxConcurrency: 0 },
      "maxConcurrency",
      "maxConcurrency must be an integer from 1 to 1024",
    ],
  ])("%j is rejected", (opts, field, message) => {
    expect(() => new SecOpsClient(opts as never)).toThrow(
      expect.objectContaining({ code: "SECOPS_CONFIG", field, message }),
    );
  });

  const FORM = "baseUrl must be an absolute https URL such as https://api.example.com";
  test.each<[unknown, string]>([
    ["http//127.0.0.1:8080", `${FORM} (got "http//127.0.0.1:8080")`],
    ["127.0.0.1:8080", `${FORM} (got "127.0.0.1:8080")`],
    ["ftp://api.example.com", `${FORM} (got "ftp://api.example.com")`],
    ["/v1", `${FORM} (got "/v1")`],
    ["", `${FORM} (got "")`],
    [42, `${FORM} (got a number)`],
    [undefined, `${FORM} (got undefined)`],
    [
      "http://secops.example.com",
      "baseUrl must be an https URL (plain http is allowed only for loopback hosts)",
    ],
    ["https://api.example.com/?tenant=1", "baseUrl must not contain credentials, a query or a fragment"],
    ["https://api.example.com/#x", "baseUrl must not contain credentials, a query or a fragment"],
    [
      "https://api.example.com/v1",
      'baseUrl must not have a path (got "https://api.example.com/v1"): every route would be wrong; use https://api.example.com',
    ],
    [
      "http://127.0.0.1:8080/api/",
      'baseUrl must not have a path (got "http://127.0.0.1:8080/api/"): every route would be wrong; use http://127.0.0.1:8080',
    ],
  ])("baseUrl %j is refused at construction, naming the setting and the fix", (baseUrl, message) => {
    expect.assertions(1);
    try {
      new SecOpsClient({ apiKey: K, baseUrl } as never);
    } catch (err) {
      expect(err).toMatchObject({
        name: "SecOpsConfigError",
        code: "SECOPS_CONFIG",
        field: "baseUrl",
        message,
      });
    }
  });

  test.each([
    "http://localhost:1",
    "http://127.0.0.1:1",
    "http://[::1]:1",
    "https://api.example.com",
    "https://api.example.com/",
    "http://localhost:8080/",
  ])("%s is allowed", (baseUrl) => {
    expect(() => new SecOpsClient({ apiKey: K, baseUrl })).not.toThrow();
  });
});

test("an unusable 2xx body is sent again for an idempotent call, never for a PUT", async () => {
  const c = mk();
  rec.reply({ status: 200, text: "{broken" }, { status: 200, json: { id: 7 } }, { status: 200, json: rule });
  expect(await c.setHvaRuleEnabled("r1", true)).toEqual(rule);
  expect(rec.requests).toHaveLength(3);
  rec.requests.length = 0;
  rec.reply({ status: 201, text: "{broken" }, { status: 201, json: rule });
  await expect(c.createHvaRule({ field: "name", search: "x" })).rejects.toMatchObject({
    code: "SECOPS_RESPONSE_INVALID",
    message: expect.stringMatching(/^PUT \/endpoint\/hva\/automation: response is not JSON/),
  });
  expect(rec.requests).toHaveLength(1);
  await c.close();
});

test("a PUT answered 502 or 504 by a gateway is ambiguous, not re-sent", async () => {
  const c = mk();
  rec.reply({ status: 504, json: { statusCode: 504, message: "Gateway Timeout" } });
  await expect(c.createHvaRule({ field: "name", search: "x" })).rejects.toMatchObject({
    code: "SECOPS_AMBIGUOUS",
    message:
      "PUT /endpoint/hva/automation failed (504): Gateway Timeout; the request may have been applied (not re-sent)",
  });
  expect(rec.requests).toHaveLength(1);
  await c.close();
});

test("every attempt of one call carries the same x-request-id; calls differ", async () => {
  const c = mk();
  rec.reply({ status: 503, json: {} }, { status: 200, json: rule });
  await c.setHvaRuleEnabled("r1", true);
  await c.setHvaRuleEnabled("r1", true);
  const ids = rec.requests.map((r) => r.headers["x-request-id"]);
  expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ids[0]).toBe(ids[1]);
  expect(ids[2]).not.toBe(ids[0]);
  await c.close();
});
