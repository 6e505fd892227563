/**
 * The state journal (`<state>.journal`): one short line per change, appended before the next request
 * and compacted into the state file once per step. Lines are kept small (the bytes a step writes stay
 * within twice the final state): a create's intent carries its inputs once, and its result refers to
 * the intent by number; a refresh writes only what changed.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import {
  loadResource,
  storeResource,
  stripProvider,
  type PendingCreate,
  type State,
  type StateResource,
} from "./records";

type Stored<T> = T & { provider?: string };
type Bag = Record<string, unknown>;

/** One journal line. */
type Line =
  | { t: "provider"; hash: string; text: string }
  /** A create about to be sent (number `k` in this journal). */
  | { t: "i"; k: number; p: Stored<PendingCreate> }
  /** Create `k` answered with an object: the resource, inputs taken from the intent. */
  | { t: "c"; k: number; id: string; o: Bag }
  /** Create `k` answered without an object (it failed cleanly). */
  | { t: "x"; k: number }
  /** What one resource now is (any other change). */
  | { t: "resource"; urn: string; resource: Stored<StateResource> | null; pending: Stored<PendingCreate>[] }
  /** A refresh read new outputs (and, from a native provider, new inputs). */
  | { t: "o"; urn: string; o: Bag; i?: Bag };

const typeAndName = (urn: string) => {
  const parts = urn.split("::");
  return { type: parts[2] ?? "", name: parts.slice(3).join("::") };
};

/** Appends lines for one step; {@link reset} after the state file is written. */
export class Journal {
  #seq = 0;
  readonly #written = new Set<string>();
  readonly #keys = new Map<PendingCreate, number>();

  constructor(private readonly statePath: string) {}

  private append(lines: Line[], providers: Record<string, string>): void {
    let text = "";
    for (const [hash, body] of Object.entries(providers)) {
      if (this.#written.has(hash)) continue;
      this.#written.add(hash);
      text += `${JSON.stringify({ t: "provider", hash, text: body })}\n`;
    }
    for (const line of lines) text += `${JSON.stringify(line)}\n`;
    appendFileSync(`${this.statePath}.journal`, text);
  }

  /** A create is about to be sent. */
  intent(p: PendingCreate): void {
    const providers: Record<string, string> = {};
    const k = ++this.#seq;
    this.#keys.set(p, k);
    const { type: _t, name: _n, ...stored } = storeResource(p, providers);
    this.append([{ t: "i", k, p: stored as Stored<PendingCreate> }], providers);
  }

  /** The create answered: `r` is what it made, or undefined when it made nothing. */
  answered(p: PendingCreate, r: StateResource | undefined): void {
    const k = this.#keys.get(p);
    if (k === undefined) return;
    this.#keys.delete(p);
    const o = r ? stripProvider(r.outputs, {}).rest : undefined;
    this.append([r && o ? { t: "c", k, id: r.id, o } : { t: "x", k }], {});
  }

  /** What one resource (and its pending creates) now is. */
  resource(state: State, urn: string): void {
    const providers: Record<string, string> = {};
    const current = state.resources.find((r) => r.urn === urn);
    const pending = (state.pending ?? [])
      .filter((p) => p.urn === urn)
      .map((p) => storeResource(p, providers));
    this.append(
      [{ t: "resource", urn, resource: current ? storeResource(current, providers) : null, pending }],
      providers,
    );
  }

  /** New outputs (and inputs) read by a refresh. */
  outputs(r: StateResource, inputsChanged: boolean): void {
    const o = stripProvider(r.outputs, {}).rest;
    this.append(
      [{ t: "o", urn: r.urn, o, ...(inputsChanged ? { i: stripProvider(r.inputs, {}).rest } : {}) }],
      {},
    );
  }

  /** The state file now holds everything: the next lines start a new journal. */
  reset(): void {
    this.#written.clear();
    this.#keys.clear();
    this.#seq = 0;
  }
}

/** Replays `path` into `state` (a step that did not finish). A line cut short by a crash ends it. */
export function replayJournal(path: string, state: State, providers: Record<string, string>): void {
  if (!existsSync(path)) return;
  const intents = new Map<number, PendingCreate>();
  for (const text of readFileSync(path, "utf8").split("\n")) {
    if (!text.trim()) continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      return; // everything before it stands
    }
    replayLine(state, line, providers, intents);
  }
}

function replayLine(
  state: State,
  line: Line,
  providers: Record<string, string>,
  intents: Map<number, PendingCreate>,
) {
  const dropPending = (p: PendingCreate | undefined) => {
    state.pending = (state.pending ?? []).filter((x) => x !== p);
    if (!state.pending.length) delete state.pending;
  };
  const put = (r: StateResource) => {
    state.resources = state.resources.filter((x) => x.urn !== r.urn);
    state.resources.push(r);
  };
  switch (line.t) {
    case "provider":
      providers[line.hash] = line.text;
      return;
    case "i": {
      const p = loadResource({ ...line.p, ...typeAndName(line.p.urn) }, providers);
      intents.set(line.k, p);
      (state.pending ??= []).push(p);
      return;
    }
    case "c":
    case "x": {
      const p = intents.get(line.k);
      dropPending(p);
      if (line.t === "x" || !p) return;
      const { at: _at, ...rest } = p;
      const provider = p.inputs.__provider;
      put({
        ...rest,
        id: line.id,
        outputs: provider === undefined ? line.o : { ...line.o, __provider: provider },
      });
      return;
    }
    case "o": {
      const r = state.resources.find((x) => x.urn === line.urn);
      if (!r) return;
      const provider = r.inputs.__provider;
      const withProvider = (b: Bag) => (provider === undefined ? b : { ...b, __provider: provider });
      r.outputs = withProvider(line.o);
      if (line.i) r.inputs = withProvider(line.i);
      return;
    }
    case "resource":
      state.resources = state.resources.filter((r) => r.urn !== line.urn);
      if (line.resource) state.resources.push(loadResource(line.resource, providers));
      state.pending = [
        ...(state.pending ?? []).filter((p) => p.urn !== line.urn),
        ...line.pending.map((p) => loadResource(p, providers)),
      ];
      if (!state.pending.length) delete state.pending;
  }
}
