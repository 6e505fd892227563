/**
 * The native SDK's front door (issue 32): an argument name `Provider`, a resource or an invoke does not
 * know is refused at construction (at the call, for invokes), naming the closest known one, before
 * anything reaches the engine; a missing required input names the resource. Under Pulumi's mocks, and
 * in a JavaScript program run by the offline runner in plain Node (no type-checking to catch the typo)
 * with another team's key in the environment: nothing is created in any team.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as native from "pulumi-secops/native";
import { linkPackage } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";
import { allRegistered } from "../helpers/mocks";
import { ROOT, built, run, RIG } from "../helpers/spawn";

built("index.js");
built("plugin/pulumi-resource-secops.js");

interface Spec {
  inputProperties?: Record<string, unknown>;
  requiredInputs?: string[];
  inputs?: { properties?: Record<string, unknown> };
}
const schema = JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")) as {
  provider: Spec;
  resources: Record<string, Spec>;
  functions: Record<string, Spec>;
};
const exported = native as unknown as Record<string, unknown>;
const nameOf = (token: string) => token.split(":")[2];

/** What reached the engine: registrations and invokes. */
const reached: string[] = [];
let sim: Simulator;
let dir: string;
beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        reached.push(`${args.type}::${args.name}`);
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => {
        reached.push(args.token);
        return {};
      },
    },
    "project",
    "stack",
    true,
  );
  sim = await createSimulator({ seed: 32 });
  dir = mkdtempSync(join(tmpdir(), "secops-front-door-"));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("under mocks", () => {
  beforeEach(() => void (reached.length = 0));

  test("Provider: a misspelt apiKey is refused with the closest name; nothing is registered", () => {
    expect.assertions(3);
    expect(() => new native.Provider("client1", { apikey: "simkey_x" } as never)).toThrow(
      new Error(
        'secops.Provider "client1": apikey is not an argument of secops.Provider; did you mean apiKey?',
      ),
    );
    expect(() => new native.Provider("client1", { baseURL: "https://x.example.com" } as never)).toThrow(
      new Error(
        'secops.Provider "client1": baseURL is not an argument of secops.Provider; did you mean baseUrl?',
      ),
    );
    expect(reached).toEqual([]);
  });

  test("resources: an unknown name is refused first; a missing required input names the resource", () => {
    expect.assertions(6);
    const rule = (args: object) => () => new native.HvaAutomationRule("dc", args as never);
    expect(rule({ field: "name", search: "dc-*", enabeld: false })).toThrow(
      new Error(
        'secops.HvaAutomationRule "dc": enabeld is not an argument of secops.HvaAutomationRule; did you mean enabled?',
      ),
    );
    // The misspelt required input is named as the typo it is, not as a missing `search`.
    expect(rule({ field: "name", serch: "dc-*" })).toThrow(
      new Error(
        'secops.HvaAutomationRule "dc": serch is not an argument of secops.HvaAutomationRule; did you mean search?',
      ),
    );
    expect(rule({ field: "name" })).toThrow(
      new Error(`Missing required property 'search' of secops.HvaAutomationRule "dc"`),
    );
    expect(
      () =>
        new native.DirectoryUserSettings("ada", {
          directoryUserId: "du-1",
          credentialExposed: true,
        } as never),
    ).toThrow(
      new Error(
        'secops.DirectoryUserSettings "ada": credentialExposed is not an argument of secops.DirectoryUserSettings; did you mean credentialsExposed?',
      ),
    );
    expect(() => new native.DirectoryUserSettings("ada", {} as never)).toThrow(
      new Error(`Missing required property 'directoryUserId' of secops.DirectoryUserSettings "ada"`),
    );
    expect(reached).toEqual([]);
  });

  test("invokes: an unknown argument is refused at the call, and so is a key given as an option", () => {
    expect.assertions(6);
    expect(() => native.getIntegrationCount({ includeDisable: true } as never)).toThrow(
      new Error(
        "includeDisable is not an argument of secops.getIntegrationCount; did you mean includeDisabled?",
      ),
    );
    expect(() => native.getIntegrationCountOutput({ helthStatus: ["healthy"] } as never)).toThrow(
      new Error(
        "helthStatus is not an argument of secops.getIntegrationCountOutput; did you mean healthStatus?",
      ),
    );
    expect(() => native.getCaseThreatIndicators({ caseId: "c", sortDirecton: "asc" } as never)).toThrow(
      new Error(
        "sortDirecton is not an argument of secops.getCaseThreatIndicators; did you mean sortDirection?",
      ),
    );
    expect(() => native.getCaseThreatIndicatorsOutput({ caseID: "c" } as never)).toThrow(
      new Error("caseID is not an argument of secops.getCaseThreatIndicatorsOutput; did you mean caseId?"),
    );
    // The package-root functions take { apiKey, baseUrl } where these take invoke options.
    expect(() => native.getIdentity({ apiKey: "simkey_x" } as never)).toThrow(
      new Error(
        "apiKey is not an option of secops.getIdentity: a native function uses the apiKey of its provider (pass { provider })",
      ),
    );
    expect(reached).toEqual([]);
  });

  test("every name the schema declares is accepted, for the provider, each resource and each function", async () => {
    const all = (spec: Spec, props = spec.inputProperties ?? {}) =>
      Object.fromEntries(
        Object.keys(props).map((k) => [k, k === "baseUrl" ? "https://api.example.com" : "x"]),
      );
    const provider = new native.Provider("all", all(schema.provider));
    const made: Array<pulumi.Resource | pulumi.Output<unknown>> = [provider];
    for (const token of Object.keys(schema.resources)) {
      const cls = exported[nameOf(token)] as new (n: string, a: object, o: object) => pulumi.CustomResource;
      made.push(new cls(`all-${nameOf(token)}`, all(schema.resources[token]), { provider }));
    }
    for (const token of Object.keys(schema.functions)) {
      const args = all(schema.functions[token], schema.functions[token].inputs?.properties);
      const fn = exported[nameOf(token)] as (a: object, o: object) => Promise<unknown>;
      const fnOutput = exported[`${nameOf(token)}Output`] as (a: object, o: object) => pulumi.Output<unknown>;
      if (nameOf(token) === "getIdentity") {
        await (fn as unknown as (o: object) => Promise<unknown>)({ provider });
        made.push((fnOutput as unknown as (o: object) => pulumi.Output<unknown>)({ provider }));
      } else {
        await fn(args, { provider });
        made.push(fnOutput(args, { provider }));
      }
    }
    await allRegistered(...made);
    expect(reached).toEqual(
      expect.arrayContaining([
        "pulumi:providers:secops::all",
        ...Object.keys(schema.resources).map((t) => `${t}::all-${nameOf(t)}`),
        ...Object.keys(schema.functions),
      ]),
    );
  });
});

/** How many rules each team has (the API's state, every team). */
async function rulesPerTeam(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of (await sim.control.state()).rules)
    counts[String(r.teamId)] = (counts[String(r.teamId)] ?? 0) + 1;
  return counts;
}

/** A JavaScript program and a run.js that previews and ups it with the runner in plain Node. */
function program(name: string, source: string): string {
  const prog = join(dir, name);
  mkdirSync(prog);
  linkPackage(prog, ROOT);
  writeFileSync(join(prog, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
  writeFileSync(join(prog, "index.js"), source);
  writeFileSync(
    join(prog, "run.js"),
    `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
(async () => {
  const r = new LifecycleRunner({ program: __dirname + "/index.js", programDir: __dirname,
    statePath: __dirname + "/state.json", config: {} });
  const results = [];
  for (const step of ["preview", "up"]) {
    try {
      results.push({ step, ops: (await r[step]()).map((s) => s.op + " " + s.name + " " + s.ok) });
    } catch (e) {
      results.push({ step, error: e.message });
    }
  }
  await r.close();
  console.log(JSON.stringify(results));
})();
`,
  );
  return join(prog, "run.js");
}

test("a JavaScript program: a misspelt apikey or enabled fails preview and up, with another team's key in the environment", async () => {
  expect.assertions(4);
  const providers = `const native = require("pulumi-secops/native");
const url = process.env.SIM_URL;
`;
  const apikey = program(
    "apikey",
    `${providers}const client1 = new native.Provider("client1", { apikey: process.env.KEY1, baseUrl: url });
new native.HvaAutomationRule("dc", { field: "name", search: "front-door-dc-*" }, { provider: client1 });
`,
  );
  const enabeld = program(
    "enabeld",
    `${providers}const client1 = new native.Provider("client1", { apiKey: process.env.KEY1, baseUrl: url });
new native.HvaAutomationRule("dc", { field: "name", search: "front-door-dc-*", enabeld: false }, { provider: client1 });
`,
  );
  const env = {
    SIM_URL: sim.url,
    KEY1: sim.apiKeys.client1Admin,
    SECOPS_API_KEY: sim.apiKeys.client2Admin,
    SECOPS_BASE_URL: sim.url,
  };
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  const results = await Promise.all([apikey, enabeld].map((f) => run(f, [], env)));
  const errors = (m: string) => [
    { step: "preview", error: m },
    { step: "up", error: m },
  ];
  expect(results.map((r) => r.stderr)).toEqual(["", ""]);
  expect(results.map((r) => JSON.parse(r.stdout))).toEqual([
    errors('secops.Provider "client1": apikey is not an argument of secops.Provider; did you mean apiKey?'),
    errors(
      'secops.HvaAutomationRule "dc": enabeld is not an argument of secops.HvaAutomationRule; did you mean enabled?',
    ),
  ]);
  expect((await sim.control.stats()).requests).toEqual({});
  expect(await rulesPerTeam()).toEqual(before);
}, 60_000);
