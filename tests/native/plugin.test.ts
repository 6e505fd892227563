/**
 * The native plugin spawned as a process and driven over gRPC in the engine's order for a
 * `pulumi up` (GetPluginInfo, CheckConfig, DiffConfig, Configure, Check, Diff, Create, Read, Update,
 * Delete, Invoke), against the simulator.
 */
import { NativePluginProcess, secret, type ProviderProcess } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";
import { VERSION } from "pulumi-secops";
import { proto, toStruct } from "../../provider/native/plugin/proto";
import { startFakeEngine, type FakeEngine } from "../helpers/engine";
import { built } from "../helpers/spawn";

built("native/plugin/main.js");
const RULE = "urn:pulumi:dev::native::secops:index:HvaAutomationRule::dc";
const USER = "urn:pulumi:dev::native::secops:index:DirectoryUserSettings::ada";
const PROVIDER = "urn:pulumi:dev::native::pulumi:providers:secops::team";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

let sim: Simulator;
let engine: FakeEngine;
const plugins: ProviderProcess[] = [];

/** Starts a plugin and takes it through CheckConfig, DiffConfig and Configure as the engine does. */
async function configured(
  apiKey: string,
  url = sim.url,
  engineAddress = engine.address,
): Promise<ProviderProcess> {
  const plugin = await NativePluginProcess.start({ engineAddress });
  plugins.push(plugin);
  const news = { apiKey: secret(apiKey), baseUrl: url };
  const checked = await plugin.checkConfig(PROVIDER, {}, news);
  expect(checked.failures).toEqual([]);
  expect((await plugin.diffConfig(PROVIDER, checked.inputs, checked.inputs)).changes).toBe(false);
  await plugin.configure(checked.inputs, {});
  return plugin;
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 41 });
  engine = await startFakeEngine();
});
afterEach(async () => {
  await Promise.all(plugins.splice(0).map((p) => p.close()));
  await sim.control.clearFaults();
});
afterAll(async () => {
  await engine.close();
  await sim.close();
});

test("GetPluginInfo answers the package version; GetSchema the package schema", async () => {
  const plugin = await NativePluginProcess.start();
  plugins.push(plugin);
  expect(await plugin.getPluginInfo()).toBe(VERSION);
  const schema = JSON.parse(await plugin.getSchema());
  expect(schema.name).toBe("secops");
  expect(Object.keys(schema.resources).sort()).toEqual([
    "secops:index:DirectoryUserSettings",
    "secops:index:HvaAutomationRule",
  ]);
});

test("CheckConfig names each bad property without any request; the key stays secret", async () => {
  const plugin = await NativePluginProcess.start();
  plugins.push(plugin);
  await sim.control.resetStats();
  const checked = await plugin.checkConfig(
    PROVIDER,
    {},
    {
      apiKey: "short",
      baseUrl: "http://api.example.com",
      baseURL: "https://x.example.com",
    },
  );
  expect(checked.failures).toEqual([
    {
      property: "baseURL",
      reason: 'baseURL is not a setting of the secops provider "team"; did you mean baseUrl?',
    },
    {
      property: "apiKey",
      reason: 'the secops provider "team": apiKey is too short to be an API key (at least 8 characters)',
    },
    {
      property: "baseUrl",
      reason:
        'the secops provider "team": baseUrl must be an https URL (plain http is allowed only for loopback hosts)',
    },
  ]);
  // A key that arrived plain comes back as a secret.
  expect(checked.inputs.apiKey).toEqual(secret("short"));
  expect(Object.keys((await sim.control.stats()).requests)).toEqual([]);
});

test("DiffConfig: a new key is an update of the provider, never a replacement", async () => {
  const plugin = await NativePluginProcess.start();
  plugins.push(plugin);
  const diff = await plugin.diffConfig(
    PROVIDER,
    { apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url },
    { apiKey: secret(sim.apiKeys.analyst), baseUrl: sim.url },
  );
  expect(diff).toEqual({
    changes: true,
    replaces: [],
    deleteBeforeReplace: false,
    detailedDiff: { apiKey: "UPDATE" },
  });
});

test("HvaAutomationRule: preview creates nothing; create, read, detailed diff, update, delete", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  const checked = await plugin.check(RULE, {}, { field: "name", search: "native-*" });
  expect(checked).toEqual({
    inputs: { field: "name", search: "native-*", enabled: true, adoptExisting: false },
    failures: [],
  });
  await sim.control.resetStats();
  const preview = await plugin.create(RULE, checked.inputs, true);
  expect(preview).toEqual({
    id: "",
    properties: { field: "name", search: "native-*", enabled: true, teamId: UNKNOWN, disabledAt: UNKNOWN },
  });
  expect((await sim.control.stats()).requests).toEqual({});

  const made = await plugin.create(RULE, checked.inputs);
  expect(made.properties).toEqual({ field: "name", search: "native-*", enabled: true, teamId: "team-acme" });
  const live = (await sim.control.state()).rules.find((r) => r.id === made.id);
  expect(live).toMatchObject({ searchField: "name", search: "native-*", enabled: true });

  const read = await plugin.read(made.id, RULE, made.properties, checked.inputs);
  expect(read).toEqual({ id: made.id, properties: made.properties, inputs: checked.inputs });

  const disable = { ...checked.inputs, enabled: false };
  expect(await plugin.diff(made.id, RULE, made.properties, disable, checked.inputs)).toEqual({
    changes: true,
    replaces: [],
    deleteBeforeReplace: false,
    detailedDiff: { enabled: "UPDATE" },
  });
  const moved = { ...checked.inputs, search: "other-*" };
  expect(await plugin.diff(made.id, RULE, made.properties, moved, checked.inputs)).toEqual({
    changes: true,
    replaces: ["search"],
    deleteBeforeReplace: false,
    detailedDiff: { search: "UPDATE_REPLACE" },
  });
  expect((await plugin.diff(made.id, RULE, made.properties, checked.inputs, checked.inputs)).changes).toBe(
    false,
  );

  const updated = await plugin.update(made.id, RULE, made.properties, disable);
  expect(updated.properties.enabled).toBe(false);
  expect((await sim.control.state()).rules.find((r) => r.id === made.id)?.enabled).toBe(false);

  await plugin.delete(made.id, RULE, updated.properties);
  expect((await sim.control.state()).rules.some((r) => r.id === made.id)).toBe(false);
  expect(await plugin.read(made.id, RULE, updated.properties, disable)).toEqual({
    id: "",
    properties: {},
    inputs: {},
  });
});

test("DirectoryUserSettings: create, refresh with drift in the inputs, update, delete restores", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  const id = "du-team-acme-003";
  const before = (await sim.control.state()).users.find((u) => u.id === id)!;
  const checked = await plugin.check(
    USER,
    {},
    {
      directoryUserId: id,
      credentialsExposed: !before.credentialsExposed,
      restoreOnDelete: true,
    },
  );
  expect(checked.failures).toEqual([]);
  const made = await plugin.create(USER, checked.inputs);
  expect(made.id).toBe(id);
  expect(made.properties).toMatchObject({
    credentialsExposed: !before.credentialsExposed,
    previousValues: { credentialsExposed: before.credentialsExposed },
    restoreOnDelete: true,
  });
  await sim.control.patchUser(id, { credentialsExposed: before.credentialsExposed as boolean });
  const read = await plugin.read(id, USER, made.properties, checked.inputs);
  expect(read.properties.credentialsExposed).toBe(before.credentialsExposed);
  expect(read.inputs).toEqual({ ...checked.inputs, credentialsExposed: before.credentialsExposed });
  const diff = await plugin.diff(id, USER, read.properties, checked.inputs, read.inputs);
  expect(diff).toMatchObject({ changes: true, replaces: [], detailedDiff: { credentialsExposed: "UPDATE" } });
  const updated = await plugin.update(id, USER, read.properties, checked.inputs);
  expect(updated.properties.credentialsExposed).toBe(!before.credentialsExposed);
  await plugin.delete(id, USER, updated.properties);
  const after = (await sim.control.state()).users.find((u) => u.id === id)!;
  expect(after.credentialsExposed).toBe(before.credentialsExposed);
});

test("import: Read with an id alone returns inputs and properties, for a rule and a user", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  const rule = (await sim.control.state()).rules.find((r) => r.teamId === "team-acme")!;
  const read = await plugin.read(String(rule.id), RULE, {}, {});
  expect(read).toEqual({
    id: rule.id,
    properties: { field: rule.searchField, search: rule.search, enabled: rule.enabled, teamId: "team-acme" },
    inputs: { field: rule.searchField, search: rule.search, enabled: rule.enabled },
  });
  // The imported inputs pass Check and show no change: `pulumi import` would generate exactly them.
  const checked = await plugin.check(RULE, read.inputs, read.inputs);
  expect((await plugin.diff(read.id, RULE, read.properties, checked.inputs, read.inputs)).changes).toBe(
    false,
  );

  const user = (await sim.control.state()).users.find((u) => u.id === "du-team-acme-010")!;
  const imported = await plugin.read("du-team-acme-010", USER, {}, {});
  expect(imported.inputs).toEqual({
    directoryUserId: "du-team-acme-010",
    needsChatOpsWelcome: user.needsChatOpsWelcome,
    chatOpsOnboardingUser: user.chatOpsOnboardingUser,
    credentialsExposed: user.credentialsExposed,
  });
  expect(imported.properties.previousValues).toEqual({
    needsChatOpsWelcome: user.needsChatOpsWelcome,
    chatOpsOnboardingUser: user.chatOpsOnboardingUser,
    credentialsExposed: user.credentialsExposed,
  });
  await expect(plugin.read("hva-does-not-exist", RULE, {}, {})).resolves.toEqual({
    id: "",
    properties: {},
    inputs: {},
  });
});

test("two provider instances with two teams' keys never mix, even when driven at once", async () => {
  const [one, two] = await Promise.all([
    configured(sim.apiKeys.client1Admin),
    configured(sim.apiKeys.client2Admin),
  ]);
  const inputs = { field: "name", search: "shared-*", enabled: true, adoptExisting: true };
  const made = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? two : one).create(`${RULE}-${i}`, { ...inputs, search: `shared-${i}-*` }),
    ),
  );
  expect(made.map((m) => m.properties.teamId)).toEqual([
    "team-client-1",
    "team-client-2",
    "team-client-1",
    "team-client-2",
    "team-client-1",
    "team-client-2",
  ]);
  const identities = await Promise.all([one, two].map((p) => p.invoke("secops:index:getIdentity", {})));
  expect(identities.map((i) => i.result.teamId)).toEqual(["team-client-1", "team-client-2"]);
  // Team 2 cannot see team 1's rule: its read refuses (never "gone"), and team 1's still finds it.
  await expect(two.read(made[0].id, RULE, made[0].properties, inputs)).rejects.toMatchObject({
    code: 9, // FAILED_PRECONDITION
    details: expect.stringContaining(
      "belongs to team team-client-1, but this provider's API key is for team team-client-2",
    ),
  });
  expect((await one.read(made[0].id, RULE, made[0].properties, inputs)).id).toBe(made[0].id);
});

test("Invoke: the three functions with the data sources' results; a bad argument is a failure naming it", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  await sim.control.resetStats();
  const bad = await plugin.invoke("secops:index:getCaseThreatIndicators", { caseId: "" });
  expect(bad.failures).toEqual([{ property: "caseId", reason: "caseId: must be a non-empty string" }]);
  const typo = await plugin.invoke("secops:index:getIntegrationCount", { includeDisable: true });
  expect(typo.failures).toEqual([
    {
      property: "includeDisable",
      reason: "includeDisable: is not an argument; did you mean includeDisabled?",
    },
  ]);
  expect((await sim.control.stats()).requests).toEqual({});
  const count = await plugin.invoke("secops:index:getIntegrationCount", { includeDisabled: true });
  expect(count.failures).toEqual([]);
  expect(count.result.totalCount).toBeGreaterThan(0);
  const caseId = "case-001";
  const indicators = await plugin.invoke("secops:index:getCaseThreatIndicators", { caseId });
  expect(indicators.result).toMatchObject({ caseId, sortDirection: "desc" });
  expect((indicators.result.indicators as unknown[]).length).toBe(indicators.result.totalCount);
});

test("secret inputs stay secret in what comes back; the key is in no response or log", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  const checked = await plugin.check(RULE, {}, { field: "name", search: secret("secret-search-*") });
  expect(checked.inputs.search).toEqual(secret("secret-search-*"));
  const made = await plugin.create(RULE, checked.inputs);
  expect(made.properties.search).toEqual(secret("secret-search-*"));
  expect(made.properties.field).toBe("name");
  const read = await plugin.read(made.id, RULE, made.properties, checked.inputs);
  expect(read.properties.search).toEqual(secret("secret-search-*"));
  await plugin.delete(made.id, RULE, read.properties);
  const everything = JSON.stringify([checked, made, read, engine.logs]) + plugin.stderr;
  expect(everything).not.toContain(sim.apiKeys.admin);
});

test("without a key: Configure says once what preview and up will do; a create fails plainly (SECOPS_CONFIG)", async () => {
  engine.logs.length = 0;
  const plugin = await NativePluginProcess.start({ engineAddress: engine.address });
  plugins.push(plugin);
  await plugin.configure({}, {});
  const checked = await plugin.check(RULE, {}, { field: "name", search: "x-*" });
  expect(checked.failures).toEqual([]);
  expect((await plugin.create(RULE, checked.inputs, true)).id).toBe("");
  await expect(plugin.create(RULE, checked.inputs)).rejects.toMatchObject({
    details: expect.stringMatching(/^secops: no API key configured: set it with/),
  });
  const said = (m: string) => m.startsWith("secops: no API key configured");
  for (let i = 0; i < 50 && !engine.logs.some((l) => said(l.message)); i++)
    await new Promise((r) => setTimeout(r, 20));
  expect(engine.logs.filter((l) => said(l.message))).toEqual([
    {
      severity: "WARNING",
      urn: "",
      message:
        "secops: no API key configured: set it with `pulumi config set --secret secops:apiKey <key>` or the " +
        "SECOPS_API_KEY environment variable. Preview plans the resources without reading the API (a data source needs it); up will fail " +
        "before sending any request",
    },
  ]);
});

test("Configure falls back to the engine's variables (secops:config:<key>)", async () => {
  const plugin = await NativePluginProcess.start();
  plugins.push(plugin);
  await plugin.configure(
    {},
    { "secops:config:apiKey": sim.apiKeys.viewer, "secops:config:baseUrl": sim.url },
  );
  expect((await plugin.invoke("secops:index:getIdentity", {})).result.role).toBe("VIEWER");
});

test("Cancel ends in-flight requests at once", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  // Held past the test's own timeout (and the client's 30 s): only Cancel can end this request in time.
  await sim.control.setFaults([{ kind: "latency", latencyMs: 3_600_000, path: "/v1/auth/me" }]);
  await sim.control.resetStats();
  const outcome = plugin.invoke("secops:index:getIdentity", {}).then(
    () => "answered",
    (err: { details?: string }) => err.details,
  );
  // Cancel once the simulator holds the request (counted on arrival), not after a guessed delay.
  const arrived = async () => (await sim.control.stats()).requests["GET /v1/auth/me"] === 1;
  for (let i = 0; i < 500 && !(await arrived()); i++) await new Promise((r) => setImmediate(r));
  expect(await arrived()).toBe(true);
  await plugin.cancel();
  // Ended by the cancel (a transport failure), neither answered nor timed out, and not re-sent.
  expect(await outcome).toMatch(/^GET \/v1\/auth\/me failed: /);
  expect((await sim.control.stats()).requests["GET /v1/auth/me"]).toBe(1);
  // Later calls fail plainly instead of hanging.
  await expect(plugin.invoke("secops:index:getIdentity", {})).rejects.toMatchObject({
    details: "secops: the provider was cancelled",
  });
});

test("warnings go to the engine's Log service with the URN; a dead engine never crashes the plugin", async () => {
  const strict = await createSimulator({ seed: 41, strictSpec: true });
  try {
    const plugin = await configured(strict.apiKeys.admin, strict.url);
    const made = await plugin.create(RULE, {
      field: "name",
      search: "strict-*",
      enabled: true,
      adoptExisting: false,
    });
    const read = await plugin.read(made.id, RULE, made.properties, {});
    expect(read.id).toBe(made.id);
    const readWarning = (l: { message: string }) => l.message.includes("no route to read HVA rules");
    for (let i = 0; i < 50 && !engine.logs.some(readWarning); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(engine.logs).toContainEqual({
      severity: "WARNING",
      message:
        "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
      urn: RULE,
    });
    const orphan = await configured(strict.apiKeys.admin, strict.url, "127.0.0.1:1");
    const again = await orphan.read(made.id, RULE, made.properties, {});
    expect(again.id).toBe(made.id);
    // With no engine to send it to, the warning goes to the plugin's stderr.
    const warned = () => orphan.stderr.includes("warning: secops: the API offers no route to read HVA rules");
    for (let i = 0; i < 100 && !warned(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(warned()).toBe(true);
    expect(await orphan.getPluginInfo()).toBe(VERSION);
  } finally {
    await strict.close();
  }
});

test("moving from dynamic to native (alias): Check and Diff of the dynamic state show no change", async () => {
  const plugin = await configured(sim.apiKeys.admin);
  // What the dynamic resource left in state: inputs and outputs carry the serialized `__provider`.
  const made = await plugin.create(RULE, {
    field: "name",
    search: "alias-*",
    enabled: true,
    adoptExisting: false,
  });
  const shim =
    'exports.handler = __f0; function __f0() { return require("pulumi-secops/resources/hva-automation-rule"); }';
  const oldInputs = {
    field: "name",
    search: "alias-*",
    enabled: true,
    adoptExisting: false,
    __provider: shim,
  };
  const oldOutputs = { ...made.properties, __provider: shim };
  const checked = await plugin.check(RULE, oldInputs, { field: "name", search: "alias-*" });
  expect(checked).toEqual({
    inputs: { field: "name", search: "alias-*", enabled: true, adoptExisting: false },
    failures: [],
  });
  expect(await plugin.diff(made.id, RULE, oldOutputs, checked.inputs, oldInputs)).toEqual({
    changes: false,
    replaces: [],
    deleteBeforeReplace: false,
    detailedDiff: {},
  });
  const user = "du-team-acme-020";
  const userInputs = { directoryUserId: user, credentialsExposed: false, restoreOnDelete: false };
  const userMade = await plugin.create(USER, userInputs);
  const userChecked = await plugin.check(
    USER,
    { ...userInputs, __provider: shim },
    { directoryUserId: user, credentialsExposed: false },
  );
  const userDiff = await plugin.diff(
    user,
    USER,
    { ...userMade.properties, __provider: shim },
    userChecked.inputs,
    {
      ...userInputs,
      __provider: shim,
    },
  );
  expect(userDiff.changes).toBe(false);
});

describe("the front door (issue 32): inputs as Pulumi YAML sends them, plain values and no SDK", () => {
  const CLIENT1 = "urn:pulumi:dev::native::pulumi:providers:secops::client1";
  const DEFAULT = "urn:pulumi:dev::native::pulumi:providers:secops::default_0_1_0";
  /** Rules per team, to show that nothing was written anywhere. */
  const ruleCounts = async () => {
    const counts: Record<string, number> = {};
    for (const r of (await sim.control.state()).rules)
      counts[String(r.teamId)] = (counts[String(r.teamId)] ?? 0) + 1;
    return counts;
  };
  /** A plugin whose environment holds another team's key, as the shell did. */
  async function withEnvKey(env: Record<string, string> = {}): Promise<ProviderProcess> {
    const plugin = await NativePluginProcess.start({
      env: { ...process.env, SECOPS_API_KEY: sim.apiKeys.client2Admin, ...env },
    });
    plugins.push(plugin);
    return plugin;
  }
  /** Configure as an engine that was told `configureWithUrn` in Handshake sends it: with the URN. */
  async function configureWithUrn(plugin: ProviderProcess, urn: string, args: Record<string, unknown>) {
    const { grpc, providerGrpc, provider } = proto();
    const client = new providerGrpc.ResourceProviderClient(plugin.address, grpc.credentials.createInsecure());
    const req = new provider.ConfigureRequest()
      .setArgs(toStruct(args))
      .setAcceptsecrets(true)
      .setAcceptresources(true)
      .setUrn(urn)
      .setName(urn.split("::").pop()!)
      .setType("pulumi:providers:secops");
    try {
      await new Promise((resolve, reject) =>
        client.configure(req, (err, res) => (err ? reject(err) : resolve(res))),
      );
    } finally {
      client.close();
    }
  }
  const noKey =
    'the secops provider "client1" has no apiKey: an explicit provider takes its key only from its own arguments (set apiKey on it)';

  test("CheckConfig: a misspelt apikey is named with apiKey, and a named provider without its own key fails", async () => {
    const plugin = await withEnvKey();
    const before = await ruleCounts();
    await sim.control.resetStats();
    const checked = await plugin.checkConfig(
      CLIENT1,
      {},
      { apikey: sim.apiKeys.client1Admin, baseUrl: sim.url },
    );
    expect(checked.failures).toEqual([
      {
        property: "apikey",
        reason: 'apikey is not a setting of the secops provider "client1"; did you mean apiKey?',
      },
      { property: "apiKey", reason: noKey },
    ]);
    expect((await plugin.checkConfig(CLIENT1, {}, { baseUrl: sim.url })).failures).toEqual([
      { property: "apiKey", reason: noKey },
    ]);
    expect(await ruleCounts()).toEqual(before);
    expect((await sim.control.stats()).requests).toEqual({});
  });

  test("Configure: a named provider without a key never takes SECOPS_API_KEY; nothing is read or written", async () => {
    const plugin = await withEnvKey();
    const before = await ruleCounts();
    await sim.control.resetStats();
    await configureWithUrn(plugin, CLIENT1, { baseUrl: sim.url });
    const refused = { code: 3, details: noKey }; // INVALID_ARGUMENT
    await expect(plugin.invoke("secops:index:getIdentity", {})).rejects.toMatchObject(refused);
    const inputs = { field: "name", search: "front-door-*", enabled: false, adoptExisting: false };
    await expect(plugin.create(RULE, inputs)).rejects.toMatchObject(refused);
    expect(await ruleCounts()).toEqual(before);
    expect((await sim.control.stats()).requests).toEqual({});
  });

  test("the default provider keeps the documented precedence: stack config, then SECOPS_API_KEY", async () => {
    const fromEnv = await withEnvKey();
    expect((await fromEnv.checkConfig(DEFAULT, {}, { baseUrl: sim.url })).failures).toEqual([]);
    await configureWithUrn(fromEnv, DEFAULT, { baseUrl: sim.url });
    expect((await fromEnv.invoke("secops:index:getIdentity", {})).result.teamId).toBe("team-client-2");

    const fromConfig = await withEnvKey();
    const news = { apiKey: secret(sim.apiKeys.client1Admin), baseUrl: sim.url };
    expect((await fromConfig.checkConfig(DEFAULT, {}, news)).failures).toEqual([]);
    await configureWithUrn(fromConfig, DEFAULT, news);
    expect((await fromConfig.invoke("secops:index:getIdentity", {})).result.teamId).toBe("team-client-1");
    // A misspelt stack config key is named as the user set it.
    expect((await fromConfig.checkConfig(DEFAULT, {}, { baseurl: sim.url })).failures).toEqual([
      {
        property: "baseurl",
        reason:
          "baseurl is not a setting of the default secops provider (stack config secops:baseurl); did you mean baseUrl?",
      },
    ]);
  });

  test("CheckConfig validates baseUrl, given or from SECOPS_BASE_URL, naming the provider and the setting", async () => {
    const plugin = await withEnvKey({ SECOPS_BASE_URL: `${sim.url}/api/v2` });
    await sim.control.resetStats();
    const key = secret(sim.apiKeys.client1Admin);
    const failuresOf = async (baseUrl?: string) =>
      (
        await plugin.checkConfig(
          CLIENT1,
          {},
          baseUrl === undefined ? { apiKey: key } : { apiKey: key, baseUrl },
        )
      ).failures;
    expect(await failuresOf("http://secops.example.com")).toEqual([
      {
        property: "baseUrl",
        reason:
          'the secops provider "client1": baseUrl must be an https URL (plain http is allowed only for loopback hosts)',
      },
    ]);
    expect(await failuresOf("http//127.0.0.1:8080")).toEqual([
      {
        property: "baseUrl",
        reason:
          'the secops provider "client1": baseUrl must be an absolute https URL such as https://api.example.com (got "http//127.0.0.1:8080")',
      },
    ]);
    expect(await failuresOf(`${sim.url}/v1`)).toEqual([
      {
        property: "baseUrl",
        reason: `the secops provider "client1": baseUrl must not have a path (got "${sim.url}/v1"): every route would be wrong; use ${sim.url}`,
      },
    ]);
    expect(await failuresOf()).toEqual([
      {
        property: "baseUrl",
        reason: `the secops provider "client1" takes its baseUrl from SECOPS_BASE_URL: baseUrl must not have a path (got "${sim.url}/api/v2"): every route would be wrong; use ${sim.url}`,
      },
    ]);
    expect(await failuresOf(sim.url)).toEqual([]);
    expect((await sim.control.stats()).requests).toEqual({});
  });

  test("Check refuses an unknown input name with the closest one; Create without Check refuses it too", async () => {
    const plugin = await configured(sim.apiKeys.client1Admin);
    const before = await ruleCounts();
    await sim.control.resetStats();
    const typo = { field: "name", search: "front-door-*", enabeld: false };
    expect(await plugin.check(RULE, {}, typo)).toMatchObject({
      failures: [
        {
          property: "enabeld",
          reason: "enabeld is not an input of HvaAutomationRule; did you mean enabled?",
        },
      ],
    });
    expect(
      (await plugin.check(USER, {}, { directoryUserId: "du-1", credentialExposed: true })).failures,
    ).toEqual([
      {
        property: "credentialExposed",
        reason:
          "credentialExposed is not an input of DirectoryUserSettings; did you mean credentialsExposed?",
      },
      // The misspelt flag was the only one: nothing would be managed.
      {
        property: "needsChatOpsWelcome",
        reason: "set at least one of needsChatOpsWelcome, chatOpsOnboardingUser, credentialsExposed",
      },
    ]);
    await expect(plugin.create(RULE, typo)).rejects.toMatchObject({
      code: 3,
      details: `secops: invalid inputs for ${RULE}: enabeld: enabeld is not an input of HvaAutomationRule; did you mean enabled?`,
    });
    expect(await ruleCounts()).toEqual(before);
    expect((await sim.control.stats()).requests).toEqual({});
  });

  test("DiffConfig refuses another team's key, naming both teams and a provider of a new name; nothing moves", async () => {
    const plugin = await NativePluginProcess.start();
    plugins.push(plugin);
    const made = await (
      await configured(sim.apiKeys.client1Admin)
    ).create(RULE, {
      field: "name",
      search: "moving-*",
      enabled: true,
      adoptExisting: false,
    });
    const before = await ruleCounts();
    await sim.control.resetStats();
    const cfg = (key: string) => ({ apiKey: secret(key), baseUrl: sim.url });
    // DiffConfig keeps the refusal; the Configure the engine calls next on this plugin gives it.
    const diff = await plugin.diffConfig(
      CLIENT1,
      cfg(sim.apiKeys.client1Admin),
      cfg(sim.apiKeys.client2Admin),
    );
    expect(diff.changes).toBe(true);
    await expect(plugin.configure(cfg(sim.apiKeys.client2Admin))).rejects.toMatchObject({
      code: 9, // FAILED_PRECONDITION
      details:
        'the secops provider "client1" holds team team-client-1\'s resources, and its new apiKey is a key of team team-client-2; nothing was changed. A provider never moves to another team: give it back a key of team team-client-1, and to manage team team-client-2 declare a provider of a new name with that key (to move rules, create them under the new provider and remove them from this one)',
    });
    expect((await sim.control.stats()).requests).toEqual({ "GET /v1/auth/me": 2 });
    expect(await ruleCounts()).toEqual(before);
    expect((await sim.control.state()).rules.find((r) => r.id === made.id)?.teamId).toBe("team-client-1");
  });

  test("a wrong key: one error naming the provider, the setting and the fix, from Configure and every call; one request", async () => {
    const plugin = await NativePluginProcess.start();
    plugins.push(plugin);
    const wrong = "simkey_wrong_key_for_client1";
    expect(
      (await plugin.checkConfig(CLIENT1, {}, { apiKey: secret(wrong), baseUrl: sim.url })).failures,
    ).toEqual([]);
    const before = await ruleCounts();
    await sim.control.resetStats();
    const refused = {
      code: 3,
      details:
        'the secops provider "client1" was refused by the API: its apiKey is not a valid key (GET /v1/auth/me answered 401). Set apiKey on the provider to a valid API key of its team',
    };
    const inputs = (i: number) => ({
      field: "name",
      search: `wrong-${i}-*`,
      enabled: true,
      adoptExisting: false,
    });
    // Configure looks the key up: the engine then prints this once, for the provider.
    await expect(
      configureWithUrn(plugin, CLIENT1, { apiKey: secret(wrong), baseUrl: sim.url }),
    ).rejects.toMatchObject(refused);
    await expect(plugin.create(`${RULE}-0`, inputs(0))).rejects.toMatchObject(refused);
    await expect(plugin.create(`${RULE}-1`, inputs(1))).rejects.toMatchObject(refused);
    await expect(plugin.invoke("secops:index:getIdentity", {})).rejects.toMatchObject(refused);
    expect((await sim.control.stats()).requests).toEqual({ "GET /v1/auth/me": 1 });
    expect(await ruleCounts()).toEqual(before);
    expect(JSON.stringify(engine.logs) + plugin.stderr).not.toContain(wrong);
  });
});
