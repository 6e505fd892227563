// Two native rules and a data source under the default provider (the stack config's settings).
"use strict";
const secops = require("pulumi-secops/native");

new secops.HvaAutomationRule("dc", { field: "name", search: "nat-default-dc-*" });
new secops.HvaAutomationRule("build", { field: "name", search: "nat-default-build-*" });
module.exports.role = secops.getIdentityOutput().role;
