/**
 * An offline lifecycle runner for tests and demos: preview, up, refresh and destroy of a program of
 * independent resources, through Pulumi's real dynamic-provider host.
 *
 * It is not a Pulumi engine: no dependency graph (resources are independent), no secrets provider
 * (the state file holds inputs and outputs in plain JSON; keep secrets in config, never in inputs),
 * no checkpoints beyond rewriting the state file after every step, no `pulumi import`.
 */
import { DynamicProviderHost, InitFailedError, secret } from "./host";
import {
  errorText,
  journal,
  readState,
  settlePendingCreates,
  upsert,
  writeState,
  type PendingCreate,
  type State,
  type StateResource,
} from "./state";

export type { PendingCreate, State, StateResource } from "./state";
export type { Op, Step } from "./plan";
import { pool } from "./pool";
import { changed, describe, planSteps, visible, type Op, type Planned, type Step } from "./plan";
import { evaluateStack, type DeclaredResource, type ProgramSource } from "./program";

/** Options of {@link LifecycleRunner}. */
export interface RunnerOptions {
  /** The program: a module path or a function declaring resources. */
  program: ProgramSource;
  /** The program's directory: the host runs there and resolves the provider's requires from it. */
  programDir: string;
  /** The JSON state file (created when missing). */
  statePath: string;
  /** Stack config, full keys (`secops:apiKey`, `secops:baseUrl`). */
  config?: Record<string, string>;
  /** Config keys sent to the host as secrets. Default: `secops:apiKey`. */
  secretKeys?: string[];
  project?: string;
  stack?: string;
  /** Resources worked on at once in up, refresh and destroy (they are independent). Default 10, like `pulumi up --parallel`. */
  parallel?: number;
}

/** Runs a program's lifecycle through the real host. Call {@link close} when done. */
export class LifecycleRunner {
  private host?: DynamicProviderHost;
  private lastOutputs: Record<string, unknown> = {};
  /** Provider texts already in the current journal (each goes there once). */
  private readonly journaled = new Set<string>();
  /** What hosts of earlier steps wrote to stderr. */
  private pastStderr = "";

  constructor(private readonly options: RunnerOptions) {}

  /** What the host wrote to stderr so far (its warnings and errors). */
  get hostStderr(): string {
    return this.pastStderr + (this.host?.stderr ?? "");
  }

  /** The warnings the provider reported through the host so far (e.g. drift detection unavailable). */
  warnings(): string[] {
    return this.hostStderr
      .split("\n")
      .filter((l) => l.startsWith("warning: "))
      .map((l) => l.replace(/^warning: (\[runtime\] )?/, ""));
  }

  /** The state as stored. */
  state(): State {
    return readState(this.options.statePath);
  }

  /** Check and Diff only: what `up` would do. Never creates, updates or deletes anything. */
  async preview(): Promise<Step[]> {
    return this.step(async () => (await this.plan()).map((p) => p.step));
  }

  /** Applies the plan: create, update, replace (honouring deleteBeforeReplace), delete. */
  async up(): Promise<Step[]> {
    return this.step(() => this.upStep());
  }

  private async upStep(): Promise<Step[]> {
    const unsettled = await this.settlePending();
    const plan = await this.plan();
    const state = this.state();
    await pool(this.options.parallel ?? 10, plan, async (p) => {
      if (p.step.op === "same" || p.step.op === "check-failed") return;
      const blocked = unsettled.get(p.step.urn);
      if (blocked !== undefined) {
        p.step.ok = false;
        p.step.error = `a create of this resource was interrupted earlier and could not be settled, so it is not sent again: ${blocked}`;
        return;
      }
      try {
        await this.apply(p, state);
      } catch (err) {
        p.step.ok = false;
        p.step.error = errorText(err);
        if (err instanceof InitFailedError && p.declared) {
          // Partial failure: the object exists; track it so it is never orphaned.
          upsert(state, {
            ...describe(p.declared),
            id: err.id,
            inputs: p.inputs ?? {},
            outputs: err.properties,
          });
        }
      }
      this.record(state, p.step.urn);
    });
    this.save(state);
    return plan.map((p) => p.step);
  }

  /** Reads every resource: drift is recorded, a resource that is gone (empty id) is dropped. */
  async refresh(): Promise<Step[]> {
    return this.step(() => this.refreshStep());
  }

  private async refreshStep(): Promise<Step[]> {
    await this.settlePending();
    const host = await this.ensureHost();
    return this.eachStateResource("same", false, async (r, step, state) => {
      const read = await host.read(r.id, r.urn, r.outputs);
      if (!read.id) {
        step.op = "gone";
        state.resources = state.resources.filter((x) => x.urn !== r.urn);
        return;
      }
      step.changes = changed(visible(r.outputs), visible(read.properties));
      if (step.changes.length) step.op = "drift";
      r.outputs = read.properties;
    });
  }

  /** Deletes every resource in the state, last created first. */
  async destroy(): Promise<Step[]> {
    return this.step(() => this.destroyStep());
  }

  private async destroyStep(): Promise<Step[]> {
    await this.settlePending();
    const host = await this.ensureHost();
    return this.eachStateResource("delete", true, async (r, _step, state) => {
      await host.delete(r.id, r.urn, r.outputs);
      state.resources = state.resources.filter((x) => x.urn !== r.urn);
    });
  }

  /** Runs `body` for each resource in the state, recording failures and saving after each step. */
  private async eachStateResource(
    op: Op,
    reverse: boolean,
    body: (r: StateResource, step: Step, state: State) => Promise<void>,
  ): Promise<Step[]> {
    const state = this.state();
    const resources = reverse ? [...state.resources].reverse() : [...state.resources];
    const steps: Step[] = resources.map((r) => ({
      op,
      urn: r.urn,
      type: r.type,
      name: r.name,
      changes: [],
      ok: true,
    }));
    await pool(
      this.options.parallel ?? 10,
      resources.map((r, i) => [r, steps[i]] as const),
      async ([r, step]) => {
        try {
          await body(r, step, state);
        } catch (err) {
          step.ok = false;
          step.error = errorText(err);
        }
        this.record(state, r.urn);
      },
    );
    this.save(state);
    return steps;
  }

  /** Settles creates a dead runner left in flight (see {@link settlePendingCreates}). */
  private async settlePending(): Promise<Map<string, string>> {
    const state = this.state();
    if (!state.pending?.length) return new Map();
    const unsettled = await settlePendingCreates(state, await this.ensureHost());
    this.save(state);
    return unsettled;
  }

  /** Stops the host. */
  async close(): Promise<void> {
    const host = this.host;
    this.host = undefined;
    if (!host) return;
    await host.close();
    this.pastStderr += host.stderr;
  }

  /**
   * Runs one step with a provider process of its own, as each Pulumi command starts its providers
   * afresh: nothing a provider caches (e.g. the list of rules a refresh reads from) outlives a step.
   */
  private async step<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } finally {
      await this.close();
    }
  }

  private async ensureHost(): Promise<DynamicProviderHost> {
    if (this.host) return this.host;
    const host = await DynamicProviderHost.start(this.options.programDir);
    const secrets = new Set(this.options.secretKeys ?? ["secops:apiKey"]);
    const config = Object.fromEntries(
      Object.entries(this.options.config ?? {}).map(([k, v]) => [k, secrets.has(k) ? secret(v) : v]),
    );
    await host.configure(config);
    this.host = host;
    return host;
  }

  private async plan(): Promise<Planned[]> {
    const declared = await this.declared();
    return planSteps(await this.ensureHost(), declared, this.state());
  }

  /** Evaluates the program afresh for this step (see {@link evaluateStack}). */
  private async declared(): Promise<DeclaredResource[]> {
    const evaluated = await evaluateStack(this.options);
    this.lastOutputs = evaluated.outputs;
    return evaluated.declared;
  }

  /** The program's stack outputs from the last step that evaluated it (resolved; secrets `[secret]`). */
  outputs(): Record<string, unknown> {
    return { ...this.lastOutputs };
  }

  private async apply(p: Planned, state: State): Promise<void> {
    const host = await this.ensureHost();
    const { step, old, declared, inputs } = p;
    const create = async () => {
      // The intent goes to disk before the request: a runner killed mid-create leaves it for the next run.
      const intent: PendingCreate = { ...describe(declared!), inputs: inputs!, at: new Date().toISOString() };
      (state.pending ??= []).push(intent);
      this.record(state, step.urn);
      try {
        const made = await host.create(step.urn, inputs);
        upsert(state, { ...describe(declared!), id: made.id, inputs: inputs!, outputs: made.properties });
      } finally {
        // Answered (success or an error the provider settled itself): the outcome is known.
        state.pending = state.pending?.filter((x) => x !== intent);
        if (state.pending?.length === 0) delete state.pending;
      }
    };
    if (step.op === "create") return create();
    if (step.op === "update") {
      const res = await host.update(old!.id, step.urn, old!.outputs, inputs);
      upsert(state, { ...old!, inputs: inputs!, outputs: res.properties });
      return;
    }
    if (step.op === "delete") {
      await host.delete(old!.id, step.urn, old!.outputs);
      state.resources = state.resources.filter((r) => r.urn !== step.urn);
      return;
    }
    // replace
    if (p.deleteBeforeReplace) {
      await host.delete(old!.id, step.urn, old!.outputs);
      state.resources = state.resources.filter((r) => r.urn !== step.urn);
      this.record(state, step.urn);
      return create();
    }
    await create();
    this.record(state, step.urn);
    await host.delete(old!.id, step.urn, old!.outputs);
  }

  /** Writes the whole state once (end of a step): each provider once, the journal dropped. */
  private save(state: State): void {
    // Parallel steps finish in any order: keep the file stable, by URN.
    state.resources.sort((a, b) => a.urn.localeCompare(b.urn));
    writeState(this.options.statePath, state);
    this.journaled.clear();
  }

  /** Appends one resource's change to the journal: O(1), durable before the next request. */
  private record(state: State, urn: string): void {
    journal(this.options.statePath, state, urn, this.journaled);
  }
}
