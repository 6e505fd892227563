// A misspelt Provider argument in plain JavaScript: no compiler catches `apikey`.
"use strict";
const pulumi = require("@pulumi/pulumi");
const secops = require("pulumi-secops/native");

const config = new pulumi.Config();
const provider = new secops.Provider("c1", {
  apikey: config.requireSecret("key"),
  baseUrl: config.require("baseUrl"),
});
new secops.HvaAutomationRule("r1", { field: "name", search: "typo-*" }, { provider });
