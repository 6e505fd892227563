/**
 * The engine's 2026 protocol on the plugin served by grpc-js: Handshake (and what the engine does after
 * it: Create and Update with `preview`), List (server streaming) for both resources, and the transport
 * answers the engine relies on. Over gRPC with grpc-js as the engine's side, against the simulator;
 * the API's state is counted after each step.
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { SecOpsClient } from "pulumi-secops/client";
import { createSimulator, type Simulator } from "secops-sim";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as native from "pulumi-secops/native";
import { LifecycleRunner, NativePluginProcess, secret, type ProviderProcess } from "../rig";
import { proto, toStruct } from "../../provider/native/plugin/proto";
import { built } from "../helpers/spawn";

built("plugin/pulumi-resource-secops.js");
jest.setTimeout(60_000);

const HVA = "secops:index:HvaAutomationRule";
const USERS = "secops:index:DirectoryUserSettings";
const RULE_URN = `urn:pulumi:dev::proto::${HVA}::r`;
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

let sim: Simulator;
let strict: Simulator;
const plugins: ProviderProcess[] = [];
const clients: SecOpsClient[] = [];

beforeAll(async () => {
  sim = await createSimulator({ seed: 77 });
  strict = await createSimulator({ seed: 78, strictSpec: true });
});
afterEach(async () => {
  await Promise.all(plugins.splice(0).map((p) => p.close()));
  await sim.control.clearFaults();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sim.close();
  await strict.close();
});

/** A team's API client (to count and make what the plugin lists). */
function api(key: string, url = sim.url): SecOpsClient {
  const c = new SecOpsClient({ apiKey: key, baseUrl: url });
  clients.push(c);
  return c;
}

/** A plugin configured with `key`, and a raw grpc-js client of it (as the engine holds one). */
async function plugin(key: string, url = sim.url) {
  const p = await NativePluginProcess.start();
  plugins.push(p);
  await p.configure({ apiKey: secret(key), baseUrl: url });
  const { grpc, providerGrpc } = proto();
  const raw = new providerGrpc.ResourceProviderClient(p.address, grpc.credentials.createInsecure());
  return { p, raw };
}

type Raw = Awaited<ReturnType<typeof plugin>>["raw"];

interface ListAnswer {
  results: Array<{ id: string; name: string }>;
  continuation?: string;
  computed: boolean;
}

interface ListArgs {
  query?: Record<string, unknown>;
  limit?: number;
  pageSize?: number;
  continuation?: string;
}

/** One List call: every streamed answer, or the call's error. */
function list(raw: Raw, token: string, args: ListArgs = {}): Promise<ListAnswer> {
  const { provider } = proto();
  const req = new provider.ListRequest()
    .setToken(token)
    .setQuery(toStruct(args.query ?? {}))
    .setLimit(args.limit ?? 0)
    .setPageSize(args.pageSize ?? 0)
    .setContinuationToken(args.continuation ?? "");
  const out: ListAnswer = { results: [], computed: false };
  return new Promise((resolve, reject) => {
    const stream = raw.list(req);
    stream.on("data", (res: providerPb.ListResponse) => {
      if (res.hasResult())
        out.results.push({ id: res.getResult()!.getId(), name: res.getResult()!.getName() });
      if (res.hasContinuation()) out.continuation = res.getContinuation()!.getContinuationToken();
      if (res.hasComputed()) out.computed = true;
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(out));
  });
}

/** Rejects with the gRPC error of `promise`. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; details: string }> {
  const err = await promise.then(
    () => undefined,
    (e: { code: number; details: string }) => e,
  );
  if (!err) throw new Error("the call succeeded");
  return { code: err.code, details: err.details };
}

describe("Handshake", () => {
  test("answers as Configure does; Create and Update with preview write nothing afterwards", async () => {
    const { p, raw } = await plugin(sim.apiKeys.client1Admin);
    const { provider } = proto();
    const req = new provider.ProviderHandshakeRequest()
      .setEngineAddress("127.0.0.1:1")
      .setConfigureWithUrn(true)
      .setInvokeWithPreview(true);
    const res = await new Promise<providerPb.ProviderHandshakeResponse>((resolve, reject) =>
      raw.handshake(req, (err, r) => (err ? reject(err) : resolve(r))),
    );
    // Secrets and resources accepted; every other capability (newer stubs have more, such as
    // acceptsByteString and acceptsOutputsInCheck in 3.270) left false.
    const answered = res.toObject() as unknown as Record<string, boolean>;
    expect(answered).toMatchObject({ acceptSecrets: true, acceptResources: true });
    const others = Object.entries(answered).filter(([k]) => k !== "acceptSecrets" && k !== "acceptResources");
    expect(others.length).toBeGreaterThanOrEqual(2);
    expect(others.filter(([, v]) => v !== false)).toEqual([]);
    // Configure answers the same flags, and preview support, which a handshaking provider must have.
    const configured = await new Promise<providerPb.ConfigureResponse>((resolve, reject) =>
      raw.configure(
        new provider.ConfigureRequest()
          .setArgs(toStruct({ apiKey: secret(sim.apiKeys.client1Admin), baseUrl: sim.url }))
          .setAcceptsecrets(true)
          .setAcceptresources(true)
          .setSendsOldInputs(true),
        (err, r) => (err ? reject(err) : resolve(r)),
      ),
    );
    expect(configured.toObject()).toMatchObject({
      acceptsecrets: true,
      supportspreview: true,
      acceptresources: true,
      acceptoutputs: false,
      supportsAutonamingConfiguration: false,
    });
    const team = api(sim.apiKeys.client1Admin);
    const before = (await team.listHvaRules()).length;
    const inputs = { field: "name", search: "hs-preview-*", enabled: true };
    const planned = await p.create(RULE_URN, inputs, true);
    expect(planned.id).toBe("");
    expect((await team.listHvaRules()).length).toBe(before);
    const made = await p.create(RULE_URN, inputs);
    expect((await team.listHvaRules()).length).toBe(before + 1);
    await p.update(made.id, RULE_URN, made.properties, { ...inputs, enabled: false }, true);
    expect((await team.getHvaRule(made.id))?.enabled).toBe(true);
    await p.delete(made.id, RULE_URN, made.properties);
    expect((await team.listHvaRules()).length).toBe(before);
  });
});

describe("List", () => {
  /** Makes `n` rules `<prefix>-<i>` in client 2's team; returns their ids sorted. */
  async function rules(prefix: string, n: number, enabled = true): Promise<string[]> {
    const team = api(sim.apiKeys.client2Admin);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await team.createHvaRule({ field: "name", search: `${prefix}-${i}` });
      if (!enabled) await team.setHvaRuleEnabled(r.id, false);
      ids.push(r.id);
    }
    return ids.sort();
  }

  test("a team's rules over three pages, each id once, named as `secops hva export` names them", async () => {
    const made = await rules("pg", 5);
    const { raw } = await plugin(sim.apiKeys.client2Admin);
    const query = { search: "pg-*" };
    const first = await list(raw, HVA, { query, pageSize: 2 });
    expect(first.results).toHaveLength(2);
    const second = await list(raw, HVA, { query, pageSize: 2, continuation: first.continuation });
    const third = await list(raw, HVA, { query, pageSize: 2, continuation: second.continuation });
    expect(third.continuation).toBeUndefined();
    const all = [...first.results, ...second.results, ...third.results];
    expect(all.map((r) => r.id)).toEqual(made);
    const team = api(sim.apiKeys.client2Admin);
    const byId = new Map((await team.listHvaRules()).map((r) => [r.id, r]));
    for (const r of all) expect(r.name).toBe(byId.get(r.id)!.search!.replace(/[^a-z0-9]+/g, "-"));
    // Another team's plugin sees none of them.
    const other = await plugin(sim.apiKeys.client1Admin);
    expect((await list(other.raw, HVA, { query })).results).toEqual([]);
  });

  test("limit: the same limit on every page (the protocol) and a shrinking one (`pulumi do --count`)", async () => {
    const made = await rules("lim", 5);
    const { raw } = await plugin(sim.apiKeys.client2Admin);
    const query = { search: "lim-*" };
    // The protocol: limit 3 on each page of one listing, pages of 2.
    const a = await list(raw, HVA, { query, limit: 3, pageSize: 2 });
    const b = await list(raw, HVA, { query, limit: 3, pageSize: 2, continuation: a.continuation });
    expect([...a.results, ...b.results].map((r) => r.id)).toEqual(made.slice(0, 3));
    expect(b.continuation).toBeUndefined();
    // `pulumi do ... list --count 3`: limit 3, then what is left of it (1).
    const c = await list(raw, HVA, { query, limit: 3, pageSize: 2 });
    const d = await list(raw, HVA, { query, limit: 1, pageSize: 2, continuation: c.continuation });
    expect([...c.results, ...d.results].map((r) => r.id)).toEqual(made.slice(0, 3));
    // No page size: the first page holds them all.
    expect((await list(raw, HVA, { query })).results.map((r) => r.id)).toEqual(made);
    const negative = await failure(list(raw, HVA, { query, limit: -1 }));
    expect(negative).toEqual({ code: 3, details: "limit: must not be negative" });
  });

  test("filters: field, enabled and a search glob", async () => {
    const on = await rules("flt-on", 2);
    const off = await rules("flt-off", 2, false);
    const { raw } = await plugin(sim.apiKeys.client2Admin);
    const ids = async (query: Record<string, unknown>) =>
      (await list(raw, HVA, { query })).results.map((r) => r.id);
    expect(await ids({ search: "flt-*", enabled: true })).toEqual(on);
    expect(await ids({ search: "flt-*", enabled: false })).toEqual(off);
    expect(await ids({ search: "flt-o?-*" })).toEqual([...on, ...off].sort().filter((id) => on.includes(id)));
    expect(await ids({ search: "flt-*", field: "name" })).toEqual([...on, ...off].sort());
    expect(await ids({ search: "flt-*", field: "hostname" })).toEqual([]);
  });

  test("a computed query answers Computed alone; an unknown key is refused by name, nothing sent", async () => {
    const { raw } = await plugin(sim.apiKeys.client2Admin);
    await sim.control.resetStats();
    expect(await list(raw, HVA, { query: { search: UNKNOWN } })).toEqual({ results: [], computed: true });
    expect(await failure(list(raw, HVA, { query: { serch: "x" } }))).toEqual({
      code: 3,
      details: `serch: is not a query key of ${HVA}; did you mean search?`,
    });
    expect(await failure(list(raw, HVA, { query: { enabled: "yes" } }))).toEqual({
      code: 3,
      details: "enabled: must be a boolean",
    });
    expect(await failure(list(raw, "secops:index:Nope"))).toEqual({
      code: 3,
      details: `token: secops:index:Nope cannot be listed; the secops provider lists ${HVA} and ${USERS}`,
    });
    expect((await sim.control.stats()).requests).toEqual({});
  });

  test("a key the API refuses and a role without access fail loudly, never as an empty list", async () => {
    // The provider's one error for a refused key, naming the setting: from Configure now (which
    // `pulumi do` calls before List), so the listing never starts.
    await expect(plugin("sk_not_a_key_of_any_team")).rejects.toMatchObject({
      code: 3,
      details: expect.stringContaining(
        "was refused by the API: its apiKey is not a valid key (GET /v1/auth/me answered 401)",
      ),
    });
    const { raw } = await plugin(sim.apiKeys.client2Admin);
    await sim.control.setFaults([{ kind: "403", method: "GET", path: "/endpoint/hva/automation" }]);
    const forbidden = await failure(list(raw, HVA));
    expect(forbidden.code).toBe(2);
    expect(forbidden.details).toMatch(/GET \/endpoint\/hva\/automation failed \(403\)/);
  });

  test("directory users: the team's users by id; in strict-spec a clear failure", async () => {
    const { raw } = await plugin(sim.apiKeys.client1Admin);
    const listed = await list(raw, USERS);
    expect(listed.results.length).toBeGreaterThan(0);
    const team = api(sim.apiKeys.client1Admin);
    for (const u of listed.results) expect((await team.getDirectoryUser(u.id)).id).toBe(u.id);
    expect(new Set(listed.results.map((u) => u.name)).size).toBe(listed.results.length);
    const s = await plugin(strict.apiKeys.client1Admin, strict.url);
    const unsupported = await failure(list(s.raw, USERS));
    expect(unsupported.details).toMatch(/GET \/v1\/directory/);
    expect(unsupported.details).toMatch(/assum/);
  });
});

describe("the runner's list, as `pulumi do <type> list --all`", () => {
  test("lists by the plugin's List; each result imported by id; the program then shows no change", async () => {
    const team = api(sim.apiKeys.client1Admin);
    for (const search of ["adopt-a", "adopt-b", "adopt-c"])
      await team.createHvaRule({ field: "name", search });
    const dir = mkdtempSync(join(tmpdir(), "secops-list-"));
    const live = new Map((await team.listHvaRules()).map((r) => [r.id, r]));
    let listed: Array<{ id: string; name: string }> = [];
    const program = () => {
      for (const { id, name } of listed) {
        const r = live.get(id)!;
        new native.HvaAutomationRule(name, { field: r.searchField!, search: r.search!, enabled: r.enabled! });
      }
    };
    const config = { "secops:apiKey": sim.apiKeys.client1Admin, "secops:baseUrl": sim.url };
    const runner = new LifecycleRunner({ program, programDir: dir, statePath: join(dir, "s.json"), config });
    try {
      listed = await runner.list(HVA, { search: "adopt-*" });
      expect(listed.map((l) => l.name).sort()).toEqual(["adopt-a", "adopt-b", "adopt-c"]);
      await sim.control.resetStats();
      for (const { id, name } of listed)
        expect(await runner.import(HVA, name, id)).toMatchObject({ ok: true });
      const preview = await runner.preview();
      expect(preview.map((s) => s.op)).toEqual(["same", "same", "same"]);
      expect((await sim.control.stats()).writes).toBe(0);
      await expect(runner.list(HVA, { serch: "x" })).rejects.toThrow(
        `serch: is not a query key of ${HVA}; did you mean search?`,
      );
    } finally {
      await runner.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("transport", () => {
  test("a call the engine cancels sends none of its requests still waiting for a slot", async () => {
    const { raw } = await plugin(sim.apiKeys.client1Admin);
    const { grpc, provider } = proto();
    const identity = (deadlineMs?: number) =>
      new Promise<{ code?: number }>((resolve) =>
        raw.invoke(
          new provider.InvokeRequest().setTok("secops:index:getIdentity").setArgs(toStruct({})),
          new grpc.Metadata(),
          deadlineMs === undefined ? {} : { deadline: new Date(Date.now() + deadlineMs) },
          (err) => resolve(err ?? {}),
        ),
      );
    const route = "GET /v1/auth/me";
    const seen = async () => (await sim.control.stats()).requests[route] ?? 0;
    // The plugin's client sends at most 8 requests at once: 8 held by the API fill every slot.
    await sim.control.setFaults([
      { kind: "latency", method: "GET", path: "/v1/auth/me", latencyMs: 3_000, times: 8 },
    ]);
    await sim.control.resetStats();
    const held = Array.from({ length: 8 }, () => identity());
    while ((await seen()) < 8) await new Promise((r) => setImmediate(r));
    // The ninth waits for a slot; its deadline passes long before a slot frees.
    expect(await identity(200)).toMatchObject({ code: 4 });
    for (const h of await Promise.all(held)) expect(h).toEqual({});
    // A call after them is sent (the queue is first in, first out: the ninth would have gone first).
    expect(await identity()).toEqual({});
    expect(await seen()).toBe(9);
  });

  test("a method the plugin does not implement is UNIMPLEMENTED (the engine falls back on that code)", async () => {
    const { p } = await plugin(sim.apiKeys.client1Admin);
    const { grpc } = proto();
    const raw = new grpc.Client(p.address, grpc.credentials.createInsecure());
    const err = await new Promise<{ code: number }>((resolve) =>
      raw.makeUnaryRequest(
        "/pulumirpc.ResourceProvider/Construct",
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        (e) => resolve(e as never),
      ),
    );
    raw.close();
    expect(err.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});

test("schema.json declares listInputs for each listable resource: the listing's query keys", () => {
  const { LISTABLE, listQueryKeys } =
    require("../../provider/resources/framework/listing") as typeof import("../../provider/resources/framework/listing");
  const schema = JSON.parse(require("node:fs").readFileSync(require.resolve("../../schema.json"), "utf8"));
  expect(LISTABLE).toEqual([HVA, USERS]);
  for (const token of LISTABLE) {
    const keys = listQueryKeys(token);
    expect(schema.resources[token].listInputs).toEqual({
      type: "object",
      properties: Object.fromEntries(
        Object.entries(keys).map(([k, v]) => [k, { type: v.type, description: v.description }]),
      ),
    });
  }
});
