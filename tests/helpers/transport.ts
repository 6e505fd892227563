/**
 * Which sender a shared test file runs with. A `*-node.test.ts` file sets the global, then requires
 * the shared file, so one set of HTTP tests checks both: undici (the default) and `transport: "node"`
 * (the native plugin's).
 */
const G = globalThis as { SECOPS_TEST_TRANSPORT?: "node" };

/** Runs the file `load` requires with `transport: "node"`. */
export function withNodeTransport(load: () => unknown): void {
  G.SECOPS_TEST_TRANSPORT = "node";
  load();
}

/** The client option that selects the sender under test (nothing: the default). */
export function testTransport(): { transport?: "node" } {
  return G.SECOPS_TEST_TRANSPORT ? { transport: G.SECOPS_TEST_TRANSPORT } : {};
}
