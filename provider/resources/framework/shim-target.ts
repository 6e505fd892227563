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
import type { SecOpsConfigError } from "../../client/errors";
import {
  clientFor,
  configuredSettingsProblem,
  missingSettingsWarning,
  resolveSettings,
  type ConnectionSettings,
} from "../../config";
import type { ResourceContext, ResourceImplementation } from "./context";
import { URN_INPUT } from "./declarations";

/** Credentials of the host's one provider instance: from `configure`, else the environment. */
export class ProviderRuntime implements ResourceContext {
  private ready: Promise<ConnectionSettings> | undefined;
  /** An unusable setting found at configure; reported by one check, then by every API call. */
  private problem: { error: SecOpsConfigError; reported: boolean } | undefined;

  /**
   * Called by the host, unawaited (hence the ready promise). An unusable setting fails the next check
   * once (so preview fails) and every API call; a missing one only API calls (preview needs no key).
   */
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    const error = configuredSettingsProblem((key) => req.config.get(key));
    this.problem = error && { error, reported: false };
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

  /** The configuration's problem the first time it is asked for (one failure per host, not per resource). */
  takeProblem(): string | undefined {
    if (!this.problem || this.problem.reported) return undefined;
    this.problem.reported = true;
    return this.problem.error.message;
  }

  /** The shared client for the configured settings. */
  async client(): Promise<SecOpsClient> {
    this.ready ??= Promise.resolve().then(() => resolveSettings());
    return clientFor(await this.ready);
  }

  /** Once per host process (the host serves one provider instance). */
  warn(key: string, message: string): void {
    if (warned.has(key)) return;
    warned.add(key);
    // Loaded here: the plugin imports this module too, and must not load the program SDK at start.
    const sdk = require("@pulumi/pulumi") as typeof pulumi;
    void sdk.log.warn(message);
  }
}

const warned = new Set<string>();

/** The `provider` export a resource module offers the shim (protocol v1 above). */
export interface DynamicImplementation<I = never, O = never> extends ResourceImplementation<I, O> {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
  /** Routes the shim's shared function by argument shapes. */
  route(...args: unknown[]): Promise<unknown>;
}

/** Binds an implementation to the host's provider instance. */
export function dynamicImplementation<I, O>(
  make: (ctx: ResourceContext) => ResourceImplementation<I, O>,
): DynamicImplementation<I, O> {
  const runtime = new ProviderRuntime();
  const impl = make(runtime);
  const bound: DynamicImplementation<I, O> = {
    configure: (req) => runtime.configure(req),
    check: async (olds, news) => {
      const { urn, inputs } = withoutUrn(news);
      return withConfigProblem(runtime.takeProblem(), await impl.check(olds, inputs, urn));
    },
    diff: (id, olds, news) => impl.diff(id, olds, news),
    create: (inputs) => impl.create(inputs),
    read: (id, props) => impl.read(id, props),
    update: (id, olds, news) => impl.update(id, olds, news),
    delete: (id, props) => impl.delete(id, props),
    route: (...args: unknown[]) => route(bound, args),
  };
  return bound;
}

/** The inputs without the URN the dynamic classes add (see ./declarations.ts), and that URN. */
function withoutUrn(news: unknown): { urn: string | undefined; inputs: unknown } {
  if (!news || typeof news !== "object" || !(URN_INPUT in news)) return { urn: undefined, inputs: news };
  const { [URN_INPUT]: urn, ...inputs } = news as Record<string, unknown>;
  return { urn: typeof urn === "string" ? urn : undefined, inputs };
}

/** A check's result with the configuration's problem as a failure of no one property. */
function withConfigProblem<I>(
  problem: string | undefined,
  result: pulumi.dynamic.CheckResult<I>,
): pulumi.dynamic.CheckResult<I> {
  if (!problem) return result;
  return { ...result, failures: [{ property: "", reason: problem }, ...(result.failures ?? [])] };
}

function route<I, O>(impl: DynamicImplementation<I, O>, args: unknown[]): Promise<unknown> {
  const [a, b] = args;
  if (args.length === 1) {
    const req = a as pulumi.dynamic.ConfigureRequest;
    return req && typeof req === "object" && req.config && typeof req.config.get === "function"
      ? impl.configure(req)
      : impl.create(a as I);
  }
  return typeof a === "string" ? impl.read(a, b as O) : impl.check(a as I, b as I);
}
