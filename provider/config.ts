/**
 * Where the API key and base URL come from: explicit options > stack config > environment, except
 * that a named provider's key comes from its own arguments only (an environment fallback is how a
 * misspelt `apikey` wrote into another team). One shared client per connection settings.
 */
import { SecOpsClient } from "./client/client";
import { SecOpsConfigError } from "./client/errors";
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

/**
 * The problems of the settings a provider without explicit ones would use, each naming where it was
 * set; undefined when all present pass (a missing one is no problem: a preview works without it).
 */
export function configuredSettingsProblem(
  fromConfig: (key: string) => string | undefined,
): SecOpsConfigError | undefined {
  const problems = (["apiKey", "baseUrl"] as const).flatMap((key) => {
    const configured = fromConfig(CONFIG_KEYS[key]);
    const [value, where] =
      typeof configured === "string" && configured !== ""
        ? [configured, `the stack config ${CONFIG_KEYS[key]}`]
        : [process.env[ENV_VARS[key]], ENV_VARS[key]];
    const problem = value ? settingProblem(key, value) : undefined;
    return problem ? [{ key, text: `${where} is not usable: ${problem}` }] : [];
  });
  if (!problems.length) return undefined;
  return new SecOpsConfigError(`secops: ${problems.map((p) => p.text).join("; ")}`, problems[0].key);
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
 * What a provider instance says once at configure when it has no key or URL: a preview still works
 * (Check, Diff and preview creates need no API), but up would fail. Undefined for other errors.
 */
export function missingSettingsWarning(err: unknown): string | undefined {
  if (!(err instanceof SecOpsConfigError)) return undefined;
  return `${err.message}. Preview shows the plan without reading the API; up will fail before sending any request`;
}
