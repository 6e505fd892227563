/**
 * pulumi-secops: Pulumi resources, data sources and a typed client for the Security Operations
 * Service API. This file only re-exports.
 */
export * from "./client";
export { VERSION } from "./version";
export { CONFIG_KEYS, ENV_VARS, resolveSettings, type ConnectionOptions } from "./config";
export { HvaAutomationRule, type HvaAutomationRuleArgs } from "./resources/hva-automation-rule";
export {
  DirectoryUserSettings,
  USER_FLAGS,
  type DirectoryUserSettingsArgs,
  type UserFlag,
} from "./resources/directory-user-settings";
