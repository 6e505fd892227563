/**
 * pulumi-secops: Pulumi resources, data sources and a typed client for the Security Operations
 * Service API. This file only re-exports.
 */
// The client's public surface, exactly as `pulumi-secops/client` lists it (the semver contract).
export * from "./client";
export { VERSION } from "./version";
export { CONFIG_KEYS, ENV_VARS, closeSharedClients, resolveSettings, type ConnectionOptions } from "./config";
export {
  DirectoryUserSettings,
  HvaAutomationRule,
  type DirectoryUserSettingsArgs,
  type HvaAutomationRuleArgs,
} from "./dynamic";
export { USER_FLAGS, type UserFlag } from "./resources/directory-user-settings";
export { getIdentity, getIdentityOutput } from "./functions/get-identity";
export {
  getIntegrationCount,
  getIntegrationCountOutput,
  type IntegrationCountResult,
} from "./functions/get-integration-count";
export {
  getCaseThreatIndicators,
  getCaseThreatIndicatorsOutput,
  type GetCaseThreatIndicatorsArgs,
  type GetCaseThreatIndicatorsResult,
} from "./functions/get-case-threat-indicators";
export type { FunctionOptions, InputFields } from "./functions/common";
