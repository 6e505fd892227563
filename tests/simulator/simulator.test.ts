/** SecOpsClient against the simulator, in both modes: every operation, roles, scopes, paging, CSV. */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { SecOpsClient, SecOpsError } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";
import { VERSION } from "pulumi-secops";
import { builtSim, run } from "../helpers/spawn";

const fast = { retryBaseDelayMs: 1, retryMaxDelayMs: 5 };

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return (e as SecOpsError).code;
  }
}

describe.each([false, true])("strictSpec=%s", (strictSpec) => {
  let sim: Simulator;
  let admin: SecOpsClient;
  beforeAll(async () => {
    sim = await createSimulator({ strictSpec, bigCase: 730 });
    admin = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url, ...fast });
  });
  afterAll(async () => {
    await admin.close();
    await sim.close();
  });

  test("identity of each key", async () => {
    const me = await admin.getIdentity();
    expect(me).toMatchObject({ role: "ADMIN", teamId: "team-acme", serviceProvider: false, id: "svc-admin" });
    const sp = new SecOpsClient({ apiKey: sim.apiKeys.serviceProviderAdmin, baseUrl: sim.url });
    expect(await sp.getIdentity()).toMatchObject({
      role: "ADMIN",
      teamId: "team-msp",
      serviceProvider: true,
    });
    await sp.close();
  });

  test("directory user: PATCH works in both modes; GET only where the assumed route exists", async () => {
    const u = await admin.updateDirectoryUser("du-team-acme-002", {
      needsChatOpsWelcome: false,
      credentialsExposed: true,
    });
    expect(u).toMatchObject({ id: "du-team-acme-002", needsChatOpsWelcome: false, credentialsExposed: true });
    const state = await sim.control.state();
    expect(state.users.find((x) => x.id === "du-team-acme-002")).toMatchObject({
      needsChatOpsWelcome: false,
      credentialsExposed: true,
    });
    if (strictSpec)
      expect(await codeOf(admin.getDirectoryUser("du-team-acme-002"))).toBe("SECOPS_UNSUPPORTED");
    else expect(await admin.getDirectoryUser("du-team-acme-002")).toMatchObject({ credentialsExposed: true });
    expect(await codeOf(admin.updateDirectoryUser("du-nope", { credentialsExposed: true }))).toBe(
      "SECOPS_NOT_FOUND",
    );
  });

  test("HVA rules: create and patch in both modes; list/get/delete only with assumed routes", async () => {
    const r = await admin.createHvaRule({ field: "name", search: `srv-${strictSpec}` });
    expect(r).toMatchObject({
      enabled: true,
      searchField: "name",
      search: `srv-${strictSpec}`,
      teamId: "team-acme",
    });
    expect(await admin.setHvaRuleEnabled(r.id, false)).toMatchObject({ id: r.id, enabled: false });
    if (strictSpec) {
      expect(await codeOf(admin.listHvaRules())).toBe("SECOPS_UNSUPPORTED");
      expect(await codeOf(admin.getHvaRule(r.id))).toBe("SECOPS_UNSUPPORTED");
      expect(await codeOf(admin.deleteHvaRule(r.id))).toBe("SECOPS_UNSUPPORTED");
    } else {
      expect((await admin.listHvaRules()).map((x) => x.id)).toContain(r.id);
      expect(await admin.getHvaRule(r.id)).toMatchObject({ enabled: false });
      await admin.deleteHvaRule(r.id);
      expect(await admin.getHvaRule(r.id)).toBeUndefined();
      expect(await codeOf(admin.deleteHvaRule(r.id))).toBe("SECOPS_NOT_FOUND");
    }
    expect(await codeOf(admin.setHvaRuleEnabled("hva-missing", true))).toBe("SECOPS_NOT_FOUND");
  });

  test("integration count honours every filter", async () => {
    const all = await admin.countIntegrations({ includeDisabled: true });
    const enabled = await admin.countIntegrations();
    expect(all).toBe(40);
    expect(enabled).toBeLessThan(all);
    const healthy = await admin.countIntegrations({ healthStatus: ["healthy"], includeDisabled: true });
    const rest = await admin.countIntegrations({
      healthStatus: ["unhealthy", "unstable", "unknown"],
      includeDisabled: true,
    });
    expect(healthy + rest).toBe(all);
    expect(
      await admin.countIntegrations({ integrationTypes: ["siem"], includeDisabled: true }),
    ).toBeGreaterThan(0);
    expect(
      await admin.countIntegrations({
        ids: ["int-team-acme-001", "int-team-acme-002"],
        includeDisabled: true,
      }),
    ).toBe(2);
    expect(await admin.countIntegrations({ search: "zzz-no-match" })).toBe(0);
    expect(await admin.countIntegrations({ size: 1, page: 3, includeDisabled: true })).toBe(all); // paging ignored
  });

  test("threat indicators: every indicator exactly once, in the asked order", async () => {
    const small = await admin.listCaseThreatIndicators("case-003", { sortDirection: "asc" });
    expect(small.totalCount).toBe(9);
    expect(new Set(small.data.map((d) => d.id)).size).toBe(9);
    const times = small.data.map((d) => d.createdAt!);
    if (!strictSpec) {
      expect(times).toEqual([...times].sort());
      const desc = await admin.listCaseThreatIndicators("case-003", { sortDirection: "desc" });
      expect(desc.data.map((d) => d.id)).toEqual(small.data.map((d) => d.id).reverse());
    }
    if (strictSpec) {
      // The paging parameters are unknown to a strict server: a partial list is refused, never returned.
      expect(await codeOf(admin.listCaseThreatIndicators("case-big"))).toBe("SECOPS_INCOMPLETE");
    } else {
      const big = await admin.listCaseThreatIndicators("case-big", { sortDirection: "asc" });
      expect(big.totalCount).toBe(730);
      expect(big.data).toHaveLength(730);
      expect(new Set(big.data.map((d) => d.id)).size).toBe(730);
    }
    expect(await codeOf(admin.listCaseThreatIndicators("case-nope"))).toBe("SECOPS_NOT_FOUND");
  });

  test("timeline comment: multipart round trip keeps attachments as sent", async () => {
    const png = new Uint8Array([137, 80, 78, 71, 0, 255, 13, 10]);
    const c = await admin.editTimelineComment("cmt-002", {
      content: 'updated, with "quotes"\nand lines',
      files: [
        { filename: "shot.png", contentType: "image/png", data: png },
        { filename: "b.jpg", contentType: "image/jpeg", data: new Uint8Array([1]) },
      ],
    });
    // multipart/form-data text fields carry line breaks as CRLF (WHATWG form encoding).
    expect(c.content).toBe('updated, with "quotes"\r\nand lines');
    expect(
      c.attachments?.map((a) => [a.filename, a.contentType, a.size, Buffer.from(a.data!, "base64")]),
    ).toEqual([
      ["shot.png", "image/png", 8, Buffer.from(png)],
      ["b.jpg", "image/jpeg", 1, Buffer.from([1])],
    ]);
    const cleared = await admin.editTimelineComment("cmt-002", { files: [] });
    expect(cleared.attachments).toEqual([]);
    expect(cleared.content).toBe(c.content);
    const deleted = await admin.editTimelineComment("cmt-007", { content: "resurrect?" });
    expect(deleted).toMatchObject({ deleted: true, content: "" });
  });

  test("CSV export parsed back equals the store", async () => {
    const stream = await admin.exportCasesCsv();
    let text = "";
    for await (const chunk of stream) text += chunk;
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(13);
    expect(rows[0]).toEqual({
      id: "case-001",
      sid: "C-1000",
      title: expect.any(String),
      status: expect.any(String),
      severity: expect.any(String),
      createdAt: "2026-01-01T00:00:00.000Z",
      detectionCount: "3",
    });
    expect(rows.map((r) => r.id)).toEqual([
      ...Array.from({ length: 12 }, (_, i) => `case-${String(i + 1).padStart(3, "0")}`),
      "case-big",
    ]);
    expect(rows.find((r) => r.id === "case-big")!.detectionCount).toBe("730");
    expect(text.includes("\r\n")).toBe(true);
  });

  test("roles: 401 for a missing or unknown key, 403 for VIEWER writes, reads allowed", async () => {
    const bad = new SecOpsClient({ apiKey: "simkey_unknown", baseUrl: sim.url, maxRetries: 0 });
    expect(await codeOf(bad.getIdentity())).toBe("SECOPS_AUTH");
    await bad.close();
    const res = await fetch(`${sim.url}/v1/auth/me`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ statusCode: 401, message: "Unauthorized" });
    const viewer = new SecOpsClient({ apiKey: sim.apiKeys.viewer, baseUrl: sim.url });
    expect((await viewer.getIdentity()).role).toBe("VIEWER");
    expect(await viewer.countIntegrations()).toBeGreaterThan(0);
    expect(await codeOf(viewer.createHvaRule({ field: "name", search: "v" }))).toBe("SECOPS_FORBIDDEN");
    expect(
      await codeOf(
        viewer.updateDirectoryUser("du-team-acme-001", { vip: undefined, credentialsExposed: true } as never),
      ),
    ).toBe("SECOPS_INVALID_INPUT");
    expect(await codeOf(viewer.updateDirectoryUser("du-team-acme-001", { credentialsExposed: true }))).toBe(
      "SECOPS_FORBIDDEN",
    );
    const analyst = new SecOpsClient({ apiKey: sim.apiKeys.analyst, baseUrl: sim.url });
    expect(await analyst.createHvaRule({ field: "name", search: "analyst" })).toMatchObject({
      enabled: true,
    });
    await viewer.close();
    await analyst.close();
  });

  test("service-provider scope: CLIENTS by default, SERVICE_PROVIDER for its own team", async () => {
    const sp = new SecOpsClient({ apiKey: sim.apiKeys.serviceProviderAdmin, baseUrl: sim.url });
    const clients = await sp.countIntegrations({ includeDisabled: true });
    expect(clients).toBe(14);
    if (!strictSpec) {
      expect(await sp.countIntegrations({ includeDisabled: true, serviceProviderScope: "CLIENTS" })).toBe(14);
      expect(
        await sp.countIntegrations({ includeDisabled: true, serviceProviderScope: "SERVICE_PROVIDER" }),
      ).toBe(6);
    }
    await sp.close();
    // The server's own rule, bypassing the client's check: 400 for a non-service-provider.
    const res = await fetch(`${sim.url}/v1/integration/count`, {
      method: "POST",
      headers: { authorization: `Bearer ${sim.apiKeys.admin}`, "content-type": "application/json" },
      body: JSON.stringify({ serviceProviderScope: "CLIENTS" }),
    });
    expect(res.status).toBe(strictSpec ? 200 : 400);
  });

  test("unknown routes answer like the real service", async () => {
    const res = await fetch(`${sim.url}/v1/nothing`, {
      headers: { authorization: `Bearer ${sim.apiKeys.admin}` },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ statusCode: 404, message: "Cannot GET /v1/nothing" });
    if (strictSpec) {
      const list = await fetch(`${sim.url}/endpoint/hva/automation`, {
        headers: { authorization: `Bearer ${sim.apiKeys.admin}` },
      });
      expect(await list.json()).toEqual({
        statusCode: 404,
        message: "Cannot GET /endpoint/hva/automation",
        error: "Not Found",
      });
    }
  });
});

test("a request naming another team's rule is answered 404 and counted (crossTeam)", async () => {
  const sim = await createSimulator({});
  const one = new SecOpsClient({ apiKey: sim.apiKeys.client1Admin, baseUrl: sim.url, ...fast });
  const two = new SecOpsClient({ apiKey: sim.apiKeys.client2Admin, baseUrl: sim.url, ...fast });
  try {
    const rule = await one.createHvaRule({ field: "name", search: "cross-*" });
    expect((await sim.control.stats()).crossTeam).toBe(0);
    expect(await codeOf(two.setHvaRuleEnabled(rule.id, false))).toBe("SECOPS_NOT_FOUND");
    expect(await codeOf(two.deleteHvaRule(rule.id))).toBe("SECOPS_NOT_FOUND");
    expect(await codeOf(two.getHvaRule(rule.id))).toBe("resolved"); // a 404 on GET reads as gone
    expect((await sim.control.stats()).crossTeam).toBe(3);
    expect((await sim.control.state()).rules.find((r) => r.id === rule.id)).toMatchObject({ enabled: true });
    await sim.control.resetStats();
    expect((await sim.control.stats()).crossTeam).toBe(0);
  } finally {
    await Promise.all([one.close(), two.close(), sim.close()]);
  }
});

test("seed data is deterministic and large enough", async () => {
  const a = await createSimulator({ seed: 7 });
  const b = await createSimulator({ seed: 7 });
  expect(a.apiKeys).toEqual(b.apiKeys);
  const [sa, sb] = [await a.control.state(), await b.control.state()];
  expect(sa).toEqual(sb);
  expect(sa.users.filter((u) => u.teamId === "team-acme").length).toBeGreaterThanOrEqual(50);
  await a.close();
  await b.close();
});

test("state survives a restart with statePath", async () => {
  const dir = mkdtempSync(join(tmpdir(), "secops-sim-"));
  const statePath = join(dir, "state.json");
  try {
    const s1 = await createSimulator({ statePath, seed: 3 });
    const c1 = new SecOpsClient({ apiKey: s1.apiKeys.admin, baseUrl: s1.url });
    const rule = await c1.createHvaRule({ field: "name", search: "persist-*" });
    await c1.setHvaRuleEnabled(rule.id, false);
    await c1.updateDirectoryUser("du-team-acme-005", { chatOpsOnboardingUser: true });
    await c1.close();
    await s1.close();
    const s2 = await createSimulator({ statePath, seed: 3 });
    const c2 = new SecOpsClient({ apiKey: s2.apiKeys.admin, baseUrl: s2.url });
    expect(await c2.getHvaRule(rule.id)).toMatchObject({ enabled: false, search: "persist-*" });
    expect(await c2.getDirectoryUser("du-team-acme-005")).toMatchObject({ chatOpsOnboardingUser: true });
    const next = await c2.createHvaRule({ field: "name", search: "after-restart" });
    expect(next.id).not.toBe(rule.id);
    await c2.close();
    await s2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("exportCasesCsvToFile: complete file on success; nothing left behind on failure", async () => {
  const sim = await createSimulator({ seed: 8, csvRows: 2000 });
  const c = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url, maxRetries: 0 });
  const dir = mkdtempSync(join(tmpdir(), "secops-export-"));
  try {
    const { bytes } = await c.exportCasesCsvToFile(join(dir, "ok.csv"));
    expect(bytes).toBe(readFileSync(join(dir, "ok.csv")).length);
    expect((parse(readFileSync(join(dir, "ok.csv"), "utf8"), { columns: true }) as unknown[]).length).toBe(
      2000,
    );
    await sim.control.setFaults([{ kind: "503", path: "/v1/cases/export/csv" }]);
    await expect(c.exportCasesCsvToFile(join(dir, "bad.csv"))).rejects.toMatchObject({
      code: "SECOPS_SERVER",
    });
    await sim.control.clearFaults();
    await sim.control.resetStats();
    // The target folder is checked before anything is sent.
    await expect(c.exportCasesCsvToFile(join(dir, "missing-dir", "x.csv"))).rejects.toMatchObject({
      code: "SECOPS_INVALID_INPUT",
      message: `path: the folder ${join(dir, "missing-dir")} does not exist`,
    });
    expect((await sim.control.stats()).requests).toEqual({});
    expect(readdirSync(dir)).toEqual(["ok.csv"]);
  } finally {
    await c.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("secops-sim: a bad option value is a usage error (exit 2) naming the option; --version exits 0", async () => {
  const sim = builtSim();
  for (const args of [["--port", "-5"], ["--seed", "x"], ["--faults", "nonsense:2"], ["--no-such-flag"]]) {
    const r = await run(sim, args);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: "" });
  }
  expect((await run(sim, ["--port", "-5"])).stderr).toContain("port must be a non-negative integer");
  expect(await run(sim, ["--version"])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
});
