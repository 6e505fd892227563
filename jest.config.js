/** @type {import('jest').Config} */
module.exports = {
  preset: "ts-jest",
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  // The offline runner's own tests (tests/rig/tests/) are the rig's suite, not the package's:
  // `npm run test:rig` (jest.rig.config.js), run once by CI.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/tests/rig/"],
  // The shims serialized into Pulumi state load the implementation by the package's own name;
  // inside jest that name resolves to the TypeScript sources, and so does the simulator package's.
  moduleNameMapper: {
    "^pulumi-secops$": "<rootDir>/provider/index.ts",
    "^pulumi-secops/(.*)$": "<rootDir>/provider/$1",
    "^secops-sim$": "<rootDir>/simulator/index.ts",
    "^secops-sim/(.*)$": "<rootDir>/simulator/$1",
  },
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json", diagnostics: { warnOnly: false } }],
  },
  testTimeout: 60000,
  // Two workers on the 2-core CI machine (jest's default there is one): most test files wait on child
  // processes (plugins, hosts, simulators), so two files at once halve the wall time (issue 23 point 9:
  // 447 s per leg before, ~205 s here with transpile-only ts-jest).
  maxWorkers: 2,
  // A worker's memory grows with every file it runs (module registries, plugins' and hosts' buffers):
  // by the end of a run each held 2.0-2.6 GB RSS and took 180-400 ms to exit, and over jest's 500 ms
  // it is killed with "A worker process has failed to exit gracefully" (no handle was left open: at
  // its end a worker held only its stdio and IPC pipes). Recycled once its heap passes 500 MB after a
  // file (about 4 restarts a run), a worker ends near 0.5 GB and exits in under 100 ms; the run is no
  // slower (127 s against 141 s at c8e91b8 on the 2-core CI machine, Node 22: less time in GC).
  workerIdleMemoryLimit: "500MB",
  globalSetup: "<rootDir>/tests/helpers/global-setup.js",
  globalTeardown: "<rootDir>/tests/helpers/global-teardown.js",
};
