/**
 * The create-intent journal of every test, and of every plugin, host and runner a test starts, is kept
 * in one temporary folder, never in the user's ~/.pulumi. Set here, in jest's own process, because a
 * test's `process.env` is a copy that the processes it spawns do not inherit.
 */
const { mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

module.exports = () => {
  process.env.SECOPS_INTENT_DIR = mkdtempSync(join(tmpdir(), "secops-intents-"));
};
