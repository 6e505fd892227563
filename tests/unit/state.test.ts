/**
 * The runner's state file (issue 13): each serialized provider stored once, each resource's change
 * appended to a journal (O(1) per resource) and compacted once per step; a journal cut short by a crash
 * replays up to its last whole line.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Journal } from "../rig/journal";
import { readState, upsert, writeState, type State, type StateResource } from "../rig/state";

/** Bytes the journal of `path` holds now. */
const journalSize = (path: string) => (existsSync(`${path}.journal`) ? statSync(`${path}.journal`).size : 0);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "secops-state-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const PROVIDER = `exports.handler = function () { return require("pulumi-secops/resources/hva-automation-rule"); }; ${"x".repeat(1400)}`;
const resource = (i: number) => ({
  urn: `urn:pulumi:dev::p::t::r${i}`,
  type: "t",
  name: `r${i}`,
  id: `hva-${i}`,
  inputs: { field: "name", search: `s${i}-*`, __provider: PROVIDER },
  outputs: { field: "name", search: `s${i}-*`, enabled: true, __provider: PROVIDER },
});

test("the file keeps each provider once; reading puts __provider back", () => {
  const path = join(dir, "state.json");
  const state: State = { version: 1, resources: Array.from({ length: 100 }, (_, i) => resource(i)) };
  const bytes = writeState(path, state);
  const stored = JSON.parse(readFileSync(path, "utf8"));
  expect(stored.version).toBe(2);
  expect(Object.values(stored.providers)).toEqual([PROVIDER]);
  expect(JSON.stringify(stored.resources)).not.toContain("__provider");
  expect(bytes).toBeLessThan(100 * 300 + PROVIDER.length); // ~0.2 KB per resource, not 3 KB
  expect(readState(path)).toEqual(state);
});

test("a journal records each change in O(1), replays on read and is dropped by the next write", () => {
  const path = join(dir, "state.json");
  const state: State = { version: 1, resources: [resource(0)] };
  writeState(path, state);
  const journal = new Journal(path);
  const sizes: number[] = [];
  for (let i = 1; i <= 50; i++) {
    state.resources.push(resource(i));
    const before = journalSize(path);
    journal.resource(state, resource(i).urn);
    sizes.push(journalSize(path) - before);
  }
  // The provider text goes to the journal once; every later line is the same small size.
  expect(sizes[0]).toBeGreaterThan(PROVIDER.length);
  expect(Math.max(...sizes.slice(1))).toBeLessThan(400);
  state.resources = state.resources.filter((r) => r.name !== "r0");
  journal.resource(state, resource(0).urn);
  appendFileSync(`${path}.journal`, '{"t":"resource","urn":"cut sh'); // a crash mid-line
  const replayed = readState(path);
  expect(replayed.resources.map((r) => r.name)).toEqual(Array.from({ length: 50 }, (_, i) => `r${i + 1}`));
  expect(replayed.resources[0].inputs.__provider).toBe(PROVIDER);
  writeState(path, replayed);
  expect(existsSync(`${path}.journal`)).toBe(false);
  expect(statSync(path).size).toBeLessThan(50 * 300 + PROVIDER.length);
});

test("a create's intent survives in the journal until its answer; the answer line refers to it", () => {
  const path = join(dir, "state.json");
  const journal = new Journal(path);
  const r = resource(7);
  const intent = { urn: r.urn, type: r.type, name: r.name, inputs: r.inputs, at: "2026-11-21T10:00:00.000Z" };
  journal.intent(intent);
  expect(readState(path)).toEqual({ version: 1, resources: [], pending: [intent] });
  const before = journalSize(path);
  journal.answered(intent, r);
  // The answer carries the id and outputs only: the inputs are the intent's.
  expect(journalSize(path) - before).toBeLessThan(120);
  expect(readState(path)).toEqual({ version: 1, resources: [r] });
  const failed = { ...intent, urn: "urn:pulumi:dev::p::t::r8", name: "r8" };
  journal.intent(failed);
  journal.answered(failed, undefined);
  expect(readState(path)).toEqual({ version: 1, resources: [r] });
});

test("a refresh line holds the new outputs only; replay keeps the provider", () => {
  const path = join(dir, "state.json");
  const state: State = { version: 1, resources: [resource(1), resource(2)] };
  writeState(path, state);
  const journal = new Journal(path);
  state.resources[0].outputs = { ...state.resources[0].outputs, enabled: false };
  journal.outputs(state.resources[0], false);
  expect(journalSize(path)).toBeLessThan(150);
  expect(readState(path)).toEqual(state);
});

test("upsert finds a resource by URN, also after the list was filtered or pushed to elsewhere", () => {
  const r = (urn: string, id: string) => ({ urn, id, type: "t", name: urn }) as unknown as StateResource;
  const state = { resources: [] } as unknown as State;
  for (let i = 0; i < 1000; i++) upsert(state, r(`u${i}`, `a${i}`));
  upsert(state, r("u500", "b500"));
  expect(state.resources.length).toBe(1000);
  expect(state.resources[500].id).toBe("b500");
  // Someone else's changes: a filter (a new array) and a push.
  state.resources = state.resources.filter((x) => x.urn !== "u10");
  state.resources.push(r("v1", "c1"));
  upsert(state, r("v1", "c2"));
  upsert(state, r("u999", "b999"));
  upsert(state, r("u10", "b10"));
  expect(state.resources.filter((x) => x.urn === "v1").map((x) => x.id)).toEqual(["c2"]);
  expect(state.resources.filter((x) => x.urn === "u999").map((x) => x.id)).toEqual(["b999"]);
  expect(state.resources.length).toBe(1001);
  expect(new Set(state.resources.map((x) => x.urn)).size).toBe(1001);
});
