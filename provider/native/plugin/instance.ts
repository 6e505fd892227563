/**
 * One configured provider instance: its own settings, its own SecOpsClient (own key, own pool) and its
 * own implementations (own caches). Nothing here is process-global, so two teams never mix.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { SecOpsClient } from "../../client/client";
import { encodings } from "../../client/errors";
import {
  missingSettingsWarning,
  resolveSettings,
  type ConnectionOptions,
  type ConnectionSettings,
} from "../../config";
import type { ResourceContext, ResourceImplementation } from "../../resources/context";
import { NATIVE_RESOURCES, type Bag } from "./resources";

/** Where the plugin's messages go: the engine's Log service, or stderr without an engine. */
export type PluginLog = (severity: "info" | "warning" | "error", message: string, urn?: string) => void;

/**
 * The current call: the URN of the resource it is about (warnings carry it to the engine) and the
 * values of its secret inputs, in every encoding, which its error must not carry.
 */
export const currentCall = new AsyncLocalStorage<{ urn: string; secrets: Set<string> }>();

/** Keeps the string values inside `values` (secret inputs) out of the current call's error text. */
export function hideInErrors(values: Iterable<unknown>): void {
  const call = currentCall.getStore();
  if (!call) return;
  const add = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.length >= 3) for (const form of encodings(v)) call.secrets.add(form);
    } else if (Array.isArray(v)) v.forEach(add);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(add);
  };
  for (const v of values) add(v);
}

export class ProviderInstance implements ResourceContext {
  #settings: Promise<ConnectionSettings> | undefined;
  #client: Promise<SecOpsClient> | undefined;
  #cancelled = false;
  readonly #warned = new Set<string>();
  readonly #impls = new Map<string, ResourceImplementation<Bag, Bag>>();

  constructor(private readonly log: PluginLog) {}

  /**
   * Settings from Configure: explicit args, then the engine's `variables`
   * (`secops:config:<key>`), then SECOPS_API_KEY/SECOPS_BASE_URL. A missing key fails the first call
   * that needs the API (never Configure), so a preview without credentials still works.
   */
  configure(explicit: ConnectionOptions, variables: (key: string) => string | undefined): void {
    const settings = Promise.resolve().then(() =>
      resolveSettings(explicit, (key) => variables(key.replace(/^secops:/, "secops:config:"))),
    );
    // Reported by client() at the first call that needs the API; said once now, so a preview without a
    // key does not pass silently.
    settings.catch((err: unknown) => {
      const warning = missingSettingsWarning(err);
      if (warning) this.warn("settings", warning);
    });
    this.#settings = settings;
    // A second Configure replaces the client: the old one's pool is closed, never left open.
    const old = this.#client;
    this.#client = undefined;
    if (old) void old.then((c) => c.close()).catch(() => undefined);
  }

  /** This instance's client (created on first use, validated then). */
  client(): Promise<SecOpsClient> {
    this.#settings ??= Promise.resolve().then(() => resolveSettings());
    const settings = this.#settings;
    this.#client ??= settings.then((s) => new SecOpsClient({ apiKey: s.apiKey, baseUrl: s.baseUrl }));
    return this.#client;
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
    let impl = this.#impls.get(token);
    const type = NATIVE_RESOURCES[token];
    if (!impl && type) {
      impl = type.make(this);
      this.#impls.set(token, impl);
    }
    return impl;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** Cancel: in-flight requests end now; later calls fail plainly. */
  async cancel(): Promise<void> {
    this.#cancelled = true;
    const client = this.#client;
    if (client) await client.then((c) => c.destroy()).catch(() => undefined);
  }

  /** Shutdown: the pool is closed. */
  async close(): Promise<void> {
    const client = this.#client;
    if (client) await client.then((c) => c.close()).catch(() => undefined);
  }
}
