/**
 * The offline runner's own suite (tests/rig/tests/): the runner against the real engine, programs as
 * users write them through the runner, and the runner with native programs. The runner is the rig of
 * the offline demo (`npm run demo`), not part of the package, so its tests are not the package's
 * (`npm test`); `npm run test:rig` runs them, and CI runs them once, on its first leg.
 */
const base = require("./jest.config.js");

/** @type {import('jest').Config} */
module.exports = { ...base, roots: ["<rootDir>/tests/rig"], testPathIgnorePatterns: ["/node_modules/"] };
