// A misspelt name that no SDK refused, as a language whose SDK does not check names sends it: the
// provider and the rule are registered without pulumi-secops/native, so the plugin's CheckConfig and
// Check are the first to see the typo (config `typo`: "provider" or "rule").
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const typo = config.require("typo");
const key = config.requireSecret("key");
const provider = new pulumi.ProviderResource("secops", "client1", {
  [typo === "provider" ? "apikey" : "apiKey"]: key,
  baseUrl: config.require("baseUrl"),
});
const rule = { field: "name", search: "untyped-dc-*", [typo === "rule" ? "enabld" : "enabled"]: false };
new pulumi.CustomResource("secops:index:HvaAutomationRule", "dc-rule", rule, { provider });
