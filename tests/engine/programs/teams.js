// A managed service provider's program in plain JavaScript: one explicit provider per client team.
// Config: `teams` (JSON: { "<provider name>": { "rules": ["<search>", ...], "baseUrl"?: "<url>",
// "adoptExisting"?: true } }),
// `baseUrl`, and each team's key as a secret, `<provider name>ApiKey` (left out: no key).
"use strict";
const pulumi = require("@pulumi/pulumi");
const secops = require("pulumi-secops/native");

const config = new pulumi.Config();
const teams = config.requireObject("teams");
for (const [name, team] of Object.entries(teams)) {
  const apiKey = config.getSecret(`${name}ApiKey`);
  const provider = new secops.Provider(name, {
    ...(apiKey ? { apiKey } : {}),
    baseUrl: team.baseUrl ?? config.require("baseUrl"),
  });
  for (const search of team.rules)
    new secops.HvaAutomationRule(
      `${name}-${search.replace(/\W/g, "")}`,
      { field: "name", search, ...(team.adoptExisting ? { adoptExisting: true } : {}) },
      { provider },
    );
}
