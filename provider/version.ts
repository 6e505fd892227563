/** The package version, read once from package.json (one level up from both provider/ and dist/). */
import { readFileSync } from "node:fs";
import { join } from "node:path";

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version: string })
      .version;
  } catch {
    return "0.0.0";
  }
}

/** This package's version, e.g. `0.1.0`. */
export const VERSION = readVersion();
