/**
 * Where the API key and base URL come from. Precedence: explicit options > stack config
 * (`secops:apiKey`, `secops:baseUrl`) > environment (SECOPS_API_KEY, SECOPS_BASE_URL), except that a
 * named (explicit) native provider takes its key from its own arguments only: falling back to the
 * environment is how a misspelt `apikey` wrote into another team (issue 32). Its base URL still
 * falls back to SECOPS_BASE_URL. Clients are shared per connection settings, so many resources and
 * function calls reuse one pool.
 */
import { SecOpsClient } from "./client/client";
import { SecOpsConfigError } from "./client/errors";
import { toSettings } from "./client/options";
import { createHash } from "node:crypto";

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

/** Stack config keys. */
export const CONFIG_KEYS = { apiKey: "secops:apiKey", baseUrl: "secops:baseUrl" } as const;
/** Environment variables. */
export const ENV_VARS = { apiKey: "SECOPS_API_KEY", baseUrl: "SECOPS_BASE_URL" } as const;

const HOW_KEY = `set it with \`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` or the ${ENV_VARS.apiKey} environment variable`;
const HOW_URL = `set it with \`pulumi config set ${CONFIG_KEYS.baseUrl} <url>\` or the ${ENV_VARS.baseUrl} environment variable`;

/**
 * The failure of a named provider without a key, the same in CheckConfig and at its first API call:
 * the fix is on the provider itself, never in stack config or the environment.
 */
export function namedProviderWithoutKey(name: string): string {
  return `the secops provider ${JSON.stringify(name)} has no apiKey: an explicit provider takes its key only from its own arguments (set apiKey on it)`;
}

/**
 * Resolves settings from explicit values, then a config lookup, then the environment.
 * `namedProvider` is the name of an explicit provider: its key never comes from the environment.
 * Throws SECOPS_CONFIG saying how to set what is missing.
 */
export function resolveSettings(
  explicit: ConnectionOptions = {},
  fromConfig: (key: string) => string | undefined = () => undefined,
  namedProvider?: string,
): ConnectionSettings {
  const pick = (e: string | undefined, key: string, env: string | undefined) => {
    for (const v of [e, fromConfig(key), env === undefined ? undefined : process.env[env]])
      if (typeof v === "string" && v !== "") return v;
    return undefined;
  };
  const named = namedProvider !== undefined;
  const apiKey = pick(explicit.apiKey, CONFIG_KEYS.apiKey, named ? undefined : ENV_VARS.apiKey);
  const baseUrl = pick(explicit.baseUrl, CONFIG_KEYS.baseUrl, ENV_VARS.baseUrl);
  if (!apiKey && named) throw new SecOpsConfigError(namedProviderWithoutKey(namedProvider), "apiKey");
  if (!apiKey) throw new SecOpsConfigError(`secops: no API key configured: ${HOW_KEY}`, "apiKey");
  if (!baseUrl) throw new SecOpsConfigError(`secops: no base URL configured: ${HOW_URL}`, "baseUrl");
  return { apiKey, baseUrl };
}

/** A stand-in for the other setting when one is checked on its own. */
const PLACEHOLDER = { apiKey: "placeholder-key", baseUrl: "https://placeholder.invalid" };

/**
 * What is wrong with one setting by the client's own rules (`toSettings`: an apiKey that can form a
 * header, a baseUrl that is absolute, https unless loopback, without a path), without any request;
 * undefined when it passes.
 */
export function settingProblem(key: keyof ConnectionSettings, value: unknown): string | undefined {
  try {
    toSettings({ ...PLACEHOLDER, [key]: value });
    return undefined;
  } catch (err) {
    if (!(err instanceof SecOpsConfigError)) throw err;
    return err.message;
  }
}

/**
 * The problems of the settings a provider without explicit ones would use (stack config, else the
 * environment), each naming where the value was set; undefined when every setting present passes.
 * Missing settings are not problems here: a preview works without them.
 */
export function configuredSettingsProblem(
  fromConfig: (key: string) => string | undefined,
): SecOpsConfigError | undefined {
  const problems: Array<[keyof ConnectionSettings, string]> = [];
  for (const key of ["apiKey", "baseUrl"] as const) {
    const configured = fromConfig(CONFIG_KEYS[key]);
    const [value, where] =
      typeof configured === "string" && configured !== ""
        ? [configured, `the stack config ${CONFIG_KEYS[key]}`]
        : [process.env[ENV_VARS[key]], ENV_VARS[key]];
    if (value === undefined || value === "") continue;
    const problem = settingProblem(key, value);
    if (problem) problems.push([key, `${where} is not usable: ${problem}`]);
  }
  if (!problems.length) return undefined;
  return new SecOpsConfigError(`secops: ${problems.map(([, p]) => p).join("; ")}`, problems[0][0]);
}

const clients = new Map<string, SecOpsClient>();

/** One shared client per (baseUrl, key). The cache is keyed by a hash, never the key itself. */
export function clientFor(settings: ConnectionSettings): SecOpsClient {
  const id = createHash("sha256").update(`${settings.baseUrl}\n${settings.apiKey}`).digest("hex");
  let client = clients.get(id);
  if (!client) {
    client = new SecOpsClient({ apiKey: settings.apiKey, baseUrl: settings.baseUrl });
    clients.set(id, client);
  }
  return client;
}

/** Closes every shared client (tests, CLI shutdown). */
export async function closeSharedClients(): Promise<void> {
  const all = [...clients.values()];
  clients.clear();
  await Promise.all(all.map((c) => c.close()));
}

/**
 * What a provider instance says once at configure when it has no key or URL: a preview still works
 * (Check, Diff and preview creates need no API), but up would fail. Undefined for other errors.
 */
export function missingSettingsWarning(err: unknown): string | undefined {
  if (!(err instanceof SecOpsConfigError)) return undefined;
  return `${err.message}. Preview shows the plan without reading the API; up will fail before sending any request`;
}
