// Rules and directory-user settings declared from config, through the native SDK (explicit providers)
// or the package root's dynamic resources (`front` = "dynamic": the program's secops:* config).
// Config: `front`, `baseUrl`, each provider's key as a secret `<provider>ApiKey`, and `resources`
// (JSON: [{ "name", "provider"?, "search"?, "adoptExisting"?, "user"?, "needsChatOpsWelcome"?,
// "restoreOnDelete"?, "aliases"? }]: a rule when `search` is given, else directory user `user`'s
// settings).
"use strict";
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const dynamic = config.get("front") === "dynamic";
const secops = require(dynamic ? "pulumi-secops" : "pulumi-secops/native");

const providers = new Map();
const providerOf = (name) => {
  if (dynamic || !name) return undefined;
  if (!providers.has(name))
    providers.set(
      name,
      new secops.Provider(name, {
        apiKey: config.requireSecret(`${name}ApiKey`),
        baseUrl: config.require("baseUrl"),
      }),
    );
  return providers.get(name);
};

for (const r of config.requireObject("resources")) {
  const opts = { provider: providerOf(r.provider), aliases: r.aliases };
  if (r.search !== undefined)
    new secops.HvaAutomationRule(
      r.name,
      { field: "name", search: r.search, ...(r.adoptExisting ? { adoptExisting: true } : {}) },
      opts,
    );
  else
    new secops.DirectoryUserSettings(
      r.name,
      {
        directoryUserId: r.user,
        needsChatOpsWelcome: r.needsChatOpsWelcome,
        ...(r.restoreOnDelete ? { restoreOnDelete: true } : {}),
      },
      opts,
    );
}
