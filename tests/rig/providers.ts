/**
 * The runner's provider processes for one step, started as the engine starts them: Pulumi's
 * dynamic-provider host for dynamic resources, and one `pulumi-resource-secops` plugin per native
 * provider instance (the default provider from stack config, or each explicit `Provider`), each
 * taken through CheckConfig, DiffConfig and Configure before its first resource call.
 */
import { secret, type ProviderProcess } from "./host";
import { DynamicProviderHost, NativePluginProcess } from "./processes";
import type { DeclaredResource } from "./program";
import { errorText } from "./state";
import { otherTeamsKeyMessage } from "../../provider/native/plugin/config-rpcs";
import { providerOfUrn } from "../../provider/native/plugin/instance";

/** The provider type token of the native plugin. */
export const NATIVE_PROVIDER_TYPE = "pulumi:providers:secops";
/** The key of the default native provider (configured from stack config). */
export const DEFAULT_PROVIDER = "default";

/** Whether a resource type is served by the native plugin. */
export const isNative = (type: string) => type.startsWith("secops:");

/** What identifies a resource's provider. */
export interface ProviderRef {
  type: string;
  /** The explicit provider's URN, if any. */
  provider?: string;
}

/** Options of {@link ProviderSet}. */
export interface ProviderSetOptions {
  /** Working directory of the dynamic host (the program's directory). */
  programDir: string;
  /** Stack config, full keys. */
  config: Record<string, string>;
  /** Config keys that are secrets. */
  secretKeys: ReadonlySet<string>;
  /** Evaluates the program (which calls {@link ProviderSet.remember} with what it declares). */
  evaluate: () => Promise<unknown>;
  /**
   * The teams the state's resources of a native provider recorded (by the provider's key: its URN or
   * {@link DEFAULT_PROVIDER}). The engine asks DiffConfig with the provider's old inputs, which the
   * runner does not keep: it compares these teams with the new key's instead, and refuses the same way.
   */
  teamsOf?: (key: string) => string[];
}

const unwrapSecret = (v: unknown): unknown =>
  v !== null && typeof v === "object" && "value" in (v as object) ? (v as { value: unknown }).value : v;

export class ProviderSet {
  /** The explicit native providers the program declares, by URN (their inputs are their config). */
  readonly #declared = new Map<string, DeclaredResource>();
  readonly #waiters: Array<{ key: string; resolve: (d: DeclaredResource | undefined) => void }> = [];
  #evaluation: Promise<unknown> | undefined;
  readonly #processes = new Map<string, Promise<ProviderProcess>>();
  readonly #running = new Set<ProviderProcess>();
  /** This step's invokes by token, arguments and provider: a program evaluated twice sends each once. */
  readonly #invokes = new Map<string, Promise<Record<string, unknown>>>();
  #stderr = "";

  constructor(private readonly options: ProviderSetOptions) {}

  /** The process serving `ref`'s resources, started and configured on first use. */
  for(ref: ProviderRef): Promise<ProviderProcess> {
    const key = isNative(ref.type) ? ref.provider || DEFAULT_PROVIDER : "dynamic";
    let p = this.#processes.get(key);
    if (!p) {
      p = key === "dynamic" ? this.startDynamic() : this.startNative(key);
      p.then(
        (proc) => this.#running.add(proc),
        () => this.#processes.delete(key),
      );
      this.#processes.set(key, p);
    }
    return p;
  }

  private async startDynamic(): Promise<ProviderProcess> {
    const host = await DynamicProviderHost.start(this.options.programDir);
    const config = Object.fromEntries(
      Object.entries(this.options.config).map(([k, v]) => [
        k,
        this.options.secretKeys.has(k) ? secret(v) : v,
      ]),
    );
    await host.configure(config);
    return host;
  }

  /** The plugin for the default provider (stack config) or an explicit one (its declared inputs). */
  private async startNative(key: string): Promise<ProviderProcess> {
    const { config, secretKeys } = this.options;
    let news: Record<string, unknown>;
    const variables: Record<string, string> = {};
    const urn = key === DEFAULT_PROVIDER ? `${NATIVE_PROVIDER_TYPE}::default` : key;
    if (key === DEFAULT_PROVIDER) {
      news = {};
      for (const [k, v] of Object.entries(config)) {
        if (!k.startsWith("secops:")) continue;
        const name = k.slice("secops:".length);
        news[name] = secretKeys.has(k) ? secret(v) : v;
        variables[`secops:config:${name}`] = v;
      }
    } else {
      const declared = await this.declaration(key);
      if (!declared)
        throw new Error(
          `the provider ${key} is no longer declared by the program; its resources cannot be reached ` +
            "(the runner keeps no provider's key in the state): declare the provider again until an up " +
            "has deleted its resources, then remove it",
        );
      news = Object.fromEntries(
        Object.entries(declared.inputs)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, k === "apiKey" ? secret(String(unwrapSecret(v))) : v]),
      );
    }
    const plugin = await NativePluginProcess.start({ cwd: this.options.programDir });
    try {
      const checked = await plugin.checkConfig(urn, {}, news);
      if (checked.failures.length)
        throw new Error(
          `provider ${urn}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
        );
      await plugin.diffConfig(urn, checked.inputs, checked.inputs);
      await plugin.configure(checked.inputs, variables);
      await this.sameTeam(key, urn, plugin);
      return plugin;
    } catch (err) {
      this.#stderr += plugin.stderr;
      await plugin.close();
      throw err;
    }
  }

  /**
   * Refuses a provider whose key is of another team than the resources it holds in the state, before
   * any of them (or a new one) is touched, with the words of the plugin's DiffConfig.
   */
  private async sameTeam(key: string, urn: string, plugin: ProviderProcess): Promise<void> {
    const held = this.options.teamsOf?.(key) ?? [];
    if (held.length === 0) return;
    // The key's team when it can be had now (no key, no network, a refused key: as the plugin's
    // DiffConfig, nothing is decided here and each operation checks the team before it sends).
    const answer = await plugin.invoke("secops:index:getIdentity", {}).catch(() => undefined);
    const team = typeof answer?.result.teamId === "string" ? answer.result.teamId : undefined;
    if (!answer || answer.failures.length || team === undefined) return;
    const before = held.find((t) => t !== team);
    if (before !== undefined) throw new Error(otherTeamsKeyMessage(providerOfUrn(urn), before, team));
  }

  /**
   * An explicit provider's declaration. When it is not known yet the program is evaluated, and the
   * answer comes as soon as the program registers that provider: an invoke through it during that same
   * evaluation must not wait for the evaluation to end (it would wait for itself).
   */
  private declaration(key: string): Promise<DeclaredResource | undefined> {
    const known = this.#declared.get(key);
    if (known) return Promise.resolve(known);
    this.#evaluation ??= this.options.evaluate().finally(() => (this.#evaluation = undefined));
    const evaluation = this.#evaluation;
    return new Promise((resolve) => {
      this.#waiters.push({ key, resolve });
      evaluation.then(
        () => resolve(this.#declared.get(key)),
        () => resolve(undefined),
      );
    });
  }

  /** Notes the explicit native providers among what the program declared. */
  remember(declared: readonly DeclaredResource[]): void {
    for (const d of declared) if (d.type === NATIVE_PROVIDER_TYPE) this.#declared.set(d.urn, d);
    for (const w of this.#waiters.splice(0)) {
      const d = this.#declared.get(w.key);
      if (d) w.resolve(d);
      else this.#waiters.push(w);
    }
  }

  /** A native invoke of the program, sent to its provider's plugin as the engine sends it. */
  async invoke(
    token: string,
    args: Record<string, unknown>,
    provider: string | undefined,
    seen: readonly DeclaredResource[],
  ): Promise<Record<string, unknown>> {
    if (!isNative(token)) return args;
    this.remember(seen);
    // The SDK registers an invoke's provider before it sends the invoke: one not seen is none of the
    // program's, and looking for it by evaluating the program again, from inside this evaluation, would
    // wait for itself.
    if (provider && !this.#declared.has(provider))
      throw new Error(`Invoke of '${token}' failed: the provider ${provider} is not declared by the program`);
    const key = JSON.stringify([token, args, provider ?? null]);
    let answer = this.#invokes.get(key);
    if (!answer) this.#invokes.set(key, (answer = this.send(token, args, provider)));
    return answer;
  }

  /** Sends an invoke; every failure reads `Invoke of '<token>' failed: ...`, as the SDK words one. */
  private async send(token: string, args: Record<string, unknown>, provider: string | undefined) {
    let res: Awaited<ReturnType<ProviderProcess["invoke"]>>;
    try {
      res = await (await this.for({ type: token, provider })).invoke(token, args);
    } catch (err) {
      throw new Error(`Invoke of '${token}' failed: ${errorText(err)}`, { cause: err });
    }
    if (res.failures.length)
      throw new Error(
        `Invoke of '${token}' failed: ${res.failures.map((f) => `${f.reason} (${f.property})`).join("; ")}`,
      );
    return res.result;
  }

  /** What every process wrote to stderr so far (warnings, errors). */
  get stderr(): string {
    return this.#stderr + [...this.#running].map((p) => p.stderr).join("");
  }

  /** Stops every process; their stderr is kept. */
  async close(): Promise<void> {
    const all = [...this.#processes.values()];
    this.#processes.clear();
    for (const p of await Promise.allSettled(all)) {
      if (p.status !== "fulfilled") continue;
      await p.value.close();
      this.#running.delete(p.value);
      this.#stderr += p.value.stderr;
    }
  }
}
