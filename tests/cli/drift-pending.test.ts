/**
 * A create whose outcome was unknown is in the state under a pending id, with the rules that existed
 * before its PUT: a live rule that may be the one it made is held by it, never offered for adoption
 * (an import of it would be deleted by the pending create's next settling). A rule its proof excludes
 * is as unmanaged as any.
 */
import { SecOpsClient } from "pulumi-secops/client";
import { driftReport } from "pulumi-secops/drift";
import { createSimulator, type Simulator } from "secops-sim";

let sim: Simulator;
let api: SecOpsClient;
beforeAll(async () => {
  sim = await createSimulator({ seed: 71 });
  api = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
});
afterAll(async () => {
  await api.close();
  await sim.close();
});

test("drift: a rule a pending create may have made is not unmanaged; one its proof excludes is", async () => {
  const older = await api.createHvaRule({ field: "name", search: "pending-drift-*" }); // before the PUT
  const maybe = await api.createHvaRule({ field: "name", search: "pending-drift-*" }); // after it
  const pending = {
    kind: "HvaAutomationRule",
    urn: "urn:pulumi:dev::p::secops:index:HvaAutomationRule::r",
    id: "pending:2026-11-25T00:00:00.000Z",
    teamId: "team-acme",
    outputs: {
      field: "name",
      search: "pending-drift-*",
      __pendingCreate: { before: [older.id], at: "2026-11-25T00:00:00.000Z" },
    },
  };
  const report = await driftReport([pending], {
    baseUrl: sim.url,
    keys: [{ name: "SECOPS_API_KEY", key: sim.apiKeys.admin }],
  });
  const unmanaged = report.teams.find((t) => t.teamId === "team-acme")!.unmanaged.map((u) => u.id);
  expect(unmanaged).toContain(older.id);
  expect(unmanaged).not.toContain(maybe.id);
});
