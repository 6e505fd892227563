/**
 * The public surface, pinned: what each entry point exports at run time. Adding or removing a name
 * is a semver decision: change this list on purpose. (Types are covered by the consumer test, which
 * compiles a program using every exported name of the built `.d.ts` files.)
 */
import * as root from "pulumi-secops";
import * as client from "pulumi-secops/client";
import * as simulator from "secops-sim";
import * as simulatorCli from "secops-sim/cli";
import * as testing from "../rig";
import * as native from "pulumi-secops/native";
import * as drift from "pulumi-secops/drift";
import * as policy from "pulumi-secops/policy";

const ERRORS_AND_ENUMS = [
  "DETECTION_ENUMS",
  "EMAIL_DIRECTIONS",
  "ErrorCodes",
  "HEALTH_STATUSES",
  "HVA_SEARCH_FIELDS",
  "INTEGRATION_TYPES",
  "ROLES",
  "SERVICE_PROVIDER_SCOPES",
  "SORT_DIRECTIONS",
  "SecOpsAmbiguousError",
  "SecOpsApiError",
  "SecOpsClient",
  "SecOpsConfigError",
  "SecOpsError",
  "SecOpsInputError",
  "SecOpsNetworkError",
  "SecOpsResponseError",
  "SecOpsSafetyError",
  "SecOpsTimeoutError",
  "assumptions",
  "isSecOpsError",
];

const keys = (m: object) => Object.keys(m).sort();

test("each entry point exports exactly its pinned names", () => {
  expect(keys(root)).toEqual(
    [
      ...ERRORS_AND_ENUMS,
      "CONFIG_KEYS",
      "DirectoryUserSettings",
      "ENV_VARS",
      "HvaAutomationRule",
      "USER_FLAGS",
      "VERSION",
      "closeSharedClients",
      "getCaseThreatIndicators",
      "getCaseThreatIndicatorsOutput",
      "getIdentity",
      "getIdentityOutput",
      "getIntegrationCount",
      "getIntegrationCountOutput",
      "resolveSettings",
    ].sort(),
  );
  expect(keys(client)).toEqual([...ERRORS_AND_ENUMS].sort());
  expect(keys(simulator)).toEqual([
    "CSV_COLUMNS",
    "FAULT_KINDS",
    "SimulatorControl",
    "createSimulator",
    "parseFaultSpec",
  ]);
  // What `secops sim` runs (provider/cli/secops.ts loads it by this name).
  expect(keys(simulatorCli)).toEqual(["simCommand", "simMain"]);
  expect(keys(testing)).toEqual([
    "DynamicProviderHost",
    "InitFailedError",
    "LifecycleRunner",
    "NativePluginProcess",
    "ProviderProcess",
    "StepFailedError",
    "declaredResources",
    "formatSteps",
    "linkPackage",
    "secret",
    "stepsOf",
    "urnOf",
  ]);
  expect(keys(drift)).toEqual([
    "DRIFT_FORMATS",
    "DriftInputError",
    "ENCRYPTED",
    "MARKDOWN_LIMITS",
    "driftReport",
    "formatDrift",
    "isClean",
    "kindOf",
    "parseIgnore",
    "readIgnore",
    "readManaged",
  ]);
  expect(keys(policy)).toEqual(["PACK_NAME", "policies", "servePolicyPack"]);
  expect(keys(native)).toEqual([
    "DirectoryUserSettings",
    "HvaAutomationRule",
    "Provider",
    "getCaseThreatIndicators",
    "getCaseThreatIndicatorsOutput",
    "getIdentity",
    "getIdentityOutput",
    "getIntegrationCount",
    "getIntegrationCountOutput",
  ]);
});

test("internals are not part of the contract", () => {
  const everything = new Set([root, client, simulator, testing, native, drift].flatMap(keys));
  for (const internal of [
    "fields",
    "optString",
    "jsonPath",
    "parseInput",
    "registerSecret",
    "redact",
    "apiError",
    "codeForStatus",
    "provider",
    "shim",
  ])
    expect([internal, everything.has(internal)]).toEqual([internal, false]);
});
