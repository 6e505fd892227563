// The native plugin's data sources through explicit providers, one per client team.
"use strict";
const pulumi = require("@pulumi/pulumi");
const secops = require("pulumi-secops/native");

const config = new pulumi.Config();
const baseUrl = config.require("baseUrl");
for (const team of ["c1", "c2"]) {
  const provider = new secops.Provider(team, { apiKey: config.requireSecret(`${team}ApiKey`), baseUrl });
  module.exports[team] = secops.getIdentityOutput({ provider }).apply((me) => `${me.teamId} ${me.role}`);
  module.exports[`${team}Integrations`] = secops.getIntegrationCountOutput({}, { provider }).totalCount;
}
