/**
 * An offline lifecycle runner for tests and demos: preview, up, refresh, import and destroy of a
 * program of independent resources, through Pulumi's real dynamic-provider host (dynamic resources)
 * and this package's plugin (native resources, one process per provider instance), in the engine's
 * call order.
 *
 * It is not a Pulumi engine: no dependency graph (resources are independent), no secrets provider
 * (the state file holds inputs and outputs in plain JSON; keep secrets in config, never in inputs;
 * explicit providers' config is never stored: each step takes it from the program).
 */
import { InitFailedError, type ProviderProcess } from "./host";
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
import { evaluateStack, projectName, urnOf, type DeclaredResource, type ProgramSource } from "./program";
import { isNative, NATIVE_PROVIDER_TYPE, ProviderSet, type ProviderRef } from "./providers";

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
  private providers?: ProviderSet;
  private lastOutputs: Record<string, unknown> = {};
  /** The explicit native providers of the last evaluation, by URN. */
  private declaredProviders = new Map<string, DeclaredResource>();
  /** Provider texts already in the current journal (each goes there once). */
  private readonly journaled = new Set<string>();
  /** What hosts of earlier steps wrote to stderr. */
  private pastStderr = "";

  constructor(private readonly options: RunnerOptions) {}

  /** What the host wrote to stderr so far (its warnings and errors). */
  get hostStderr(): string {
    return this.pastStderr + (this.providers?.stderr ?? "");
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

  /**
   * Check and Diff (and, for native resources, Create with `preview: true`, as the engine asks a
   * provider that supports preview): what `up` would do. Never creates, updates or deletes anything.
   */
  async preview(): Promise<Step[]> {
    return this.step(async () => {
      const plan = await this.plan();
      for (const p of plan)
        if (p.step.op === "create" && isNative(p.step.type))
          await (await this.provider(p.declared!)).create(p.step.urn, p.inputs, true);
      return plan.map((p) => p.step);
    });
  }

  /**
   * Adopts an existing object into the state, as `pulumi import <type> <name> <id>` does: Read with
   * the id alone returns its inputs and properties. Native resources only (the engine cannot import
   * dynamic ones). `provider` names an explicit provider the program declares (default: the
   * default provider from stack config).
   */
  async import(type: string, name: string, id: string, provider?: string): Promise<Step> {
    return this.step(async () => {
      const urn = urnOf(await this.project(), this.options.stack ?? "dev", type, name);
      const step: Step = { op: "import", urn, type, name, changes: [], ok: true };
      if (!isNative(type))
        return {
          ...step,
          ok: false,
          error: `${type} cannot be imported: only native resources can (secops:index:*)`,
        };
      const state = this.state();
      if (state.resources.some((r) => r.urn === urn))
        return { ...step, ok: false, error: `${urn} is already in the state` };
      const providerUrn =
        provider === undefined
          ? undefined
          : urnOf(await this.project(), this.options.stack ?? "dev", NATIVE_PROVIDER_TYPE, provider);
      try {
        const host = await this.provider({ type, provider: providerUrn });
        const read = await host.read(id, urn, {}, {});
        if (!read.id) return { ...step, ok: false, error: `import: no ${type} with id ${id} exists` };
        upsert(state, {
          urn,
          type,
          name,
          id: read.id,
          inputs: read.inputs,
          outputs: read.properties,
          ...(providerUrn ? { providerUrn } : {}),
        });
        this.save(state);
        return step;
      } catch (err) {
        return { ...step, ok: false, error: errorText(err) };
      }
    });
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
      // Nothing to do, or refused while planning (a failed Check, an import that does not match).
      if (p.step.op === "same" || !p.step.ok) return;
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
            ...providerOf(p.declared),
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
    return this.eachStateResource("same", false, async (r, step, state) => {
      const host = await this.provider(refOf(r));
      const read = await host.read(r.id, r.urn, r.outputs, r.inputs);
      if (!read.id) {
        step.op = "gone";
        state.resources = state.resources.filter((x) => x.urn !== r.urn);
        return;
      }
      step.changes = changed(visible(r.outputs), visible(read.properties));
      if (step.changes.length) step.op = "drift";
      r.outputs = read.properties;
      // A native provider also returns the inputs the object now has (the dynamic host does not).
      if (isNative(r.type) && Object.keys(read.inputs).length) r.inputs = read.inputs;
    });
  }

  /** Deletes every resource in the state, last created first. */
  async destroy(): Promise<Step[]> {
    return this.step(() => this.destroyStep());
  }

  private async destroyStep(): Promise<Step[]> {
    await this.settlePending();
    return this.eachStateResource("delete", true, async (r, _step, state) => {
      await (await this.provider(refOf(r))).delete(r.id, r.urn, r.outputs);
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
    const unsettled = await settlePendingCreates(state, (ref) => this.provider(ref));
    this.save(state);
    return unsettled;
  }

  /** Stops the provider processes. */
  async close(): Promise<void> {
    const providers = this.providers;
    this.providers = undefined;
    if (!providers) return;
    await providers.close();
    this.pastStderr += providers.stderr;
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

  /** The process serving `ref` in this step (started and configured on first use). */
  private provider(ref: ProviderRef): Promise<ProviderProcess> {
    this.providers ??= new ProviderSet({
      programDir: this.options.programDir,
      config: this.options.config ?? {},
      secretKeys: new Set(this.options.secretKeys ?? ["secops:apiKey"]),
      declaredProviders: async () => {
        if (this.declaredProviders.size === 0) await this.declared();
        return this.declaredProviders;
      },
    });
    return this.providers.for(ref);
  }

  private async plan(): Promise<Planned[]> {
    const declared = await this.declared();
    return planSteps((ref) => this.provider(ref), declared, this.state());
  }

  /** Evaluates the program afresh for this step (see {@link evaluateStack}). */
  private async declared(): Promise<DeclaredResource[]> {
    const byUrn = new Map(this.state().resources.map((r) => [r.urn, r]));
    const evaluated = await evaluateStack({
      ...this.options,
      known: (urn) => byUrn.get(urn),
      // Native invokes go to the plugin of their provider, as the engine sends them.
      invoke: async (token, args, provider, seen) => {
        if (!isNative(token)) return args;
        this.rememberProviders(seen);
        const res = await (await this.provider({ type: token, provider })).invoke(token, args);
        if (res.failures.length)
          throw new Error(`${token}: ${res.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
        return res.result;
      },
    });
    this.lastOutputs = evaluated.outputs;
    this.rememberProviders(evaluated.declared);
    return evaluated.declared.filter((d) => !d.type.startsWith("pulumi:providers:"));
  }

  private rememberProviders(declared: readonly DeclaredResource[]): void {
    for (const d of declared) if (d.type === NATIVE_PROVIDER_TYPE) this.declaredProviders.set(d.urn, d);
  }

  private async project(): Promise<string> {
    return this.options.project ?? projectName(this.options.programDir) ?? "project";
  }

  /** The program's stack outputs from the last step that evaluated it (resolved; secrets `[secret]`). */
  outputs(): Record<string, unknown> {
    return { ...this.lastOutputs };
  }

  private async apply(p: Planned, state: State): Promise<void> {
    const { step, old, declared, inputs } = p;
    const host = await this.provider(declared ?? refOf(old!));
    if (step.op === "import") {
      upsert(state, {
        ...describe(declared!),
        ...providerOf(declared!),
        id: p.imported!.id,
        inputs: inputs!,
        outputs: p.imported!.outputs,
      });
      return;
    }
    const create = async () => {
      // The intent goes to disk before the request: a runner killed mid-create leaves it for the next run.
      const intent: PendingCreate = {
        ...describe(declared!),
        ...providerOf(declared!),
        inputs: inputs!,
        at: new Date().toISOString(),
      };
      (state.pending ??= []).push(intent);
      this.record(state, step.urn);
      try {
        const made = await host.create(step.urn, inputs);
        upsert(state, {
          ...describe(declared!),
          ...providerOf(declared!),
          id: made.id,
          inputs: inputs!,
          outputs: made.properties,
        });
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

/** Where a resource in the state is served. */
const refOf = (r: StateResource): ProviderRef => ({ type: r.type, provider: r.providerUrn });
/** The explicit provider of a declared native resource, as stored in the state. */
const providerOf = (d: DeclaredResource) =>
  d.provider && isNative(d.type) ? { providerUrn: d.provider } : {};
