/**
 * pulumi-secops: Pulumi resources, data sources and a typed client for the Security Operations
 * Service API. This file only re-exports.
 */
export * from "./client";
export { VERSION } from "./version";
export { CONFIG_KEYS, ENV_VARS, closeSharedClients, resolveSettings, type ConnectionOptions } from "./config";
export { HvaAutomationRule, type HvaAutomationRuleArgs } from "./resources/hva-automation-rule";
export {
  DirectoryUserSettings,
  USER_FLAGS,
  type DirectoryUserSettingsArgs,
  type UserFlag,
} from "./resources/directory-user-settings";
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
export type { FunctionOptions } from "./functions/common";
