// A user's program that touches every public export of pulumi-secops, compiled by the consumer test
// with the tsconfig of `pulumi new typescript` (strict, moduleResolution node, no skipLibCheck, no
// esModuleInterop). The test fails when an export is missing here, so new exports get covered.
import * as pulumi from "@pulumi/pulumi";
import * as secops from "pulumi-secops";
import * as client from "pulumi-secops/client";
import * as simulator from "secops-sim";
import * as native from "pulumi-secops/native";
import * as drift from "pulumi-secops/drift";
import * as hvaModule from "pulumi-secops/resources/hva-automation-rule";
import * as usersModule from "pulumi-secops/resources/directory-user-settings";

const rule = new secops.HvaAutomationRule("dc", {
  field: "name",
  search: pulumi.output("dc-*"),
  enabled: true,
});
const ruleArgs: secops.HvaAutomationRuleArgs = { field: "name", search: "srv-*", adoptExisting: false };
const flag: secops.UserFlag = secops.USER_FLAGS[0];
const userArgs: secops.DirectoryUserSettingsArgs = { directoryUserId: "du-1", [flag]: false };
const user = new secops.DirectoryUserSettings("ada", { ...userArgs, restoreOnDelete: true });
export const ruleId: pulumi.Output<string> = rule.id;
export const userEmail = user.email;

const lazyOpts: secops.InputFields<secops.FunctionOptions> = { apiKey: pulumi.secret("k") };
void lazyOpts;
const opts: secops.FunctionOptions & secops.ConnectionOptions = {
  apiKey: "k",
  baseUrl: "https://api.example.test",
};
const me: pulumi.Output<secops.Identity> = secops.getIdentityOutput();
export const role: pulumi.Output<secops.Role | client.Role> = me.role;
// Known fields are typed exactly: a misspelt one does not compile (the directive fails if it would).
// @ts-expect-error rol is not a field of Identity
export const typo = me.apply((m) => m.rol);
export const added = me.apply((m) => (m as secops.WithUnknownKeys<secops.Identity>).fieldTheApiAdded);
const countResult: Promise<secops.IntegrationCountResult> = secops.getIntegrationCount(
  { search: "okta" },
  opts,
);
export const count = secops.getIntegrationCountOutput({
  search: pulumi.output("okta"),
  healthStatus: ["unhealthy"],
}).totalCount;
const indicatorArgs: secops.GetCaseThreatIndicatorsArgs = { caseId: "case-1", sortDirection: "asc" };
const indicators: Promise<secops.GetCaseThreatIndicatorsResult> =
  secops.getCaseThreatIndicators(indicatorArgs);
const indicatorsOutput = secops.getCaseThreatIndicatorsOutput({ caseId: "case-1" });
export const firstTitle = indicatorsOutput.indicators.apply((d: secops.Detection[]) => d[0]?.title ?? "");
void [secops.getIdentity, countResult, indicators, secops.closeSharedClients, secops.resolveSettings];
const keys: string[] = [secops.CONFIG_KEYS.apiKey, secops.ENV_VARS.baseUrl, secops.VERSION];

// The client and its errors, from the root and from pulumi-secops/client.
const c: secops.SecOpsClient = new client.SecOpsClient({ apiKey: "k", baseUrl: "https://api.example.test" });
const clientOptions: secops.SecOpsClientOptions | client.SecOpsClientOptions = {
  apiKey: "k",
  baseUrl: "https://x.test",
  timeoutMs: 1000,
};
async function useClient(cl: client.SecOpsClient): Promise<void> {
  const id: client.Identity = await cl.getIdentity();
  const extra: unknown = (id as client.WithUnknownKeys<client.Identity>).addedByTheApi;
  const u: client.DirectoryUser = await cl.updateDirectoryUser("du-1", { credentialsExposed: false });
  const update: client.DirectoryUserUpdate = { needsChatOpsWelcome: true };
  const filter: client.IntegrationFilter = { integrationTypes: ["siem"], sortDirection: "desc" };
  const total: number = await cl.countIntegrations(filter);
  const file: client.CommentFile = { filename: "a.png", contentType: "image/png", data: new Uint8Array(1) };
  const edit: client.TimelineCommentEdit = { content: "x", files: [file] };
  const comment: client.TimelineComment = await cl.editTimelineComment("cmt-1", edit);
  const attachment: client.Attachment | undefined = comment.attachments?.[0];
  const create: client.HvaRuleCreate = { field: "name", search: "dc-*" };
  const r: client.HvaRule = await cl.createHvaRule(create);
  const sf: client.HvaSearchField | null | undefined = r.searchField;
  const { data: d }: { data: client.Detection[] } = await cl.listCaseThreatIndicators("case-1");
  const parts: [
    client.Endpoint?,
    client.File?,
    client.Process?,
    client.Location?,
    client.Ip?,
    client.Domain?,
    client.Artifact?,
    client.ChatOpsAction?,
    client.ContainmentAction?,
    (client.VerdictSetting | null)?,
    client.UserAgent?,
    (client.ProcessTree | null)?,
    (client.CustomDetection | null)?,
    (client.ExternalCustomDetection | null)?,
    client.UserGroupAssignment?,
    (client.GroupAssignment & secops.GroupAssignment)?,
    client.EndpointGroupAssignment?,
    client.License?,
    client.ClusterMember?,
  ] = [
    d[0]?.endpoints?.[0],
    d[0]?.files?.[0],
    d[0]?.processes?.[0],
    d[0]?.locations?.[0],
    d[0]?.ips?.[0],
    d[0]?.domains?.[0],
    d[0]?.artifacts?.[0],
    d[0]?.chatOpsActions?.[0],
    d[0]?.containmentActions?.[0],
    d[0]?.verdictSetting ?? undefined,
    d[0]?.userAgents?.[0],
    d[0]?.processTree ?? undefined,
    d[0]?.customDetection ?? undefined,
    d[0]?.externalCustomDetection ?? undefined,
    u.groups?.[0],
    u.groups?.[0],
    d[0]?.endpoints?.[0]?.groups?.[0],
    u.licenses?.[0],
    u.canonicalClusterMembers?.[0],
  ];
  const page: client.ThreatIndicatorPage = { data: d, totalCount: d.length };
  const body: client.ErrorBody = { message: "m", statusCode: 404 };
  const counted: client.IntegrationCount = { totalCount: total };
  const enums: [
    client.HealthStatus,
    client.IntegrationType,
    client.SortDirection,
    client.ServiceProviderScope,
  ] = [
    client.HEALTH_STATUSES[0],
    client.INTEGRATION_TYPES[0],
    client.SORT_DIRECTIONS[0],
    client.SERVICE_PROVIDER_SCOPES[0],
  ];
  const open: client.OpenEnum<"a"> = "b";
  const known = [
    client.ROLES,
    client.HVA_SEARCH_FIELDS,
    client.EMAIL_DIRECTIONS,
    client.DETECTION_ENUMS.status,
  ];
  void [extra, update, attachment, sf, parts, page, body, counted, enums, open, known];
  const toFile: secops.CsvExportToFileOptions & client.CsvExportToFileOptions = { deadlineMs: 60_000 };
  const streamed: secops.CsvExportOptions & client.CsvExportOptions = { deadlineMs: 60_000 };
  await cl.exportCasesCsvToFile("/tmp/cases.csv", { ...toFile, onProgress: (n) => void n });
  (await cl.exportCasesCsv(streamed)).destroy();
  (await cl.exportCasesCsv()).destroy();
  await cl.close();
}
function describe(err: unknown): string {
  if (client.isSecOpsError(err, client.ErrorCodes.NOT_FOUND)) return `gone: ${err.path}`;
  const code: client.ErrorCode | undefined = err instanceof secops.SecOpsError ? err.code : undefined;
  const details: client.SecOpsErrorDetails = { method: "GET", path: "/v1/auth/me" };
  const classes = [
    client.SecOpsError,
    client.SecOpsApiError,
    client.SecOpsNetworkError,
    client.SecOpsTimeoutError,
    client.SecOpsAmbiguousError,
    client.SecOpsResponseError,
    client.SecOpsSafetyError,
    client.SecOpsInputError,
    client.SecOpsConfigError,
    secops.SecOpsApiError,
    secops.SecOpsNetworkError,
    secops.SecOpsTimeoutError,
    secops.SecOpsAmbiguousError,
    secops.SecOpsResponseError,
    secops.SecOpsSafetyError,
    secops.SecOpsInputError,
    secops.SecOpsConfigError,
  ];
  return `${code ?? "other"} ${details.path} ${classes.length} ${secops.isSecOpsError(err)} ${secops.ErrorCodes.AUTH}`;
}
const rootTypes: [
  secops.Attachment?,
  secops.ChatOpsAction?,
  secops.ClusterMember?,
  secops.CommentFile?,
  secops.ContainmentAction?,
  secops.CustomDetection?,
  secops.DirectoryUser?,
  secops.DirectoryUserUpdate?,
  secops.Domain?,
  secops.Endpoint?,
  secops.EndpointGroupAssignment?,
  secops.ErrorBody?,
  secops.ErrorCode?,
  secops.ExternalCustomDetection?,
  secops.File?,
  secops.HealthStatus?,
  secops.HvaRule?,
  secops.HvaRuleCreate?,
  secops.HvaSearchField?,
  secops.IntegrationCount?,
  secops.IntegrationFilter?,
  secops.IntegrationType?,
  secops.Ip?,
  secops.License?,
  secops.Location?,
  secops.OpenEnum<"x">?,
  secops.Process?,
  secops.ProcessTree?,
  secops.SecOpsErrorDetails?,
  secops.ServiceProviderScope?,
  secops.SortDirection?,
  secops.ThreatIndicatorPage?,
  secops.TimelineComment?,
  secops.TimelineCommentEdit?,
  secops.UserAgent?,
  secops.UserGroupAssignment?,
  secops.VerdictSetting?,
  secops.WithUnknownKeys<secops.Identity>?,
  secops.Artifact?,
] = [];
const rootValues = [
  secops.DETECTION_ENUMS,
  secops.EMAIL_DIRECTIONS,
  secops.HEALTH_STATUSES,
  secops.HVA_SEARCH_FIELDS,
  secops.INTEGRATION_TYPES,
  secops.ROLES,
  secops.SERVICE_PROVIDER_SCOPES,
  secops.SORT_DIRECTIONS,
  secops.assumptions.routes,
  client.assumptions.paging,
];

// The simulator.
async function offline(): Promise<void> {
  const simOptions: simulator.SimulatorOptions = {
    seed: 1,
    strictSpec: false,
    faults: "429:0.1@PUT /endpoint",
  };
  const sim: simulator.Simulator = await simulator.createSimulator(simOptions);
  const simKeys: simulator.SimulatorKeys = sim.apiKeys;
  const control: simulator.SimulatorControl = sim.control;
  const rules: simulator.FaultRule[] = simulator.parseFaultSpec("503:0.2");
  const kind: simulator.FaultKind = simulator.FAULT_KINDS[0];
  const columns: readonly string[] = simulator.CSV_COLUMNS;
  void [simKeys, control, rules, kind, columns];
  await sim.close();
}

// The native SDK: one explicit provider per team, resources and invokes through it.
const nativeArgs: native.ProviderArgs = {
  apiKey: pulumi.secret("team-key-123"),
  baseUrl: "https://api.example.test",
};
const team = new native.Provider("team-1", nativeArgs);
const nativeRuleArgs: native.HvaAutomationRuleArgs = { field: "name", search: "dc-*" };
const nativeRule = new native.HvaAutomationRule("team-1-dc", nativeRuleArgs, { provider: team });
const nativeUserArgs: native.DirectoryUserSettingsArgs = {
  directoryUserId: "du-1",
  credentialsExposed: false,
};
const nativeUser = new native.DirectoryUserSettings("team-1-ada", nativeUserArgs, {
  provider: team,
  import: "du-1",
});
const adopted = native.HvaAutomationRule.get("existing", "hva-1", { provider: team });
const nativeIdentity: Promise<secops.Identity> = native.getIdentity({ provider: team });
const nativeIdentityOut: pulumi.Output<secops.Identity> = native.getIdentityOutput({ provider: team });
const nativeCount: Promise<secops.IntegrationCountResult> = native.getIntegrationCount({
  includeDisabled: true,
});
const nativeCountOut = native.getIntegrationCountOutput(
  { search: pulumi.output("okta") },
  { provider: team },
);
const nativeCase: Promise<secops.GetCaseThreatIndicatorsResult> = native.getCaseThreatIndicators({
  caseId: "case-001",
});
const nativeCaseOut = native.getCaseThreatIndicatorsOutput({ caseId: pulumi.output("case-001") });
export const nativeOutputs = [
  nativeRule.teamId,
  nativeUser.previousValues,
  adopted.enabled,
  nativeIdentityOut,
  nativeCountOut,
  nativeCaseOut,
];
void [nativeIdentity, nativeCount, nativeCase];

// The drift report as a library (what `secops drift` prints).
async function driftCheck(): Promise<boolean> {
  const ignore: drift.IgnoreRule[] = [
    ...drift.parseIgnore("hva-1 # made by the SOC"),
    ...drift.readIgnore("ignore.txt"),
  ];
  const resources: drift.ManagedResource[] = drift.readManaged("stack.json");
  const kinds: Array<drift.ManagedKind | undefined> = [drift.kindOf("secops:index:HvaAutomationRule")];
  const key: drift.DriftKey = { name: "TEAM_A_KEY", key: process.env.TEAM_A_KEY ?? "" };
  const other: drift.StackExport = { name: "acme/prod", resources: [] };
  const options: drift.DriftOptions = {
    baseUrl: "http://127.0.0.1:8080",
    keys: [key],
    ignore,
    others: [other],
  };
  try {
    const report: drift.DriftReport = await drift.driftReport(resources, options);
    const team: drift.TeamDrift | undefined = report.teams[0];
    const ref: drift.DriftRef | undefined = team?.inSync[0];
    const format: drift.DriftFormat = drift.DRIFT_FORMATS[0];
    const limits: drift.MarkdownLimits = { rows: drift.MARKDOWN_LIMITS.rows, jsonFile: "drift.json" };
    void [
      kinds,
      ref,
      drift.ENCRYPTED,
      drift.formatDrift(report, format),
      drift.formatDrift(report, "markdown", limits),
    ];
    return drift.isClean(report);
  } catch (err) {
    if (err instanceof drift.DriftInputError) return false;
    throw err;
  }
}

// The implementation modules the serialized providers load by name (kept for existing state).
const implementations = [hvaModule.provider, usersModule.provider];
const moduleTypes: [
  hvaModule.HvaRuleInputs?,
  hvaModule.HvaRuleOutputs?,
  usersModule.DirectoryUserSettingsInputs?,
  usersModule.DirectoryUserSettingsOutputs?,
] = [];
void [
  ruleArgs,
  keys,
  c,
  clientOptions,
  useClient,
  describe,
  rootTypes,
  rootValues,
  offline,
  implementations,
  moduleTypes,
  driftCheck,
];
