/**
 * What the dynamic shim (`dynamic/shim.ts`) loads: an implementation bound to the host's one provider
 * instance. Shim protocol v1, a compatibility promise (stack state stores the shim): the module
 * `pulumi-secops/resources/<name>` exports `provider` with configure, check, diff, create, read, update,
 * delete and `route`, which tells four calls apart by argument shape: configure(req) has `req.config`,
 * create(props) is the other one-argument call, read(id, props) starts with a string, check(olds, news)
 * with an object.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import {
  clientFor,
  configuredSettingsProblem,
  missingSettingsWarning,
  resolveSettings,
  type ConnectionSettings,
} from "../../config";
import type { ResourceContext, ResourceImplementation } from "./context";
import { URN_INPUT } from "./declarations";
import { procStat } from "./processes";
import { dynamicHostRun, setEngineRun } from "./team-scope";

/** Credentials of the host's one provider instance: from `configure`, else the environment. */
export class ProviderRuntime implements ResourceContext {
  private ready: Promise<ConnectionSettings> | undefined;
  /**
   * An unusable setting found at configure, until one check takes it (one failure per host, not per
   * resource; every API call fails with it).
   */
  problem: string | undefined;

  /**
   * Called by the host, unawaited (hence the ready promise). An unusable setting fails the next check
   * once (so preview fails) and every API call; a missing one only API calls (preview needs no key).
   */
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    const error = configuredSettingsProblem((key) => req.config.get(key), configKeys(req));
    this.problem = error?.message;
    const settings = error
      ? Promise.reject(error)
      : Promise.resolve().then(() => resolveSettings({}, (key) => req.config.get(key)));
    this.ready = settings;
    settings.catch((err: unknown) => {
      if (err === error) return; // reported by check and client()
      const warning = missingSettingsWarning(err); // the error itself comes with client()
      if (warning) this.warn("settings", warning);
    });
    return Promise.resolve();
  }

  /** The shared client for the configured settings. */
  async client(): Promise<SecOpsClient> {
    this.ready ??= Promise.resolve().then(() => resolveSettings());
    return clientFor(await this.ready);
  }

  /** How messages name the dynamic resources' provider. */
  describe(): string {
    return "the secops provider of the stack's config (dynamic resources)";
  }

  /** True once the host's engine is gone (see watchEngine): an answer may reach no one. */
  stopping = false;

  /** Once per host process (the host serves one provider instance). */
  warn(key: string, message: string): void {
    if (warned.has(key)) return;
    warned.add(key);
    // Loaded here: the plugin imports this module too, and must not load the program SDK at start.
    void (require("@pulumi/pulumi") as typeof pulumi).log.warn(message);
  }
}

const warned = new Set<string>();

/**
 * Every key of the stack config the host was configured with. Pulumi's `ConfigureRequest` offers only
 * `get`; its config object keeps them as `rawConfig` (@pulumi/pulumi 3.248 to 3.270). Without that
 * field, no key is named (and a misspelt one reads as a missing setting, as before).
 */
function configKeys(req: pulumi.dynamic.ConfigureRequest): string[] {
  const raw = (req.config as { rawConfig?: unknown }).rawConfig;
  return raw && typeof raw === "object" ? Object.keys(raw) : [];
}

/** The `provider` export a resource module offers the shim (protocol v1 above). */
export interface DynamicImplementation<I = never, O = never> extends ResourceImplementation<I, O> {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
  /** Routes the shim's shared function by argument shapes. */
  route(...args: unknown[]): Promise<unknown>;
}

/** How often the dynamic host looks for its engine gone. */
const ENGINE_CHECK_MS = 500;

/**
 * In Pulumi's dynamic-provider host (`node <script> <engine address>`, under a shell script whose
 * parent is the engine): the run its declarations belong to, and a watch for the engine gone. The
 * shell script outlives a killed engine, and so would the host: its creates would go on and their
 * answers reach no one. Once the engine is gone, its requests in flight end and the host exits, so
 * its journal entries are the next run's to settle.
 */
function watchEngine(runtime: ProviderRuntime): void {
  const run = dynamicHostRun();
  if (run === undefined) return;
  setEngineRun(run);
  const parent = process.ppid;
  const engine = procStat(parent)?.[1];
  const watch = setInterval(() => {
    if (process.ppid === parent && procStat(parent)?.[1] === engine) return;
    clearInterval(watch);
    runtime.stopping = true;
    setTimeout(() => process.exit(0), 2_000).unref();
    void runtime.client().then(
      (c) => c.destroy(),
      () => undefined,
    );
  }, ENGINE_CHECK_MS);
  watch.unref();
}

/** Binds an implementation to the host's provider instance. */
export function dynamicImplementation<I, O>(
  make: (ctx: ResourceContext) => ResourceImplementation<I, O>,
): DynamicImplementation<I, O> {
  const runtime = new ProviderRuntime();
  watchEngine(runtime);
  const impl = make(runtime);
  const bound: DynamicImplementation<I, O> = {
    configure: (req) => runtime.configure(req),
    check: async (olds, news) => {
      const problem = runtime.problem;
      runtime.problem = undefined;
      // The URN the dynamic classes add to the inputs (see ./declarations.ts) goes to check apart.
      const tagged = !!news && typeof news === "object" && URN_INPUT in news;
      const { [URN_INPUT]: urn, ...inputs } = tagged ? (news as Record<string, unknown>) : {};
      const result = await impl.check(
        olds,
        tagged ? inputs : news,
        typeof urn === "string" ? urn : undefined,
      );
      // The configuration's problem is a failure of no one property.
      if (!problem) return result;
      return { ...result, failures: [{ property: "", reason: problem }, ...(result.failures ?? [])] };
    },
    diff: (id, olds, news) => impl.diff(id, olds, news),
    create: (inputs) => impl.create(inputs),
    read: (id, props) => impl.read(id, props),
    update: (id, olds, news) => impl.update(id, olds, news),
    delete: (id, props) => impl.delete(id, props),
    route: (...args: unknown[]) => {
      const [a, b] = args;
      const req = a as pulumi.dynamic.ConfigureRequest;
      if (args.length === 1)
        return req && typeof req === "object" && req.config && typeof req.config.get === "function"
          ? bound.configure(req)
          : bound.create(a as I);
      return typeof a === "string" ? bound.read(a, b as O) : bound.check(a as I, b as I);
    },
  };
  return bound;
}
