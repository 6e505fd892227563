/**
 * Where the API key and base URL come from: explicit options > stack config > environment, except
 * that a named provider's key comes from its own arguments only (an environment fallback is how a
 * misspelt `apikey` wrote into another team). One shared client per connection settings.
 */
import { SecOpsClient } from "./client/client";
import { SecOpsConfigError } from "./client/errors";
import { didYouMean } from "./client/options";
import {
  CONFIG_KEYS,
  ENV_VARS,
  missingSetting,
  namedProviderWithoutKey,
  settingProblem,
} from "./client/settings";
import { createHash } from "node:crypto";

export { CONFIG_KEYS, ENV_VARS };

/** Connection settings. */
export interface ConnectionSettings {
  apiKey: string;
  baseUrl: string;
}

/** Explicit connection options; each overrides stack config and environment. */
export interface ConnectionOptions {
  /** API key. Prefer stack config (`pulumi config set --secret secops:apiKey ...`) or SECOPS_API_KEY. */
  apiKey?: string;
  /** Base URL of the API. */
  baseUrl?: string;
}

/**
 * Resolves settings from explicit values, then a config lookup, then the environment (never the key
 * of `namedProvider`, an explicit provider). Throws SECOPS_CONFIG saying how to set what is missing.
 */
export function resolveSettings(
  explicit: ConnectionOptions = {},
  fromConfig: (key: string) => string | undefined = () => undefined,
  namedProvider?: string,
): ConnectionSettings {
  const named = namedProvider !== undefined;
  const pick = (key: keyof ConnectionSettings, env: boolean) =>
    [explicit[key], fromConfig(CONFIG_KEYS[key]), env ? process.env[ENV_VARS[key]] : undefined].find(
      (v) => typeof v === "string" && v !== "",
    );
  const apiKey = pick("apiKey", !named);
  const baseUrl = pick("baseUrl", true);
  if (!apiKey && named) throw new SecOpsConfigError(namedProviderWithoutKey(namedProvider), "apiKey");
  if (!apiKey) throw missingSetting("apiKey");
  if (!baseUrl) throw missingSetting("baseUrl");
  return { apiKey, baseUrl };
}

/** What may follow `secops:` in stack config besides the settings: the engine's own provider keys. */
const ENGINE_KEYS = ["version", "pluginDownloadURL"];

/**
 * Each `secops:` stack config key that is no setting, as "the stack config secops:basUrl is not a
 * setting; did you mean secops:baseUrl?": unnamed, a misspelt key reads as a missing setting, and the
 * user is told to set what they did set (issue 56).
 */
export function unknownConfigKeys(keys: Iterable<string>): string[] {
  const names = Object.keys(CONFIG_KEYS);
  return [...keys]
    .filter((k) => k.startsWith("secops:"))
    .map((k) => k.slice("secops:".length))
    .filter((name) => !names.includes(name) && !ENGINE_KEYS.includes(name))
    .map((name) => {
      const hint = didYouMean(name, names).replace("did you mean ", "did you mean secops:");
      return `the stack config secops:${name} is not a setting${hint}`;
    });
}

/**
 * The problems of the settings a provider without explicit ones would use, each naming where it was
 * set, misspelt `secops:` keys (of `configKeys`, every key of the stack config) first; undefined when
 * all present pass (a missing one is no problem: a preview works without it).
 */
export function configuredSettingsProblem(
  fromConfig: (key: string) => string | undefined,
  configKeys: Iterable<string> = [],
): SecOpsConfigError | undefined {
  const unknown = unknownConfigKeys(configKeys).map((text) => ({ key: undefined, text }));
  const problems = (["apiKey", "baseUrl"] as const).flatMap((key) => {
    const configured = fromConfig(CONFIG_KEYS[key]);
    const [value, where] =
      typeof configured === "string" && configured !== ""
        ? [configured, `the stack config ${CONFIG_KEYS[key]}`]
        : [process.env[ENV_VARS[key]], ENV_VARS[key]];
    const problem = value ? settingProblem(key, value) : undefined;
    return problem ? [{ key, text: `${where} is not usable: ${problem}` }] : [];
  });
  const all = [...unknown, ...problems];
  if (!all.length) return undefined;
  return new SecOpsConfigError(`secops: ${all.map((p) => p.text).join("; ")}`, all[0].key);
}

const clients = new Map<string, SecOpsClient>();

/** One shared client per (baseUrl, key). The cache is keyed by a hash, never the key itself. */
export function clientFor(settings: ConnectionSettings): SecOpsClient {
  const id = createHash("sha256").update(`${settings.baseUrl}\n${settings.apiKey}`).digest("hex");
  const client = clients.get(id) ?? new SecOpsClient({ apiKey: settings.apiKey, baseUrl: settings.baseUrl });
  clients.set(id, client);
  return client;
}

/** Closes every shared client (tests, CLI shutdown). */
export async function closeSharedClients(): Promise<void> {
  const all = [...clients.values()];
  clients.clear();
  await Promise.all(all.map((c) => c.close()));
}

/**
 * What a provider instance says once at configure when it has no key or URL: a preview of resources
 * still works (Check, Diff and preview creates need no API), but a data source, and up, fail. It says
 * so, since the data source's failure follows it (issue 56). Undefined for other errors.
 */
export function missingSettingsWarning(err: unknown): string | undefined {
  if (!(err instanceof SecOpsConfigError)) return undefined;
  return `${err.message}. Preview plans the resources without reading the API (a data source needs it); up will fail before sending any request`;
}
