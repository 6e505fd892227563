/**
 * A managed service provider's program: the same HVA rules for each client team, one explicit
 * native provider per team (its own API key), plus a legacy rule adopted with the `import` option.
 *
 *   pulumi config set baseUrl https://secops.example.com
 *   pulumi config set --secret client1ApiKey <team-client-1 key>
 *   pulumi config set --secret client2ApiKey <team-client-2 key>
 *   pulumi config set legacyRuleId <id of an existing client-2 rule>   # optional: adopt it
 */
import * as pulumi from "@pulumi/pulumi";
import * as secops from "pulumi-secops/native";

const config = new pulumi.Config();
const baseUrl = config.require("baseUrl");

const teams = ["client1", "client2"] as const;
const providers: Record<string, secops.Provider> = {};
const identities: Record<string, pulumi.Output<string>> = {};
const ruleIds: Record<string, pulumi.Output<string>> = {};

for (const team of teams) {
  const provider = new secops.Provider(team, { apiKey: config.requireSecret(`${team}ApiKey`), baseUrl });
  providers[team] = provider;
  const domainControllers = new secops.HvaAutomationRule(
    `${team}-domain-controllers`,
    { field: "name", search: "dc-*" },
    { provider },
  );
  new secops.HvaAutomationRule(
    `${team}-jump-hosts`,
    { field: "name", search: "jump-*", enabled: false },
    { provider },
  );
  ruleIds[team] = domainControllers.id;
  identities[team] = secops.getIdentityOutput({ provider }).apply((me) => `${me.teamId} (${me.role})`);
}

// Adopt a rule that was made by hand: the program's inputs must match it, or the import fails.
const legacyRuleId = config.get("legacyRuleId");
if (legacyRuleId) {
  new secops.HvaAutomationRule(
    "client2-legacy",
    { field: "name", search: "legacy-*" },
    { provider: providers.client2, import: legacyRuleId },
  );
}

export const teamsManaged = identities;
export const domainControllerRules = ruleIds;
