/**
 * Part of the plugin bundle (scripts/bundle-plugin.js): Pulumi's generated protocol stubs
 * (`@pulumi/pulumi/proto/*_pb.js`) define every message of the protocol, 80 classes in provider_pb.js
 * alone, each built at load and kept for the life of every plugin process. `trim` keeps the messages
 * the plugin names (`KEEP`), every message or enum those refer to, transitively, and the file's own
 * plumbing; the rest of a message's statements (its class, methods, exports, debug names) are dropped.
 * A message reached only through a kept one is always kept, so decoding never meets a missing class.
 */
"use strict";
const ts = require("typescript");

/** The messages the plugin uses, by file: the RPCs it serves (server.ts) and what they build. */
const KEEP = {
  "provider_pb.js": [
    "GetSchemaRequest",
    "GetSchemaResponse",
    "CheckRequest",
    "CheckResponse",
    "CheckFailure",
    "DiffRequest",
    "DiffResponse",
    "PropertyDiff",
    "ConfigureRequest",
    "ConfigureResponse",
    "CreateRequest",
    "CreateResponse",
    "ReadRequest",
    "ReadResponse",
    "UpdateRequest",
    "UpdateResponse",
    "DeleteRequest",
    "InvokeRequest",
    "InvokeResponse",
    "ErrorResourceInitFailed",
  ],
  "engine_pb.js": ["LogRequest", "LogSeverity"],
  "plugin_pb.js": ["PluginInfo"],
};

/** `proto.pulumirpc.A.B.prototype.c` -> "A": the top-level message or enum a name belongs to. */
const OWNER = /proto\.pulumirpc\.([A-Z]\w*)/g;

/** The top-level names a statement defines or refers to. */
function names(text) {
  return new Set([...text.matchAll(OWNER)].map((m) => m[1]));
}

/** The top-level name a statement defines, if it defines one (its first reference). */
function owner(text) {
  const m = /proto\.pulumirpc\.([A-Z]\w*)/.exec(text);
  return m ? m[1] : undefined;
}

/**
 * The source of a stub file with only `keep` and what it reaches. Statements that define nothing (the
 * requires, `goog.object.extend(exports, ...)`) stay as they are.
 */
function trim(source, keep) {
  const file = ts.createSourceFile("pb.js", source, ts.ScriptTarget.ES2020, false, ts.ScriptKind.JS);
  const statements = file.statements.map((s) => {
    const text = source.slice(s.getFullStart(), s.getEnd());
    return { text, owner: owner(text), refs: names(text) };
  });
  const kept = new Set(keep);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of statements)
      if (s.owner && kept.has(s.owner))
        for (const r of s.refs)
          if (!kept.has(r)) {
            kept.add(r);
            grew = true;
          }
  }
  const missing = keep.filter((k) => !statements.some((s) => s.owner === k));
  if (missing.length > 0) throw new Error(`trim-pb: the stubs define no ${missing.join(", ")}`);
  return statements
    .filter((s) => !s.owner || kept.has(s.owner))
    .map((s) => s.text)
    .join("");
}

module.exports = { trim, KEEP };
