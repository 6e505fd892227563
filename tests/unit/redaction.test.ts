/** The API key never appears in an error's message, stack or JSON, nor in logs or inspection. */
import { inspect } from "node:util";
import { SecOpsClient, SecOpsError } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";

const KEY = "sk_live_REDACTME_5f4dcc3b5aa765d61d8327deb882cf99";
let rec: Recorder;
beforeEach(async () => (rec = await startRecorder()));
afterEach(() => rec.close());

function assertClean(e: unknown) {
  const err = e as Error;
  expect(err.message).not.toContain(KEY);
  expect(err.stack ?? "").not.toContain(KEY);
  expect(JSON.stringify(err)).not.toContain(KEY);
  expect(inspect(err, { depth: 10 })).not.toContain(KEY);
}

test("an API that echoes the key in its error message is redacted everywhere", async () => {
  expect.assertions(6);
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, maxRetries: 0 });
  rec.reply({ status: 401, json: { statusCode: 401, message: `invalid token Bearer ${KEY}` } });
  await c.getIdentity().catch((e: SecOpsError) => {
    assertClean(e);
    expect(e.message).toBe("GET /v1/auth/me failed (401): invalid token Bearer [REDACTED]");
    expect(e.apiMessage).toBe("invalid token Bearer [REDACTED]");
  });
  await c.close();
});

test.each([
  ["network", { status: 0 }],
  ["timeout", { status: 200, delayMs: 300 }],
  ["invalid response", { status: 200, text: "<html>" }],
  ["server", { status: 500, json: { message: KEY } }],
])("%s errors carry no key", async (_n, reply) => {
  expect.assertions(4);
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, maxRetries: 0, timeoutMs: 100 });
  rec.reply(reply.status === 0 ? "reset" : (reply as never));
  await c.getIdentity().catch(assertClean);
  await c.close();
});

test("input errors carry no key", async () => {
  expect.assertions(4);
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url });
  await c.countIntegrations({ healthStatus: [KEY as never] }).catch(assertClean);
  await c.close();
});

test("the client itself does not reveal the key when inspected or serialized", async () => {
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url });
  expect(inspect(c, { depth: 20, showHidden: true })).not.toContain(KEY);
  expect(JSON.stringify(c)).not.toContain(KEY);
  await c.close();
});

test("debug logs carry no key", async () => {
  const lines: string[] = [];
  const spy = jest
    .spyOn(process.stderr, "write")
    .mockImplementation((chunk) => (lines.push(String(chunk)), true));
  process.env.SECOPS_LOG = "debug";
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, maxRetries: 0 });
  rec.reply({
    status: 200,
    json: { email: "e", displayName: "d", id: "i", role: "ADMIN", teamId: "t", parentTeamId: "t" },
  });
  await c.getIdentity();
  delete process.env.SECOPS_LOG;
  spy.mockRestore();
  await c.close();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^\[secops\] GET \/v1\/auth\/me -> 200 attempt=1 \d+ms\n$/);
  expect(lines.join("")).not.toContain(KEY);
});
