// Two dynamic rules and a data source from the package root, all under the stack config's settings.
"use strict";
const secops = require("pulumi-secops");

new secops.HvaAutomationRule("dc", { field: "name", search: "dyn-data-dc-*" });
new secops.HvaAutomationRule("build", { field: "name", search: "dyn-data-build-*" });
module.exports.role = secops.getIdentityOutput().role;
