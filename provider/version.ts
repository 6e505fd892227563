const { version } = require("../package.json") as { version?: unknown };
if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version))
  throw new Error(`pulumi-secops: package.json has no valid version (found ${JSON.stringify(version)})`);

/**
 * This package's version, e.g. `0.1.0`. The require is static so the plugin bundle carries the file;
 * a version that is not semver fails at load rather than reach the engine through GetPluginInfo.
 */
export const VERSION: string = version;
