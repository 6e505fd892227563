/** Data-source functions and their Output twins, against the simulator. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "pulumi-secops";
import { linkPackage } from "../rig";
import { ROOT, built, run, RIG } from "../helpers/spawn";
import { createSimulator, type Simulator } from "secops-sim";
import { installMocks, valueOf } from "../helpers/mocks";
import * as pulumiSdk from "@pulumi/pulumi";

let sim: Simulator;
let opts: { apiKey: string; baseUrl: string };
beforeAll(async () => {
  sim = await createSimulator({ seed: 31, bigCase: 1234 });
  opts = { apiKey: sim.apiKeys.admin, baseUrl: sim.url };
  await installMocks();
});
afterAll(async () => {
  await pulumi.closeSharedClients();
  await sim.close();
});

test("getIdentity with explicit options, and from stack config", async () => {
  expect(await pulumi.getIdentity(opts)).toMatchObject({ role: "ADMIN", teamId: "team-acme" });
  pulumiSdk.runtime.setConfig("secops:apiKey", sim.apiKeys.viewer);
  pulumiSdk.runtime.setConfig("secops:baseUrl", sim.url);
  expect((await pulumi.getIdentity()).role).toBe("VIEWER");
  // explicit beats stack config
  expect((await pulumi.getIdentity({ apiKey: sim.apiKeys.analyst })).role).toBe("ANALYST");
  expect((await valueOf(pulumi.getIdentityOutput())).role).toBe("VIEWER");
});

test("getIntegrationCount: the server applies each filter (exact bodies: tests/unit/client-requests)", async () => {
  await sim.control.resetStats();
  const healthy = await pulumi.getIntegrationCount(
    { healthStatus: ["healthy"], includeDisabled: true },
    opts,
  );
  const all = await pulumi.getIntegrationCount({ includeDisabled: true }, opts);
  expect(all).toEqual({ totalCount: 40 });
  expect(healthy.totalCount).toBe(10);
  expect(
    await pulumi.getIntegrationCount(
      { ids: ["int-team-acme-001"], includeDisabled: true, integrationTypes: ["collaboration"] },
      opts,
    ),
  ).toEqual({ totalCount: 1 });
  expect(
    await pulumi.getIntegrationCount(
      { ids: ["int-team-acme-001"], includeDisabled: true, integrationTypes: ["endpoint"] },
      opts,
    ),
  ).toEqual({ totalCount: 0 });
  const out = pulumi.getIntegrationCountOutput(
    { healthStatus: pulumiSdk.output(["unhealthy" as const]) as never, includeDisabled: true },
    opts,
  );
  expect(await valueOf(out)).toEqual({ totalCount: 10 });
  expect((await sim.control.stats()).requests["POST /v1/integration/count"]).toBe(5);
});

test("invalid arguments fail before any request, naming the argument", async () => {
  await sim.control.resetStats();
  await expect(pulumi.getIntegrationCount({ healthStatus: ["sick" as never] }, opts)).rejects.toMatchObject({
    code: "SECOPS_INVALID_INPUT",
    field: "filter.healthStatus[0]",
  });
  await expect(pulumi.getCaseThreatIndicators({ caseId: "" }, opts)).rejects.toMatchObject({
    code: "SECOPS_INVALID_INPUT",
    field: "caseId",
  });
  await expect(
    pulumi.getCaseThreatIndicators({ caseId: "c", sortDirection: "up" as never }, opts),
  ).rejects.toMatchObject({ code: "SECOPS_INVALID_INPUT", field: "options.sortDirection" });
  expect((await sim.control.stats()).requests).toEqual({});
});

test("getCaseThreatIndicators: a big case, several pages, each indicator exactly once, in order", async () => {
  const asc = await pulumi.getCaseThreatIndicators({ caseId: "case-big", sortDirection: "asc" }, opts);
  expect(asc.totalCount).toBe(1234);
  expect(asc.indicators).toHaveLength(1234);
  expect(new Set(asc.indicators.map((d) => d.id)).size).toBe(1234);
  const times = asc.indicators.map((d) => d.createdAt!);
  expect(times).toEqual([...times].sort());
  const desc = await valueOf(
    pulumi.getCaseThreatIndicatorsOutput({ caseId: pulumiSdk.output("case-003") }, opts),
  );
  expect(desc).toMatchObject({ caseId: "case-003", sortDirection: "desc", totalCount: 9 });
  const dt = desc.indicators.map((d) => d.createdAt!);
  expect(dt).toEqual([...dt].sort().reverse());
});

test("a server that stops making progress fails instead of returning a subset", async () => {
  const strict = await createSimulator({ strictSpec: true, bigCase: 300 });
  await expect(
    pulumi.getCaseThreatIndicators(
      { caseId: "case-big" },
      { apiKey: strict.apiKeys.admin, baseUrl: strict.url },
    ),
  ).rejects.toMatchObject({
    code: "SECOPS_INCOMPLETE",
    message: expect.stringContaining("with 50 of 300 indicators"),
  });
  await strict.close();
});

test("many calls share one client and a bounded pool", async () => {
  await sim.control.resetStats();
  await Promise.all(Array.from({ length: 100 }, () => pulumi.getIntegrationCount({}, opts)));
  const stats = await sim.control.stats();
  expect(stats.requests["POST /v1/integration/count"]).toBe(100);
  expect(stats.socketsOpened).toBeLessThanOrEqual(8);
});

test("Output twins stay unknown during preview with unknown inputs, and never call the API", async () => {
  await installMocks();
  await sim.control.resetStats();
  const unknown = pulumiSdk.Output.create(undefined as unknown as string).apply(
    () => pulumiSdk.unknown as unknown as string,
  );
  const out = pulumi.getCaseThreatIndicatorsOutput({ caseId: unknown }, opts);
  expect(await (out as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
  expect((await sim.control.stats()).requests).toEqual({});
});

test("a configuration error is a rejected promise, never a synchronous throw", async () => {
  const calls = [
    () => pulumi.getIdentity({ apiKey: "" }),
    () => pulumi.getIntegrationCount({}, { baseUrl: 5 as never }),
    () => pulumi.getCaseThreatIndicators({ caseId: "case-001" }, { apikey: "x" } as never),
  ];
  for (const call of calls) {
    let promise: Promise<unknown> | undefined;
    expect(() => (promise = call())).not.toThrow();
    await expect(promise).rejects.toMatchObject({ code: "SECOPS_INVALID_INPUT" });
  }
});

test("every field of an Output twin's arguments may be an Output", async () => {
  const count = pulumi.getIntegrationCountOutput(
    { search: pulumiSdk.output("okta"), includeDisabled: pulumiSdk.output(true) },
    { apiKey: pulumiSdk.secret(opts.apiKey), baseUrl: pulumiSdk.output(opts.baseUrl) },
  );
  const direct = await pulumi.getIntegrationCount({ search: "okta", includeDisabled: true }, opts);
  expect(await valueOf(count)).toEqual(direct);
  const page = pulumi.getCaseThreatIndicatorsOutput({ caseId: pulumiSdk.output("case-002") }, opts);
  expect((await valueOf(page)).caseId).toBe("case-002");
});

test("issue 32: a too-short key read through getIdentityOutput shows the key's own message, dynamic and native", async () => {
  expect.assertions(3);
  built("index.js");
  const dir = mkdtempSync(join(tmpdir(), "secops-short-key-"));
  try {
    linkPackage(dir, ROOT);
    writeFileSync(join(dir, "Pulumi.yaml"), "name: short\nruntime: nodejs\n");
    // The program a new user wrote: the package-root function (stack config), and the native one
    // through an explicit provider.
    writeFileSync(
      join(dir, "dynamic.js"),
      `exports.identities = require("pulumi-secops").getIdentityOutput();\n`,
    );
    writeFileSync(
      join(dir, "native.js"),
      `const native = require("pulumi-secops/native");
const client1 = new native.Provider("client1", { apiKey: "short", baseUrl: process.env.SIM_URL });
exports.identities = native.getIdentityOutput({ provider: client1 });
`,
    );
    writeFileSync(
      join(dir, "run.js"),
      `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
(async () => {
  const out = [];
  for (const program of ["dynamic.js", "native.js"]) {
    const r = new LifecycleRunner({ program: __dirname + "/" + program, programDir: __dirname,
      statePath: __dirname + "/" + program + ".state.json",
      config: { "secops:apiKey": "short", "secops:baseUrl": process.env.SIM_URL } });
    try { await r.preview(); out.push("previewed"); } catch (e) { out.push(e.message); }
    await r.close();
  }
  console.log(JSON.stringify(out));
})();
`,
    );
    await sim.control.resetStats();
    const ran = await run(join(dir, "run.js"), [], { SIM_URL: sim.url });
    expect(ran.stderr).toBe("");
    expect(JSON.parse(ran.stdout)).toEqual([
      "the program failed: output identities: apiKey is too short to be an API key (at least 8 characters)",
      // The native provider's CheckConfig names it first; the runner reports it for the invoke.
      "the program failed: output identities: Invoke of 'secops:index:getIdentity' failed: " +
        "provider urn:pulumi:dev::short::pulumi:providers:secops::client1: apiKey: " +
        'the secops provider "client1": apiKey is too short to be an API key (at least 8 characters)',
    ]);
    expect((await sim.control.stats()).requests).toEqual({});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
