/**
 * `pulumi-secops/native`: the SDK of the native provider plugin `pulumi-resource-secops` (what
 * `pulumi package gen-sdk` would generate, written by hand). Needs the plugin installed (README:
 * "Native provider"); the dynamic resources at the package root need nothing.
 */
export { Provider, type ProviderArgs } from "./provider";
export { HvaAutomationRule, type HvaAutomationRuleArgs } from "./hva-automation-rule";
export { DirectoryUserSettings, type DirectoryUserSettingsArgs } from "./directory-user-settings";
export {
  getCaseThreatIndicators,
  getCaseThreatIndicatorsOutput,
  getIdentity,
  getIdentityOutput,
  getIntegrationCount,
  getIntegrationCountOutput,
} from "./functions";
