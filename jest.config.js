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
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json", diagnostics: { warnOnly: false } }],
  },
  testTimeout: 60000,
  // Two workers on the 2-core CI machine (jest's default there is one): most test files wait on child
  // processes (plugins, hosts, simulators), so two files at once halve the wall time (issue 23 point 9:
  // 447 s per leg before, ~205 s here with transpile-only ts-jest).
  maxWorkers: 2,
  globalSetup: "<rootDir>/tests/helpers/global-setup.js",
  globalTeardown: "<rootDir>/tests/helpers/global-teardown.js",
};
