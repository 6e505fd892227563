/**
 * A wrong base URL is said to be one (issue 32 §2). A route the spec shows exists on every SecOps
 * API, so a 404 there (any 404 on `GET /v1/auth/me`; an unknown-route answer on a spec route with an
 * id) means whatever answered is not a SecOps API: the error names the URL and the setting, never
 * "the API has no such route". A 404 about an object, and an assumed route missing (strict-spec),
 * keep their meaning.
 */
import { MockAgent } from "undici";
import { ErrorCodes, SecOpsApiError, SecOpsClient } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";

const ORIGIN = "https://not-secops.example.com";
const wrong = (method: string, path: string, status = 404) =>
  `${method} ${ORIGIN}${path} answered ${status}: the base URL ${ORIGIN} is wrong (no SecOps API there); check baseUrl`;

let sim: Simulator;
beforeAll(async () => {
  sim = await createSimulator({ seed: 32 });
});
afterEach(() => sim.control.clearFaults());
afterAll(() => sim.close());

test("GET /v1/auth/me answered 404 by a page that is not the API: the base URL is wrong, named", async () => {
  expect.assertions(4);
  await sim.control.setFaults([{ kind: "html-404", path: "/v1/auth/me" }]);
  await sim.control.resetStats();
  const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  try {
    await client.getIdentity();
  } catch (err) {
    expect(err).toBeInstanceOf(SecOpsApiError);
    expect(err).toMatchObject({
      code: ErrorCodes.UNEXPECTED_STATUS,
      status: 404,
      method: "GET",
      path: "/v1/auth/me",
      message: `GET ${sim.url}/v1/auth/me answered 404: the base URL ${sim.url} is wrong (no SecOps API there); check baseUrl`,
    });
  } finally {
    await client.close();
  }
  // The simulator saw the request, once: a 404 is not retried.
  const stats = await sim.control.stats();
  expect(stats.faultsInjected["html-404"]).toBe(1);
  expect(Object.values(stats.requests).reduce((a, b) => a + b, 0)).toBe(1);
});

describe("through a MockAgent standing in for a server that is not a SecOps API", () => {
  let agent: MockAgent;
  let client: SecOpsClient;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    client = new SecOpsClient({ apiKey: "base-url-key-0123", baseUrl: `${ORIGIN}/`, dispatcher: agent });
  });
  afterEach(async () => {
    await client.close();
    await agent.close();
  });
  const json = { headers: { "content-type": "application/json" } };

  test.each<[string, number, object | string]>([
    ["a NestJS unknown route", 404, { statusCode: 404, message: "Cannot GET /v1/auth/me" }],
    ["a JSON 404 of another shape", 404, { error: "Not Found" }],
    ["an API-shaped 404 (no object is named on this route)", 404, { statusCode: 404, message: "Not Found" }],
    ["an empty 404", 404, ""],
    ["a 405", 405, { statusCode: 405, message: "Method Not Allowed" }],
  ])("GET /v1/auth/me, %s: the base URL is wrong", async (_name, status, body) => {
    expect.assertions(2);
    agent.get(ORIGIN).intercept({ path: "/v1/auth/me", method: "GET" }).reply(status, body, json);
    await client.identity().catch((err: unknown) =>
      expect(err).toMatchObject({
        code: ErrorCodes.UNEXPECTED_STATUS,
        status,
        message: wrong("GET", "/v1/auth/me", status),
      }),
    );
    expect(agent.pendingInterceptors()).toEqual([]); // the request was sent, once
  });

  test("a spec route with an id answered 'Cannot PATCH': the base URL is wrong, not a missing object", async () => {
    expect.assertions(2);
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/directory/du-1", method: "PATCH" })
      .reply(404, { statusCode: 404, message: "Cannot PATCH /v1/directory/du-1" }, json);
    await client.updateDirectoryUser("du-1", { credentialsExposed: true }).catch((err: unknown) =>
      expect(err).toMatchObject({
        code: ErrorCodes.UNEXPECTED_STATUS,
        message: wrong("PATCH", "/v1/directory/du-1"),
      }),
    );
    expect(agent.pendingInterceptors()).toEqual([]);
  });

  test("the API's own 404 about an object keeps its meaning; a missing assumed route stays SECOPS_UNSUPPORTED", async () => {
    expect.assertions(3);
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: "/v1/directory/du-2", method: "PATCH" })
      .reply(404, { statusCode: 404, message: "Directory user du-2 not found" }, json);
    pool
      .intercept({ path: "/endpoint/hva/automation/r1", method: "GET" })
      .reply(404, { statusCode: 404, message: "Cannot GET /endpoint/hva/automation/r1" }, json);
    await expect(client.updateDirectoryUser("du-2", { credentialsExposed: true })).rejects.toMatchObject({
      code: ErrorCodes.NOT_FOUND,
      message: "PATCH /v1/directory/du-2 failed (404): Directory user du-2 not found",
    });
    await expect(client.getHvaRule("r1")).rejects.toMatchObject({
      code: ErrorCodes.UNSUPPORTED,
      message:
        "GET /endpoint/hva/automation/r1 failed (404): the API has no such route (an assumed route; see docs/assumptions.md in the pulumi-secops package): Cannot GET /endpoint/hva/automation/r1",
    });
    expect(agent.pendingInterceptors()).toEqual([]);
  });
});
