/**
 * An offline lifecycle runner for tests and demos: preview, up, refresh, import and destroy of a
 * program of independent resources, through Pulumi's real dynamic-provider host (dynamic resources)
 * and this package's plugin (native resources, one process per provider instance), in the engine's
 * call order. It is not a Pulumi engine: no dependency graph (resources are independent), no secrets
 * provider (the state file holds inputs and outputs in plain JSON; keep secrets in config, never in
 * inputs; explicit providers' config is never stored: each step takes it from the program).
 */
import type { ProviderProcess } from "./host";
import { applyPlanned, importById, refOf, type ApplyContext } from "./apply";
import { Journal } from "./journal";
import { StepFailedError, type Command } from "./failure";
export { StepFailedError, stepsOf, type Command } from "./failure";
import { errorText, readState, settleLeftovers, writeState, type State, type StateResource } from "./state";
import { withoutRpcFraming } from "./state";
import { refuseDuplicateUrns } from "./conflicts";

export type { PendingCreate, State, StateResource } from "./state";
export type { Op, Step } from "./plan";
export type { RunnerOptions } from "./options";
import { pool } from "./pool";
import { progress } from "./progress";
import { changed, planSteps, visible, type Op, type Planned, type Step } from "./plan";
import { evaluateStack, projectName, urnOf, type DeclaredResource } from "./program";
import type { RunnerOptions } from "./options";
import { DEFAULT_PROVIDER, isNative, NATIVE_PROVIDER_TYPE, ProviderSet, type ProviderRef } from "./providers";

/** One object a provider listed: an id its import takes, and a resource name. */
export interface Listed {
  id: string;
  name: string;
}

/** Runs a program's lifecycle through the real host. Call {@link close} when done. */
export class LifecycleRunner {
  private providers?: ProviderSet;
  private lastOutputs: Record<string, unknown> = {};
  /** The current step's journal (compacted into the state file by {@link save}). */
  private readonly journal: Journal;
  /** What hosts of earlier steps wrote to stderr. */
  private pastStderr = "";
  /** The operations of the current step that were sent and have not answered ("create dc", ...). */
  private readonly inFlight = new Set<string>();

  constructor(private readonly options: RunnerOptions) {
    this.journal = new Journal(options.statePath);
  }

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
   * provider that supports preview): what `up` would do. Never creates, updates or deletes anything;
   * a delete whose provider cannot be had fails here, as up would. */
  async preview(): Promise<Step[]> {
    return this.step("preview", async () => {
      const plan = await this.plan();
      const fail = (s: Step) => (err: unknown) => Object.assign(s, { ok: false, error: errorText(err) });
      for (const p of plan)
        if (p.op === "create" && isNative(p.declared.type))
          await (await this.provider(p.declared)).create(p.declared.urn, p.inputs, true).catch(fail(p.step));
        else if (p.op === "delete") await this.provider(refOf(p.old)).catch(fail(p.step));
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
    const [step] = await this.step("import", async () => [await this.importStep(type, name, id, provider)]);
    return step;
  }

  private async importStep(type: string, name: string, id: string, provider?: string): Promise<Step> {
    const urn = this.urn(type, name);
    const step: Step = { op: "import", urn, type, name, changes: [], ok: true };
    const providerUrn = provider === undefined ? undefined : this.urn(NATIVE_PROVIDER_TYPE, provider);
    const state = this.state();
    try {
      const error = await importById(this.applyContext(state), { urn, type, name, id, providerUrn });
      if (error) return { ...step, ok: false, error };
      this.save(state);
      return step;
    } catch (err) {
      return { ...step, ok: false, error: errorText(err) };
    }
  }

  /**
   * Lists what exists of a native resource type in a provider's team, as `pulumi do <type> list --all`
   * does: the provider's List, page after page. Each id can be given to {@link import} as is.
   * `provider` names an explicit provider the program declares (default: the default provider).
   */
  async list(type: string, query: Record<string, unknown> = {}, provider?: string): Promise<Listed[]> {
    try {
      const ref = {
        type,
        provider: provider === undefined ? undefined : this.urn(NATIVE_PROVIDER_TYPE, provider),
      };
      const plugin = await this.provider(ref);
      const out: Listed[] = [];
      let continuation = "";
      do {
        const page = await plugin.list(type, query, { continuation });
        if (page.computed) throw new Error(`the query of ${type} holds values not known yet`);
        out.push(...page.results);
        continuation = page.continuation;
      } while (continuation);
      return out;
    } catch (err) {
      throw withoutRpcFraming(err);
    } finally {
      await this.close();
    }
  }

  /** Applies the plan: create, update, replace (honouring deleteBeforeReplace), delete. */
  async up(): Promise<Step[]> {
    return this.step("up", () => this.upStep());
  }

  private async upStep(): Promise<Step[]> {
    const unsettled = await this.settlePending();
    const plan = await this.plan();
    const state = this.state();
    await pool(this.options.parallel ?? 10, plan, async (p) => {
      // Nothing to do, or refused while planning (a failed Check, an import that does not match).
      if ((p.op === "same" && !p.moved) || p.op === "refused") return;
      const blocked = unsettled.get(p.step.urn);
      if (blocked !== undefined) {
        p.step.ok = false;
        p.step.error = `a create of this resource was interrupted earlier and could not be settled, so it is not sent again: ${blocked}`;
        return;
      }
      const what = `${p.op} ${p.step.name}`;
      this.inFlight.add(what);
      try {
        await applyPlanned(this.applyContext(state), p); // journals what it changes
      } catch (err) {
        p.step.ok = false;
        p.step.error = errorText(err);
      } finally {
        this.inFlight.delete(what);
      }
    });
    this.save(state);
    // Outputs as after the engine's up (real ids, not preview values); nothing exported: no second evaluation.
    const wrote = plan.some((p) => p.step.ok && p.op !== "same" && p.op !== "refused");
    if (wrote && Object.keys(this.lastOutputs).length > 0) await this.declared();
    return plan.map((p) => p.step);
  }

  /** Reads every resource: drift is recorded, a resource that is gone (empty id) is dropped. */
  async refresh(): Promise<Step[]> {
    return this.step("refresh", () => this.refreshStep());
  }

  private async refreshStep(): Promise<Step[]> {
    await this.settlePending();
    return this.eachStateResource("same", false, async (r, step, state) => {
      const host = await this.provider(refOf(r));
      const read = await host.read(r.id, r.urn, r.outputs, r.inputs);
      if (!read.id) {
        step.op = "gone";
        state.resources = state.resources.filter((x) => x.urn !== r.urn);
        return this.journal.resource(state, r.urn);
      }
      step.changes = changed(visible(r.outputs), visible(read.properties));
      if (step.changes.length) step.op = "drift";
      // A native provider also returns the inputs the object now has (the dynamic host does not).
      const inputs = isNative(r.type) && Object.keys(read.inputs).length ? read.inputs : r.inputs;
      const inputsChanged = changed(visible(r.inputs), visible(inputs)).length > 0;
      r.outputs = read.properties;
      r.inputs = inputs;
      // Only what changed is journaled: a refresh that finds no drift writes nothing but the state.
      if (step.changes.length || inputsChanged) this.journal.outputs(r, inputsChanged);
    });
  }

  /** Deletes every resource in the state, last created first. */
  async destroy(): Promise<Step[]> {
    return this.step("destroy", () => this.destroyStep());
  }

  private async destroyStep(): Promise<Step[]> {
    await this.settlePending();
    return this.eachStateResource("delete", true, async (r, _step, state) => {
      await (await this.provider(refOf(r))).delete(r.id, r.urn, r.outputs);
      state.resources = state.resources.filter((x) => x.urn !== r.urn);
      this.journal.resource(state, r.urn);
    });
  }

  /** Runs `body` (which journals what it changes) for each resource, recording failures; saves once. */
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
        const what = `${op === "same" ? "read" : op} ${r.name}`;
        this.inFlight.add(what);
        try {
          await body(r, step, state);
        } catch (err) {
          step.ok = false;
          step.error = errorText(err);
        } finally {
          this.inFlight.delete(what);
        }
      },
    );
    this.save(state);
    return steps;
  }

  /** Settles what a dead runner or a failed replace left (see {@link settleLeftovers}). */
  private async settlePending(): Promise<Map<string, string>> {
    const state = this.state();
    if (!state.pending?.length && !state.pendingDeletes?.length) return new Map();
    return settleLeftovers(
      state,
      (ref) => this.provider(ref),
      () => this.save(state),
    );
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
   * Runs one step with provider processes of its own, as each Pulumi command starts its providers
   * afresh: nothing a provider caches (e.g. the list of rules a refresh reads from) outlives a step.
   * Every resource is worked on and recorded; then, if any failed, the step rejects with
   * {@link StepFailedError} listing every failure (its `steps` hold the whole report).
   */
  private async step(command: Command, body: () => Promise<Step[]>): Promise<Step[]> {
    let steps: Step[];
    const ended = progress(this.options.progress, command);
    const stopInterrupts = this.onInterrupt(command);
    try {
      steps = await body();
    } catch (err) {
      throw withoutRpcFraming(err); // a provider's error no resource's step took
    } finally {
      stopInterrupts();
      ended();
      await this.close();
    }
    if (steps.some((s) => !s.ok)) throw new StepFailedError(command, steps);
    return steps;
  }

  /**
   * Ctrl-C (SIGINT) or SIGTERM during a step, when the program has no handler of its own: says what
   * was in flight and that the next run settles it, then exits (130 or 143) as a shell expects. What a
   * create in flight may have made is already journaled as pending: the next up or destroy settles it.
   */
  private onInterrupt(command: Command): () => void {
    const handlers = (["SIGINT", "SIGTERM"] as const)
      .filter((signal) => process.listenerCount(signal) === 0)
      .map((signal) => {
        const handler = () => {
          const ops = [...this.inFlight];
          process.stderr.write(
            `secops runner: ${command} interrupted (${signal}) with ${ops.length ? `${ops.length} operation(s) in flight: ${ops.join(", ")}` : "nothing in flight"}. ` +
              `What they may have done is recorded in ${this.options.statePath}: the next up or destroy settles it (never a duplicate, never an orphan).\n`,
          );
          process.exit(signal === "SIGINT" ? 130 : 143);
        };
        process.once(signal, handler);
        return () => process.removeListener(signal, handler);
      });
    return () => handlers.forEach((remove) => remove());
  }

  /** The process serving `ref` in this step (started and configured on first use). */
  private provider(ref: ProviderRef): Promise<ProviderProcess> {
    return this.providerSet().for(ref);
  }

  private providerSet(): ProviderSet {
    this.providers ??= new ProviderSet({
      programDir: this.options.programDir,
      config: this.options.config ?? {},
      secretKeys: new Set(this.options.secretKeys ?? ["secops:apiKey"]),
      evaluate: () => this.declared(),
      teamsOf: (key) => {
        const provider = key === DEFAULT_PROVIDER ? undefined : key;
        const teams = this.state()
          .resources.filter((r) => isNative(r.type) && r.providerUrn === provider)
          .map((r) => r.outputs.teamId);
        return [...new Set(teams.filter((t): t is string => typeof t === "string" && t !== ""))];
      },
    });
    return this.providers;
  }

  private async plan(): Promise<Planned[]> {
    const declared = await this.declared();
    return planSteps((ref) => this.provider(ref), declared, this.state(), this.options.parallel);
  }

  /** Evaluates the program afresh for this step (see {@link evaluateStack}). */
  private async declared(): Promise<DeclaredResource[]> {
    const byUrn = new Map(this.state().resources.map((r) => [r.urn, r]));
    const evaluated = await evaluateStack({
      ...this.options,
      known: (urn) => byUrn.get(urn),
      // Native invokes go to the plugin of their provider, as the engine sends them (once a step).
      invoke: (token, args, provider, seen) => this.providerSet().invoke(token, args, provider, seen),
    });
    refuseDuplicateUrns(evaluated.declared); // as the engine: before any resource is worked on
    this.lastOutputs = evaluated.outputs;
    this.providerSet().remember(evaluated.declared);
    return evaluated.declared.filter((d) => !d.type.startsWith("pulumi:providers:"));
  }

  /** A top-level URN in this runner's project and stack. */
  private urn(type: string, name: string): string {
    const project = this.options.project ?? projectName(this.options.programDir) ?? "project";
    return urnOf(project, this.options.stack ?? "dev", type, name);
  }

  /** The program's stack outputs from the last step that evaluated it (resolved; secrets `[secret]`). */
  outputs(): Record<string, unknown> {
    return { ...this.lastOutputs };
  }

  private applyContext(state: State): ApplyContext {
    return { state, provider: (ref) => this.provider(ref), journal: this.journal };
  }

  /** Writes the whole state once (end of a step): each provider once, the journal dropped. */
  private save(state: State): void {
    // Parallel steps finish in any order: keep the file stable, by URN.
    state.resources.sort((a, b) => a.urn.localeCompare(b.urn));
    writeState(this.options.statePath, state);
    this.journal.reset();
  }
}
