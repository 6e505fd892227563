/**
 * A create whose call is cancelled (the engine's deadline passed) after its PUT was sent: the rest of
 * the create still runs, so the outcome of a write that may have landed is found and kept. Only
 * requests a call has not yet sent are dropped, and none once it has sent a write
 * (client/cancellation.ts).
 */
import { SecOpsClient } from "pulumi-secops/client";
import { withCancellation } from "../../provider/client/cancellation";
import { HvaAutomationRuleImpl } from "../../provider/resources/hva-automation-rule";
import { startRecorder, type Recorder } from "../helpers/recorder";

const identity = {
  email: "a@b.c",
  displayName: "A",
  id: "u1",
  role: "ADMIN",
  teamId: "t1",
  parentTeamId: "t1",
};
let rec: Recorder;
let client: SecOpsClient;

beforeEach(async () => {
  rec = await startRecorder();
  client = new SecOpsClient({ apiKey: "cancel-test-key-0123", baseUrl: rec.url, maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await rec.close();
});

const impl = () => new HvaAutomationRuleImpl({ client: async () => client, warn: () => undefined });
const inputs = { field: "name", search: "cancelled-*", enabled: true, adoptExisting: false };
const made = { id: "r-made", teamId: "t1", enabled: true, searchField: "name", search: "cancelled-*" };

test("cancelled while its PUT is in flight and answered 500: the reconciling list is still sent, the rule found", async () => {
  rec.reply(
    { status: 200, json: identity },
    { status: 200, json: [] }, // what exists before the PUT
    { status: 500, json: { message: "boom" }, delayMs: 300 }, // the PUT: landed or not, unknown
    { status: 200, json: [made] }, // the reconciling list: it landed
  );
  const call = new AbortController();
  const created = withCancellation(call.signal, () => impl().create(inputs));
  while (!rec.requests.some((r) => r.method === "PUT")) await new Promise((r) => setImmediate(r));
  call.abort(); // the engine gave up on the call while the PUT was in flight
  expect(await created).toMatchObject({ id: "r-made" });
  expect(rec.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    "GET /v1/auth/me",
    "GET /endpoint/hva/automation",
    "PUT /endpoint/hva/automation",
    "GET /endpoint/hva/automation",
  ]);
});

test("cancelled before its PUT: the PUT is never sent (shared reads, such as the team's list, still are)", async () => {
  rec.reply({ status: 200, json: identity, delayMs: 200 }, { status: 200, json: [] });
  const call = new AbortController();
  const created = withCancellation(call.signal, () => impl().create(inputs)).then(
    () => undefined,
    (e: Error) => e,
  );
  while (rec.requests.length === 0) await new Promise((r) => setImmediate(r));
  call.abort();
  expect(await created).toMatchObject({
    code: "SECOPS_NETWORK",
    message: expect.stringContaining("(not sent)"),
  });
  expect(rec.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    "GET /v1/auth/me",
    "GET /endpoint/hva/automation",
  ]);
});
