/**
 * Every jest worker (and every plugin or host it starts, which inherit the environment) keeps its
 * create-intent journal in a folder of its own, never in the user's ~/.pulumi.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.SECOPS_INTENT_DIR ??= mkdtempSync(join(tmpdir(), "secops-intents-"));
