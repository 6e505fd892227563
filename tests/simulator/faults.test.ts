/** Each fault kind does exactly what it claims, seen from the wire and from the store. */
import { request } from "undici";
import { createSimulator, parseFaultSpec, type Simulator } from "secops-sim";

let sim: Simulator;
beforeAll(async () => (sim = await createSimulator()));
afterAll(() => sim.close());
afterEach(() => sim.control.clearFaults());

const RULES = "/endpoint/hva/automation";
async function put(search: string) {
  return request(`${sim.url}${RULES}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${sim.apiKeys.admin}`, "content-type": "application/json" },
    body: JSON.stringify({ field: "name", search }),
  });
}
async function ruleCount(search: string) {
  return (await sim.control.state()).rules.filter((r) => r.search === search).length;
}

test.each([
  ["429", 429, "application/json"],
  ["500", 500, "application/json"],
  ["502", 502, "application/json"],
  ["503", 503, "application/json"],
  ["html", 502, "text/html"],
])("%s answers %i before processing (no write)", async (kind, status, type) => {
  await sim.control.setFaults([{ kind: kind as never, method: "PUT", path: RULES, times: 1, retryAfter: 3 }]);
  const res = await put(`f-${kind}`);
  const body = await res.body.text();
  expect(res.statusCode).toBe(status);
  expect(String(res.headers["content-type"])).toContain(type);
  if (kind === "429") expect(res.headers["retry-after"]).toBe("3");
  if (type === "application/json") expect(JSON.parse(body)).toMatchObject({ statusCode: status });
  expect(await ruleCount(`f-${kind}`)).toBe(0);
  // times: 1 — the next request is served normally.
  expect((await put(`f-${kind}`)).statusCode).toBe(201);
  expect(await ruleCount(`f-${kind}`)).toBe(1);
});

test("reset destroys the connection before processing (no write)", async () => {
  await sim.control.setFaults([{ kind: "reset", method: "PUT", times: 1 }]);
  await expect(put("f-reset")).rejects.toMatchObject({
    code: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET/),
  });
  expect(await ruleCount("f-reset")).toBe(0);
});

test("commit-drop applies the write, then destroys the connection", async () => {
  await sim.control.setFaults([{ kind: "commit-drop", method: "PUT", times: 1 }]);
  await expect(put("f-commit")).rejects.toMatchObject({
    code: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET/),
  });
  expect(await ruleCount("f-commit")).toBe(1);
});

test.each([
  ["malformed-json", (t: string) => expect(() => JSON.parse(t)).toThrow()],
  ["wrong-shape", (t: string) => expect(JSON.parse(t)).toEqual({ unexpected: [1, 2, 3] })],
  ["empty-200", (t: string) => expect(t).toBe("")],
])("%s applies the write and answers 200 with a broken body", async (kind, check) => {
  await sim.control.setFaults([{ kind: kind as never, method: "PUT", times: 1 }]);
  const res = await put(`f-${kind}`);
  expect(res.statusCode).toBe(200);
  check(await res.body.text());
  expect(await ruleCount(`f-${kind}`)).toBe(1);
});

test("latency holds the request until its timer fires, then processes it normally", async () => {
  await sim.control.setFaults([{ kind: "latency", latencyMs: 300, times: 1 }]);
  await sim.control.resetStats();
  // The simulator runs in this process: its latency timer is jest's, moved by hand. Sockets stay real.
  jest.useFakeTimers({
    doNotFake: ["nextTick", "setImmediate", "queueMicrotask", "hrtime", "performance", "Date"],
  });
  try {
    let answered = false;
    const res = put("f-latency").finally(() => (answered = true));
    const key = `PUT ${RULES}`;
    for (let i = 0; i < 1000 && !(await sim.control.stats()).requests[key]; i++)
      await new Promise((d) => setImmediate(d));
    expect((await sim.control.stats()).requests[key]).toBe(1); // arrived, and held:
    jest.advanceTimersByTime(299);
    expect({ answered, rules: await ruleCount("f-latency") }).toEqual({ answered: false, rules: 0 });
    jest.advanceTimersByTime(1);
    const done = await res;
    expect(done.statusCode).toBe(201);
    await done.body.dump();
    expect(await ruleCount("f-latency")).toBe(1);
  } finally {
    jest.useRealTimers();
  }
});

test("rates are honoured and counted; stats see requests, writes and sockets", async () => {
  await sim.control.resetStats();
  await sim.control.setFaults("503:0.5@GET /v1/auth/me");
  let failures = 0;
  for (let i = 0; i < 200; i++) {
    const res = await request(`${sim.url}/v1/auth/me`, {
      headers: { authorization: `Bearer ${sim.apiKeys.viewer}` },
    });
    await res.body.dump();
    if (res.statusCode === 503) failures++;
  }
  expect(failures).toBeGreaterThan(60);
  expect(failures).toBeLessThan(140);
  const stats = await sim.control.stats();
  expect(stats.requests["GET /v1/auth/me"]).toBe(200);
  expect(stats.faultsInjected["503"]).toBe(failures);
  expect(stats.writes).toBe(0);
  expect(stats.socketsOpened).toBeGreaterThanOrEqual(1);
});

test("the control API needs the token", async () => {
  const res = await fetch(`${sim.url}/__sim/stats`);
  expect(res.status).toBe(401);
});

test("fault specs: compact and JSON forms; bad kinds and rates rejected", () => {
  expect(parseFaultSpec("429:0.1@PUT /endpoint, reset:0.05, 503@GET")).toEqual([
    { kind: "429", rate: 0.1, method: "PUT", path: "/endpoint" },
    { kind: "reset", rate: 0.05 },
    { kind: "503", method: "GET" },
  ]);
  expect(parseFaultSpec('[{"kind":"html","times":2}]')).toEqual([{ kind: "html", times: 2 }]);
  expect(() => parseFaultSpec("teapot")).toThrow('unknown fault kind "teapot"');
  expect(() => parseFaultSpec("429:2")).toThrow("fault rate must be from 0 to 1, got 2");
});
