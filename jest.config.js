/** @type {import('jest').Config} */
module.exports = {
  preset: "ts-jest",
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  // The shims serialized into Pulumi state load the implementation by the package's own name;
  // inside jest that name resolves to the TypeScript sources.
  moduleNameMapper: {
    "^pulumi-secops$": "<rootDir>/provider/index.ts",
    "^pulumi-secops/(.*)$": "<rootDir>/provider/$1",
  },
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json", diagnostics: { warnOnly: false } }] },
  testTimeout: 60000,
  globalSetup: "<rootDir>/tests/helpers/global-setup.js",
  globalTeardown: "<rootDir>/tests/helpers/global-teardown.js",
};
