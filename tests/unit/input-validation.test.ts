/** Every bad argument is rejected before any request, naming the field. */
import { SecOpsClient } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";

let rec: Recorder;
let c: SecOpsClient;
beforeAll(async () => {
  rec = await startRecorder();
  c = new SecOpsClient({ apiKey: "validation-key", baseUrl: rec.url });
});
afterAll(async () => {
  await c.close();
  await rec.close();
});

const cases: Array<[string, () => Promise<unknown>, string, string]> = [
  [
    "count: unknown health status",
    () => c.countIntegrations({ healthStatus: ["healthy", "sick" as never] }),
    "filter.healthStatus[1]",
    'Invalid option: expected one of "healthy"|"unhealthy"|"unstable"|"unknown"',
  ],
  [
    "count: unknown integration type",
    () => c.countIntegrations({ integrationTypes: ["vpn" as never] }),
    "filter.integrationTypes[0]",
    "Invalid option",
  ],
  [
    "count: bad sort direction",
    () => c.countIntegrations({ sortDirection: "up" as never }),
    "filter.sortDirection",
    "Invalid option",
  ],
  [
    "count: unknown scope",
    () => c.countIntegrations({ serviceProviderScope: "ALL" as never }),
    "filter.serviceProviderScope",
    "Invalid option",
  ],
  [
    "count: typo in a field name",
    () => c.countIntegrations({ healthStatuses: ["healthy"] } as never),
    "filter.healthStatuses",
    "is not a known field",
  ],
  [
    "count: includeDisabled not boolean",
    () => c.countIntegrations({ includeDisabled: "yes" as never }),
    "filter.includeDisabled",
    "expected boolean",
  ],
  ["count: negative page", () => c.countIntegrations({ page: -1 }), "filter.page", "Too small"],
  [
    "directory: empty id",
    () => c.updateDirectoryUser("", { credentialsExposed: true }),
    "id",
    "must be a non-empty string",
  ],
  [
    "directory: non-boolean flag",
    () => c.updateDirectoryUser("u1", { credentialsExposed: "true" as never }),
    "update.credentialsExposed",
    "expected boolean",
  ],
  [
    "directory: unknown flag",
    () => c.updateDirectoryUser("u1", { vip: true } as never),
    "update.vip",
    "is not a known field",
  ],
  ["directory: no flag", () => c.updateDirectoryUser("u1", {}), "update", "set at least one of"],
  [
    "rule: empty search",
    () => c.createHvaRule({ field: "name", search: "" }),
    "rule.search",
    "must be a non-empty string",
  ],
  ["rule: missing field", () => c.createHvaRule({ search: "x" } as never), "rule.field", "expected string"],
  [
    "rule: enabled not boolean",
    () => c.setHvaRuleEnabled("r1", "false" as never),
    "enabled",
    "must be a boolean",
  ],
  [
    "indicators: bad sort",
    () => c.listCaseThreatIndicators("c1", { sortDirection: "up" as never }),
    "options.sortDirection",
    "Invalid option",
  ],
  ["indicators: empty case id", () => c.listCaseThreatIndicators(""), "caseId", "must be a non-empty string"],
  ["comment: nothing to change", () => c.editTimelineComment("c1", {}), "edit", "set content, files or both"],
  [
    "comment: file without data",
    () =>
      c.editTimelineComment("c1", {
        files: [{ filename: "a.png", contentType: "image/png", data: "x" as never }],
      }),
    "edit.files[0].data",
    "must be a Uint8Array",
  ],
  [
    "comment: bad content type",
    () =>
      c.editTimelineComment("c1", {
        files: [{ filename: "a.png", contentType: "png", data: new Uint8Array() }],
      }),
    "edit.files[0].contentType",
    "must be a MIME type",
  ],
];

test.each(cases)("%s", async (_name, call, field, reason) => {
  expect.assertions(4);
  const before = rec.requests.length;
  await call().catch((e) => {
    expect(e.code).toBe("SECOPS_INVALID_INPUT");
    expect(e.field).toBe(field);
    expect(e.message.startsWith(`${field}: `) && e.message.includes(reason)).toBe(true);
  });
  expect(rec.requests.length).toBe(before);
});
