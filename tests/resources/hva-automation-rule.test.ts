/** HvaAutomationRule implementation, by direct calls, against the simulator in both modes. */
import {
  HvaAutomationRuleImpl,
  provider as implementation,
} from "pulumi-secops/resources/hva-automation-rule";
import { dynamicImplementation } from "../../provider/resources/framework/shim-target";
import { createSimulator, type Simulator } from "secops-sim";
import { captureWarnings, configureRequest, asHost } from "../helpers/provider";
const provider = asHost(implementation);

type Outs = { field: string; search: string; enabled: boolean; teamId: string };

let sim: Simulator;
let warnings: string[];
let n = 0;
const unique = () => `host-${++n}-*`;

async function configure(s: Simulator) {
  await provider.configure(configureRequest({ "secops:apiKey": s.apiKeys.admin, "secops:baseUrl": s.url }));
}
/**
 * The provider of the next Pulumi command: each command starts its own host process, whose rule-list
 * cache starts empty (within one process, the list serves reads for its window, with this process's
 * own writes applied to it).
 */
async function nextCommand(s: Simulator) {
  const next = asHost(dynamicImplementation((ctx) => new HvaAutomationRuleImpl(ctx)));
  await next.configure(configureRequest({ "secops:apiKey": s.apiKeys.admin, "secops:baseUrl": s.url }));
  return next;
}
const rules = async (search: string) => (await sim.control.state()).rules.filter((r) => r.search === search);

beforeEach(() => {
  warnings = captureWarnings();
});
afterEach(() => jest.restoreAllMocks());

describe("assumed routes available", () => {
  beforeAll(async () => {
    sim = await createSimulator({ seed: 11 });
    await configure(sim);
  });
  afterAll(() => sim.close());
  afterEach(() => sim.control.clearFaults());

  test("check: one failure per bad property, defaults applied, preview unknowns tolerated", async () => {
    expect(await provider.check({}, { field: "", search: 5, enabled: "yes", adoptExisting: 1 })).toEqual({
      inputs: { field: "", search: 5, enabled: "yes", adoptExisting: 1 },
      failures: [
        { property: "field", reason: "field must be a non-empty string" },
        { property: "search", reason: "search must be a non-empty string" },
        { property: "enabled", reason: "enabled must be a boolean" },
        { property: "adoptExisting", reason: "adoptExisting must be a boolean" },
      ],
    });
    expect(await provider.check({}, { field: "name", search: "x" })).toEqual({
      inputs: { field: "name", search: "x", enabled: true, adoptExisting: false },
    });
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    expect((await provider.check({}, { field: unknown, search: unknown })).failures).toBeUndefined();
  });

  test("lifecycle: create, read, update, replace decision, delete", async () => {
    const search = unique();
    const inputs = { field: "name", search, enabled: false, adoptExisting: false };
    const before = Date.now();
    const created = await provider.create(inputs);
    // Created disabled: disabledAt records when (the policy pack's secops-disabled-rule-age reads it).
    const { disabledAt, ...plain } = created.outs as Outs & { disabledAt?: string };
    expect(plain).toEqual({ field: "name", search, enabled: false, teamId: "team-acme" });
    expect(Date.parse(disabledAt!)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(disabledAt!)).toBeLessThanOrEqual(Date.now());
    expect(await rules(search)).toEqual([
      { id: created.id, teamId: "team-acme", enabled: false, searchField: "name", search },
    ]);
    const outs = created.outs as Outs;

    expect(await provider.read(created.id, outs)).toEqual({ id: created.id, props: outs });
    expect(await provider.diff(created.id, outs, inputs)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const enable = { ...inputs, enabled: true };
    expect(await provider.diff(created.id, outs, enable)).toMatchObject({ changes: true, replaces: [] });
    const updated = await provider.update(created.id, outs, enable);
    expect(updated.outs).toEqual({ ...plain, enabled: true }); // enabled: no disabledAt
    // Disabled again by an update: a new disabledAt; a refresh keeps it while the rule stays disabled.
    const again = await provider.update(created.id, updated.outs as Outs, inputs);
    const since = (again.outs as { disabledAt?: string }).disabledAt;
    expect(Date.parse(since!)).toBeGreaterThanOrEqual(Date.parse(disabledAt!));
    expect((await provider.read(created.id, again.outs as Outs)).props).toEqual(again.outs);
    await provider.update(created.id, again.outs as Outs, enable);
    expect((await rules(search))[0].enabled).toBe(true);
    expect(await provider.diff(created.id, updated.outs, { ...enable, search: "other" })).toMatchObject({
      changes: true,
      replaces: ["search"],
    });
    expect(await provider.diff(created.id, updated.outs, { ...enable, field: "hostname" })).toMatchObject({
      changes: true,
      replaces: ["field"],
    });

    await provider.delete(created.id, updated.outs);
    expect(await rules(search)).toEqual([]);
    await expect(provider.delete(created.id, updated.outs)).resolves.toBeUndefined(); // 404 means done
  });

  test("deleted out of band: refresh drops it, the next up recreates it", async () => {
    const search = unique();
    const inputs = { field: "name", search, enabled: true, adoptExisting: false };
    const { id, outs } = await provider.create(inputs);
    await sim.control.deleteRule(id);
    const next = await nextCommand(sim);
    expect(await next.read(id, outs)).toEqual({});
    const again = await next.create(inputs);
    expect(again.id).not.toBe(id);
    expect((await rules(search)).map((r) => r.id)).toEqual([again.id]);
  });

  test("disabled out of band: refresh shows it, up re-enables it", async () => {
    const search = unique();
    const inputs = { field: "name", search, enabled: true, adoptExisting: false };
    const { id, outs } = await provider.create(inputs);
    await sim.control.patchRule(id, { enabled: false });
    const next = await nextCommand(sim);
    const refreshed = await next.read(id, outs);
    expect(refreshed.props).toMatchObject({ enabled: false });
    const diff = await next.diff(id, refreshed.props, inputs);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    expect((await next.update(id, refreshed.props, inputs)).outs).toMatchObject({ enabled: true });
    expect((await rules(search))[0].enabled).toBe(true);
  });

  test("drifted search shows up on refresh and asks for a replacement", async () => {
    const search = unique();
    const inputs = { field: "name", search, enabled: true, adoptExisting: false };
    const { id, outs } = await provider.create(inputs);
    await sim.control.patchRule(id, { search: "changed-by-hand" });
    const next = await nextCommand(sim);
    const refreshed = await next.read(id, outs);
    expect(refreshed.props).toMatchObject({ search: "changed-by-hand" });
    expect(await next.diff(id, refreshed.props, inputs)).toMatchObject({
      changes: true,
      replaces: ["search"],
    });
  });

  test("a PATCH failure after the PUT is a partial failure carrying the id (tracked, not orphaned)", async () => {
    expect.assertions(5);
    const search = unique();
    await sim.control.setFaults([
      { kind: "500", method: "PATCH", path: "/endpoint/hva/automation/", times: 1 },
    ]);
    const inputs = { field: "name", search, enabled: false, adoptExisting: false, __provider: "serialized" };
    await provider.create(inputs).catch((e) => {
      const [rule] = e.id ? [e.id] : [];
      expect(e.id).toMatch(/^hva-/);
      expect(e.properties).toEqual({
        field: "name",
        search,
        enabled: true,
        teamId: "team-acme",
        __provider: "serialized",
      });
      // The engine prints the reasons: each says what was recorded, and why.
      const message = `HVA rule ${rule} was created but setting enabled=false failed: PATCH /endpoint/hva/automation/${rule} failed (500): Service unavailable (injected)`;
      expect(e.reasons).toEqual([message]);
      expect(e.message).toBe(message);
    });
    expect((await rules(search)).length).toBe(1);
  });

  test.each(["commit-drop", "reset", "502"])(
    "an ambiguous PUT (%s) ends with exactly one rule",
    async (kind) => {
      const search = unique();
      await sim.control.setFaults([{ kind: kind as never, method: "PUT", times: 1 }]);
      const { id } = await provider.create({ field: "name", search, enabled: true, adoptExisting: false });
      expect((await rules(search)).map((r) => r.id)).toEqual([id]);
      const stats = await sim.control.stats();
      expect(stats.faultsInjected[kind]).toBeGreaterThanOrEqual(1);
    },
  );

  test("adoptExisting takes over an identical rule instead of making a second one", async () => {
    const search = unique();
    const client = await (async () => {
      const { SecOpsClient } = await import("pulumi-secops");
      return new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
    })();
    const existing = await client.createHvaRule({ field: "name", search });
    const adopted = await provider.create({ field: "name", search, enabled: false, adoptExisting: true });
    expect(adopted.id).toBe(existing.id);
    expect(await rules(search)).toEqual([expect.objectContaining({ id: existing.id, enabled: false })]);
    const fresh = await provider.create({
      field: "name",
      search: unique(),
      enabled: true,
      adoptExisting: true,
    });
    expect(fresh.id).not.toBe(existing.id);
    await client.close();
  });

  test("the shared shim function routes each host call shape", async () => {
    const calls: string[] = [];
    const rec =
      (name: string) =>
      async (...a: unknown[]) =>
        void calls.push(`${name}:${a.length}`);
    const bound = dynamicImplementation(
      () =>
        ({
          check: rec("check"),
          create: rec("create"),
          read: rec("read"),
          diff: rec("diff"),
          update: rec("update"),
          delete: rec("delete"),
        }) as never,
    );
    bound.configure = rec("configure");
    await bound.route(configureRequest({}));
    await bound.route({ field: "name" });
    await bound.route("id-1", { field: "name" });
    await bound.route({}, { field: "name" });
    // check also gets the URN the dynamic classes send (undefined here): see resources/framework/declarations.ts.
    expect(calls).toEqual(["configure:1", "create:1", "read:2", "check:3"]);
  });
});

describe("strict-spec: no list, read or delete routes", () => {
  beforeAll(async () => {
    sim = await createSimulator({ seed: 12, strictSpec: true });
    await configure(sim);
  });
  afterAll(() => sim.close());
  afterEach(() => sim.control.clearFaults());

  test("create and update work; read keeps state and warns once; delete disables and warns", async () => {
    const search = unique();
    const inputs = { field: "name", search, enabled: true, adoptExisting: false };
    const { id, outs } = await provider.create(inputs);
    expect(await provider.read(id, outs)).toEqual({ id, props: outs });
    expect(await provider.read(id, outs)).toEqual({ id, props: outs });
    expect(warnings).toEqual([
      "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
    ]);
    await provider.delete(id, outs);
    expect(await rules(search)).toEqual([expect.objectContaining({ id, enabled: false })]);
    expect(warnings[1]).toBe(
      `secops: the API offers no route to delete HVA rules; rule ${id} was disabled, not deleted`,
    );
  });

  test("adoptExisting fails clearly: the API cannot list rules", async () => {
    await expect(
      provider.create({ field: "name", search: unique(), enabled: true, adoptExisting: true }),
    ).rejects.toMatchObject({
      code: "SECOPS_UNSUPPORTED",
      message: expect.stringMatching(
        /^adoptExisting looks for an identical rule, but this API offers no way to list rules/,
      ),
    });
  });

  test("an ambiguous PUT cannot be reconciled: recorded as pending, never a blind second PUT", async () => {
    const search = unique();
    await sim.control.setFaults([{ kind: "commit-drop", method: "PUT", times: 1 }]);
    await expect(
      provider.create({ field: "name", search, enabled: true, adoptExisting: false }),
    ).rejects.toMatchObject({
      id: expect.stringMatching(/^pending:/),
      message: expect.stringContaining(
        "creating it had an unknown outcome and this API offers no list to check for it",
      ),
    });
    expect((await rules(search)).length).toBe(1); // the one the dropped PUT made; no duplicate
  });
});

describe("configuration", () => {
  test("missing credentials: an error naming both ways to set them", async () => {
    const saved = { ...process.env };
    delete process.env.SECOPS_API_KEY;
    delete process.env.SECOPS_BASE_URL;
    await provider.configure(configureRequest({}));
    await expect(
      provider.create({ field: "name", search: "x", enabled: true, adoptExisting: false }),
    ).rejects.toMatchObject({
      code: "SECOPS_CONFIG",
      message:
        "secops: no API key configured: set it with `pulumi config set --secret secops:apiKey <key>` or the SECOPS_API_KEY environment variable",
    });
    // Said once at configure, so a preview without a key does not pass silently (issue 23 point 3).
    expect(warnings).toEqual([
      "secops: no API key configured: set it with `pulumi config set --secret secops:apiKey <key>` or the SECOPS_API_KEY environment variable. Preview plans the resources without reading the API (a data source needs it); up will fail before sending any request",
    ]);
    process.env = saved;
  });

  test("environment fallback, and concurrent first calls share one configuration", async () => {
    const s = await createSimulator({ seed: 13 });
    const saved = { ...process.env };
    process.env.SECOPS_API_KEY = s.apiKeys.analyst;
    process.env.SECOPS_BASE_URL = s.url;
    await provider.configure(configureRequest({}));
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        provider.create({ field: "name", search: `env-${i}`, enabled: true, adoptExisting: false }),
      ),
    );
    expect(new Set(made.map((m) => m.id)).size).toBe(20);
    process.env = saved;
    await s.close();
  });
});
