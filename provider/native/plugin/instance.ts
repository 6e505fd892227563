/** One configured provider instance: own settings, client and caches (nothing global: teams never mix). */
import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { SecOpsClient } from "../../client/client";
import {
  ErrorCodes,
  SecOpsConfigError,
  SecOpsSafetyError,
  encodings,
  isSecOpsError,
} from "../../client/errors";
import { teamOf, teamUnverified } from "../../resources/framework/runtime";
import {
  CONFIG_KEYS,
  ENV_VARS,
  missingSettingsWarning,
  resolveSettings,
  type ConnectionOptions,
  type ConnectionSettings,
} from "../../config";
import type { ResourceContext, ResourceImplementation } from "../../resources/framework/context";
import type { Bag } from "../../resources/framework/definition";
import { isDefaultProviderName } from "../../resources/framework/names";
import { RESOURCES } from "../../resources/framework/registry";
import type { unwrap } from "./proto";

/** Where the plugin's messages go: the engine's Log service, or stderr without an engine. */
export type PluginLog = (severity: "info" | "warning" | "error", message: string, urn?: string) => void;

/** The current call: its resource's URN (for warnings) and secrets in every encoding (kept out of errors). */
export const currentCall = new AsyncLocalStorage<{ urn: string; secrets: Set<string> }>();

/** Keeps the secret strings of `bag` out of the current call's error text; returns `bag`. */
export function hideInErrors(bag: ReturnType<typeof unwrap>): ReturnType<typeof unwrap> {
  const call = currentCall.getStore();
  const add = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.length >= 3) for (const form of encodings(v)) call?.secrets.add(form);
    } else if (Array.isArray(v)) v.forEach(add);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(add);
  };
  for (const k of bag.secrets) add(bag.values[k]);
  return bag;
}

/** Who a provider instance is: the name in its URN, and whether it is the engine's default provider. */
export interface ProviderIdentity {
  name: string;
  isDefault: boolean;
}

/** The provider a URN names (`...::pulumi:providers:secops::<name>`; default: `default[_<version>]`). */
export function providerOfUrn(urn: string | undefined): ProviderIdentity | undefined {
  const name = urn ? urn.split("::").pop() : undefined;
  return name ? { name, isDefault: isDefaultProviderName(name) } : undefined;
}

/** How messages name a provider: `the secops provider "client1"`, or the default one. */
export function describeProvider(who: ProviderIdentity | undefined): string {
  if (!who) return "the secops provider";
  return who.isDefault ? "the default secops provider" : `the secops provider ${JSON.stringify(who.name)}`;
}

/** The refusal of another team's key: the provider's rules would be left behind, or moved by a replace. */
export function otherTeamsKeyMessage(
  who: ProviderIdentity | undefined,
  before: string,
  after: string,
): string {
  const label = describeProvider(who);
  const newProvider = who?.isDefault
    ? "declare an explicit provider with that key"
    : "declare a provider of a new name with that key";
  return `${label} holds team ${before}'s resources, and its new apiKey is a key of team ${after}; nothing was changed. A provider never moves to another team: give it back a key of team ${before}, and to manage team ${after} ${newProvider} (to move rules, create them under the new provider and remove them from this one)`;
}

/** One provider instance: the ResourceContext of its resources' implementations. */
export class ProviderInstance implements ResourceContext {
  /** Who this instance is, from its CheckConfig or Configure URN (one plugin process per provider). */
  who: ProviderIdentity | undefined;
  /** A DiffConfig's refusal of the new settings, for the Configure that follows it (see diffConfig). */
  configureRefusal: Error | undefined;
  /** Set by Cancel: later calls fail plainly. */
  cancelled = false;
  /** Set when the process ends (see ResourceContext.stopping). */
  stopping = false;
  #refused: SecOpsConfigError | undefined;
  #settings: Promise<ConnectionSettings> | undefined;
  #client: Promise<SecOpsClient> | undefined;
  readonly #warned = new Set<string>();
  readonly #impls = new Map<string, ResourceImplementation<Bag, Bag>>();

  constructor(private readonly log: PluginLog) {}

  /**
   * Settings from Configure: args, then `variables`, then the environment (never a named provider's
   * key). An unknown key is never replaced; a missing one fails API calls, not Configure (preview works).
   */
  configure(
    explicit: ConnectionOptions,
    variables: (key: string) => string | undefined,
    keyUnknown = false,
  ): void {
    const who = this.who;
    const named = who && !who.isDefault ? who.name : undefined;
    const settings = Promise.resolve().then(() => {
      if (keyUnknown)
        throw new SecOpsConfigError(
          `${describeProvider(who)}: its apiKey is not known until the update runs (it is an output of another resource)`,
          "apiKey",
        );
      return resolveSettings(explicit, (key) => variables(key.replace(/^secops:/, "secops:config:")), named);
    });
    // Reported by client() at the first API call; warned now, so a keyless preview is not silent.
    settings.catch((err: unknown) => {
      const warning = keyUnknown ? undefined : missingSettingsWarning(err); // an unknown key is known at up
      if (warning) this.warn("settings", warning);
    });
    this.#settings = settings;
    this.#refused = undefined;
    // A second Configure replaces the client: the old one's pool is closed, never left open.
    void this.close();
    this.#client = undefined;
  }

  /** This instance's client (made and validated on first use); after a refused key, that one error. */
  client(): Promise<SecOpsClient> {
    if (this.#refused) return Promise.reject(this.#refused);
    this.#settings ??= Promise.resolve().then(() => resolveSettings());
    const settings = this.#settings;
    this.#client ??= settings.then((s) => {
      try {
        return new SecOpsClient({ apiKey: s.apiKey, baseUrl: s.baseUrl });
      } catch (err) {
        // A setting CheckConfig did not see (a refresh sends none): said with the provider's name.
        if (err instanceof SecOpsConfigError)
          throw new SecOpsConfigError(`${describeProvider(this.who)}: ${err.message}`, err.field);
        throw err;
      }
    });
    return this.#client;
  }

  /**
   * Runs a call that needs the API; a refused key (401) becomes one error naming the provider, the
   * setting and the fix, given to every later call (not one per resource).
   */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isSecOpsError(err, ErrorCodes.AUTH) || err.status !== 401) throw err;
      const who = this.who;
      const where =
        err.method && err.path ? ` (${err.method} ${err.path} answered 401)` : " (the API answered 401)";
      const fix =
        who && !who.isDefault
          ? "Set apiKey on the provider to a valid API key of its team"
          : `Set a valid API key with \`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` or the ${ENV_VARS.apiKey} environment variable${who ? "" : " (or apiKey on an explicit provider)"}`;
      const message = `${describeProvider(who)} was refused by the API: its apiKey is not a valid key${where}. ${fix}`;
      throw (this.#refused ??= new SecOpsConfigError(message, "apiKey"));
    }
  }

  /**
   * At Configure, with a key given: a refused key fails Configure once, not every resource. Anything
   * else (unreachable, slower than `waitMs`) is left to the calls that need the API.
   */
  async checkKey(waitMs = 5_000): Promise<void> {
    let client: SecOpsClient;
    try {
      client = await this.client();
    } catch {
      return;
    }
    // An unref'd timer: a lookup that outlives the wait never holds the process.
    const late = sleep(waitMs, undefined, { ref: false });
    try {
      await Promise.race([this.guard(() => client.identity()).then(() => undefined), late]);
    } catch (err) {
      if (err === this.#refused) throw err;
    }
  }

  /**
   * A new key whose team DiffConfig could not compare with the old key's (a lookup failed): every
   * write looks both up again first, and is refused until they are known to be one team.
   */
  keyChange: { apiKey: string; baseUrl: string | undefined } | undefined;

  /** How messages name this provider. */
  describe(): string {
    return describeProvider(this.who);
  }

  /** See ResourceContext.writeTeam: the key's team, and after an unverified key change, the same team. */
  async writeTeam(client: SecOpsClient): Promise<string> {
    const team = await teamOf(client).catch((err: unknown) => {
      throw teamUnverified(this.describe(), err);
    });
    const change = this.keyChange;
    if (!change) return team;
    if (change.baseUrl === undefined) return team; // no URL to ask: the resources' own teams are compared
    const old = new SecOpsClient({ apiKey: change.apiKey, baseUrl: change.baseUrl, maxRetries: 2 });
    try {
      const before = await teamOf(old);
      if (before !== team)
        throw new SecOpsSafetyError(ErrorCodes.WRONG_TEAM, otherTeamsKeyMessage(this.who, before, team));
    } catch (err) {
      // An old key the API refuses (rotated away) cannot be compared: the resources' own teams are.
      if (!isSecOpsError(err, ErrorCodes.AUTH) && !isSecOpsError(err, ErrorCodes.FORBIDDEN)) {
        if (isSecOpsError(err, ErrorCodes.WRONG_TEAM)) throw err;
        const cause = err instanceof Error ? err.message : String(err);
        throw new SecOpsSafetyError(
          ErrorCodes.TEAM_UNVERIFIED,
          `${this.describe()} has a new apiKey, and the team of its previous key could not be looked up to compare (${cause}); nothing was written. Run the update again once GET /v1/auth/me answers`,
        );
      }
    } finally {
      await old.close();
    }
    this.keyChange = undefined;
    return team;
  }

  /** Once per instance and key; carries the current resource's URN. */
  warn(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.log("warning", message, currentCall.getStore()?.urn);
  }

  /** The URN of the resource the current call is about. */
  urn(): string | undefined {
    return currentCall.getStore()?.urn || undefined;
  }

  /** The implementation of a resource type for this instance, or undefined for an unknown token. */
  implementation(token: string): ResourceImplementation<Bag, Bag> | undefined {
    const impl = this.#impls.get(token) ?? RESOURCES.find((r) => r.definition.token === token)?.make(this);
    if (impl) this.#impls.set(token, impl);
    return impl;
  }

  /** Cancel: in-flight requests end now; later calls fail plainly. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    await this.#client?.then((c) => c.destroy()).catch(() => undefined);
  }

  /** Shutdown: the pool is closed. */
  async close(): Promise<void> {
    await this.#client?.then((c) => c.close()).catch(() => undefined);
  }
}
