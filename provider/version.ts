const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** Checks a version read from package.json. */
export function checkedVersion(manifest: { version?: unknown }): string {
  const v = manifest.version;
  if (typeof v !== "string" || !SEMVER.test(v))
    throw new Error(`pulumi-secops: package.json has no valid version (found ${JSON.stringify(v)})`);
  return v;
}

/**
 * This package's version, e.g. `0.1.0`. The require is static so the plugin bundle carries the file;
 * a version that is not semver fails at load rather than reach the engine through GetPluginInfo.
 */
export const VERSION = checkedVersion(require("../package.json") as { version?: unknown });
