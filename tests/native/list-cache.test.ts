/**
 * The plugin's rule-list cache under its own writes (issue 22): reads between updates are served from
 * one list, each showing the write before it; a delete removes the rule from the list; a write that
 * fails drops the list, so the next read lists again. Over gRPC against the simulator.
 */
import { NativePluginProcess, secret, type ProviderProcess } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";

const RULE = "urn:pulumi:dev::cache::secops:index:HvaAutomationRule::r";
const PROVIDER = "urn:pulumi:dev::cache::pulumi:providers:secops::team";
const LIST = "GET /endpoint/hva/automation";
const GET_ONE = "GET /endpoint/hva/automation/{id}";

let sim: Simulator;
let plugin: ProviderProcess;
beforeAll(async () => {
  sim = await createSimulator({ seed: 53 });
  plugin = await NativePluginProcess.start();
  const checked = await plugin.checkConfig(
    PROVIDER,
    {},
    { apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url },
  );
  await plugin.configure(checked.inputs, {});
});
afterAll(async () => {
  await plugin.close();
  await sim.close();
});

const requests = async () => (await sim.control.stats()).requests;

test("reads interleaved with updates list once, and each read shows the update before it", async () => {
  const made = await Promise.all(
    [1, 2, 3].map(async (n) => {
      const inputs = (await plugin.check(RULE, {}, { field: "name", search: `cache-${n}-*` })).inputs;
      return { inputs, ...(await plugin.create(RULE, inputs)) };
    }),
  );
  await sim.control.resetStats();
  for (let round = 0; round < 10; round++)
    for (const rule of made) {
      const enabled = round % 2 === 1;
      const news = { ...rule.inputs, enabled };
      const updated = await plugin.update(rule.id, RULE, rule.properties, news);
      expect(updated.properties.enabled).toBe(enabled);
      const read = await plugin.read(rule.id, RULE, updated.properties, news);
      expect({ id: read.id, enabled: read.properties.enabled }).toEqual({ id: rule.id, enabled });
      rule.properties = updated.properties;
    }
  const seen = await requests();
  expect(seen["PATCH /endpoint/hva/automation/{id}"]).toBe(30);
  // One list at most: the creates' Check may have listed already within the window (their writes applied to it).
  expect([seen[LIST] ?? 0, seen[GET_ONE] ?? 0]).toEqual([expect.any(Number), 0]);
  const lists = seen[LIST] ?? 0;
  expect(lists).toBeLessThanOrEqual(1);
  // The API agrees with every read.
  const live = (await sim.control.state()).rules.filter((r) => made.some((m) => m.id === r.id));
  expect(live.map((r) => r.enabled)).toEqual([true, true, true]);

  // A delete takes the rule out of the list: its read says gone, without a new list or a GET.
  await plugin.delete(made[0].id, RULE, made[0].properties);
  expect(await plugin.read(made[0].id, RULE, made[0].properties, made[0].inputs)).toEqual({
    id: "",
    properties: {},
    inputs: {},
  });
  expect((await requests())[LIST] ?? 0).toBe(lists);

  // A write that fails leaves its outcome unknown: the list is dropped and the next read lists again.
  await sim.control.setFaults([
    { kind: "500", method: "PATCH", path: "/endpoint/hva/automation/", times: 20 },
  ]);
  const rule = made[1];
  await expect(
    plugin.update(rule.id, RULE, rule.properties, { ...rule.inputs, enabled: false }),
  ).rejects.toThrow();
  await sim.control.clearFaults();
  const read = await plugin.read(rule.id, RULE, rule.properties, rule.inputs);
  expect(read.properties.enabled).toBe(true);
  expect((await requests())[LIST]).toBe(lists + 1);
  for (const m of made.slice(1)) await plugin.delete(m.id, RULE, m.properties);
});
