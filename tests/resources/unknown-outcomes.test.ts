/**
 * HvaAutomationRule when the API or the network leaves the outcome unknown (issue 11): a create that
 * cannot be settled is recorded as pending and settled by its next operation; a gateway's 404 on a
 * read never drops the rule; Check names unknown inputs and oversized values.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import {
  HvaAutomationRuleImpl,
  provider as implementation,
} from "pulumi-secops/resources/hva-automation-rule";
import { intentDir } from "../../provider/resources/hva-automation-rule/intents";
import { unsettledPending } from "../../provider/resources/hva-automation-rule/reconcile";
import { provider as usersImplementation } from "pulumi-secops/resources/directory-user-settings";
import { createSimulator, type Simulator } from "secops-sim";
import { asHost, captureWarnings, configureRequest } from "../helpers/provider";
const users = asHost(usersImplementation);
const provider = asHost(implementation);

let sim: Simulator;
let n = 0;
const unique = () => `pending-${++n}-*`;
const live = async (search: string) => (await sim.control.state()).rules.filter((r) => r.search === search);
const RULES = "/endpoint/hva/automation";

beforeAll(async () => {
  sim = await createSimulator({ seed: 13 });
  await provider.configure(
    configureRequest({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url }),
  );
});
afterAll(() => sim.close());
beforeEach(() => captureWarnings());
afterEach(async () => {
  jest.restoreAllMocks();
  await sim.control.clearFaults();
});

/** The error a create rejects with. */
async function createFailure(inputs: Record<string, unknown>) {
  try {
    await provider.create(inputs as never);
  } catch (err) {
    return err as Error & { id?: string; properties?: Record<string, unknown> };
  }
  throw new Error("expected the create to fail");
}

test("a landed PUT whose reconciling list keeps failing is recorded as pending, then settled by the user: a rule first seen later is a candidate, never deleted or claimed on its strength", async () => {
  const search = unique();
  await sim.control.setFaults([
    { kind: "commit-drop", method: "PUT", path: RULES, times: 1 },
    // The first list (what exists before the PUT) answers; every reconciling list fails.
    { kind: "500", method: "GET", path: RULES, skip: 1, times: 20 },
  ]);
  const inputs = { field: "name", search, enabled: true, adoptExisting: false };
  const err = await createFailure(inputs);
  expect(err.id).toMatch(/^pending:\d{4}-/);
  expect(err.properties).toMatchObject({ field: "name", search, enabled: true });
  expect(err.message).toContain(
    'HVA rule with field "name" may already exist: creating it had an unknown outcome and checking for it failed',
  );
  expect(err.message).toContain("the next up or destroy settles it (never a duplicate");
  expect(err.message).not.toContain(search); // an input may be secret: errors never carry its value
  expect(err.properties).toMatchObject({ teamId: "team-acme", __pendingCreate: { before: [] } });
  expect(await live(search)).toHaveLength(1); // the PUT landed: state must not forget it
  await sim.control.clearFaults();

  // Refresh keeps it. The rule is first seen after the create's own request: a candidate, not a proof.
  expect(await provider.read(err.id!, err.properties as never)).toEqual({
    id: err.id,
    props: err.properties,
  });
  const [candidate] = (await live(search)).map((r) => r.id);
  const refusal = unsettledPending(err.properties as never, [{ id: candidate } as never], true).message;
  // The next up's Diff, and a destroy's delete, refuse naming it and both ways out; nothing is deleted.
  await expect(provider.diff(err.id!, err.properties as never, inputs as never)).rejects.toThrow(refusal);
  await expect(provider.delete(err.id!, err.properties as never)).rejects.toThrow(refusal);
  expect(await live(search)).toEqual([expect.objectContaining({ id: candidate })]);
  // The user takes it: adoptExisting replaces the pending record with the candidate, one rule.
  const adopting = { ...inputs, adoptExisting: true };
  expect(await provider.diff(err.id!, err.properties as never, adopting as never)).toEqual({
    changes: true,
    replaces: ["search"],
    deleteBeforeReplace: true,
  });
  await provider.delete(err.id!, err.properties as never);
  const made = await provider.create(adopting as never);
  expect((await live(search)).map((r) => r.id)).toEqual([candidate]);
  expect(made.id).toBe(candidate);
  await provider.delete(made.id, made.outs as never);
});

test("a pending create whose PUT never landed is settled without deleting anything", async () => {
  const search = unique();
  await sim.control.setFaults([
    { kind: "reset", method: "PUT", path: RULES, times: 1 },
    { kind: "500", method: "GET", path: RULES, skip: 1, times: 20 },
  ]);
  const err = await createFailure({ field: "name", search, enabled: true, adoptExisting: false });
  expect(err.id).toMatch(/^pending:/);
  await sim.control.clearFaults();
  await sim.control.resetStats();
  await provider.delete(err.id!, err.properties as never);
  const stats = await sim.control.stats();
  expect(Object.keys(stats.requests).filter((k) => k.startsWith("DELETE"))).toEqual([]);
  expect(await live(search)).toHaveLength(0);
});

test("a transient 500 on the reconciling list is tried again: no pending record, no duplicate", async () => {
  const search = unique();
  await sim.control.setFaults([
    { kind: "commit-drop", method: "PUT", path: RULES, times: 1 },
    { kind: "500", method: "GET", path: RULES, skip: 1, times: 2 },
  ]);
  const made = await provider.create({ field: "name", search, enabled: true, adoptExisting: false } as never);
  expect((await live(search)).map((r) => r.id)).toEqual([made.id]);
});

test("a gateway's HTML 404 on refresh is an error that keeps the rule, not 'gone'", async () => {
  const made = await provider.create({
    field: "name",
    search: unique(),
    enabled: true,
    adoptExisting: false,
  } as never);
  await sim.control.setFaults([{ kind: "html-404", method: "GET", path: RULES }]); // the list and the read
  await expect(provider.read(made.id, made.outs as never)).rejects.toMatchObject({
    code: "SECOPS_UNEXPECTED_STATUS",
    status: 404,
  });
  await sim.control.clearFaults();
  await sim.control.deleteRule(made.id);
  expect(await provider.read(made.id, made.outs as never)).toEqual({}); // the API's own 404: gone
});

test("Check names unknown inputs with the closest known name, and refuses oversized values", async () => {
  expect(await provider.check({}, { serach: "dc-*", field: "name" })).toEqual({
    inputs: { serach: "dc-*", field: "name" },
    failures: [
      { property: "serach", reason: "serach is not an input of HvaAutomationRule; did you mean search?" },
      { property: "search", reason: "search must be a non-empty string" },
    ],
  });
  const big = "x".repeat(5_000);
  expect((await provider.check({}, { field: "name", search: big })).failures).toEqual([
    { property: "search", reason: "search is 5000 characters long; the limit is 4096" },
  ]);
  expect(await provider.check({}, null as never)).toEqual({
    inputs: {},
    failures: [{ property: "", reason: "the inputs of HvaAutomationRule must be an object" }],
  });
  expect(
    await users.check({}, { directoryUserId: "du-1", needsChatopsWelcome: true, credentialsExposed: false }),
  ).toMatchObject({
    failures: [
      {
        property: "needsChatopsWelcome",
        reason:
          "needsChatopsWelcome is not an input of DirectoryUserSettings; did you mean needsChatOpsWelcome?",
      },
    ],
  });
  expect((await users.check({}, { directoryUserId: "%2E%2e", credentialsExposed: false })).failures).toEqual([
    {
      property: "directoryUserId",
      reason: "directoryUserId must not be . or .. (or decode to them): that would address another route",
    },
  ]);
});

test("a pending create keeps its journal entry when the provider's process is ending (its caller may never record the pending id), and only then", async () => {
  /** The create-intent files of a rule (this process's are never read back as left: count them). */
  const intents = (search: string) => {
    const key = createHash("sha256").update(`name\0${search}`).digest("hex").slice(0, 24);
    const folder = join(intentDir(), "team-acme", key);
    return existsSync(folder) ? readdirSync(folder).length : 0;
  };
  for (const stopping of [false, true]) {
    const search = unique();
    await sim.control.setFaults([
      { kind: "commit-drop", method: "PUT", path: RULES, times: 1 },
      { kind: "500", method: "GET", path: RULES, skip: 1, times: 20 },
    ]);
    const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
    const impl = new HvaAutomationRuleImpl({
      client: async () => client,
      warn: () => undefined,
      urn: () => `urn:pulumi:dev::p::secops:index:HvaAutomationRule::${search}`,
      stopping,
    });
    const inputs = { field: "name", search, enabled: true, adoptExisting: false };
    await expect(impl.create(inputs)).rejects.toMatchObject({ id: expect.stringMatching(/^pending:/) });
    await client.close();
    await sim.control.clearFaults();
    expect({ stopping, intents: intents(search) }).toEqual({ stopping, intents: stopping ? 1 : 0 });
  }
});
