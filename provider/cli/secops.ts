#!/usr/bin/env node
/**
 * `secops`: a small command line over SecOpsClient.
 * Exit codes: 0 success, 1 API (or I/O) error with its message, 2 usage error.
 */
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { pipeline } from "node:stream/promises";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { SecOpsClient } from "../client/client";
import { SecOpsError } from "../client/errors";
import { HEALTH_STATUSES, INTEGRATION_TYPES, SERVICE_PROVIDER_SCOPES } from "../client/types";
import { resolveSettings } from "../config";
import { VERSION } from "../version";
import { simCommand } from "./secops-sim";
import { indicatorTable } from "./table";

class UsageError extends Error {}

const collect = (v: string, acc: string[]) => [...acc, v];
const oneOf =
  (name: string, allowed: readonly string[]) =>
  (v: string, acc: string[] = []) => {
    if (!allowed.includes(v)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(", ")}`);
    return [...acc, v];
  };

function client(cmd: Command): SecOpsClient {
  const o = cmd.optsWithGlobals() as { baseUrl?: string; apiKeyEnv: string };
  const apiKey = process.env[o.apiKeyEnv];
  if (o.apiKeyEnv !== "SECOPS_API_KEY" && !apiKey)
    throw new UsageError(`environment variable ${o.apiKeyEnv} is empty or not set`);
  try {
    return new SecOpsClient(resolveSettings({ apiKey, baseUrl: o.baseUrl }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

const MIME: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Builds the `secops` program. `out` receives normal output. */
export function program(out: NodeJS.WritableStream = process.stdout): Command {
  const root = new Command("secops")
    .description("Security Operations Service API from the command line")
    .version(VERSION)
    .option("--base-url <url>", "API base URL (default: $SECOPS_BASE_URL)")
    .option("--api-key-env <name>", "environment variable that holds the API key", "SECOPS_API_KEY")
    .showHelpAfterError();

  root
    .command("whoami")
    .description("show the identity and role of the API key")
    .option("--json", "print JSON")
    .action(async (o, cmd: Command) => {
      const me = await client(cmd).getIdentity();
      out.write(
        o.json
          ? `${JSON.stringify(me, null, 2)}\n`
          : `${me.displayName} <${me.email}> ${me.role} in team ${me.teamId}${me.serviceProvider ? " (service provider)" : ""}\n`,
      );
    });

  const integrations = root.command("integrations").description("integrations");
  integrations
    .command("count")
    .description("count integrations matching filters")
    .option(
      "--health <status>",
      `health status, repeatable (${HEALTH_STATUSES.join(", ")})`,
      oneOf("--health", HEALTH_STATUSES),
      [],
    )
    .option("--type <type>", "integration type, repeatable", oneOf("--type", INTEGRATION_TYPES), [])
    .option("--search <text>", "free-text search")
    .option("--include-disabled", "include disabled integrations")
    .addOption(new Option("--scope <scope>", "service-provider scope").choices([...SERVICE_PROVIDER_SCOPES]))
    .action(async (o, cmd: Command) => {
      const n = await client(cmd).countIntegrations({
        healthStatus: o.health.length ? o.health : undefined,
        integrationTypes: o.type.length ? o.type : undefined,
        search: o.search,
        includeDisabled: o.includeDisabled,
        serviceProviderScope: o.scope,
      });
      out.write(`${n}\n`);
    });

  const cases = root.command("cases").description("cases");
  cases
    .command("indicators <caseId>")
    .description("list every threat indicator of a case")
    .addOption(
      new Option("--sort <direction>", "sort by creation time").choices(["asc", "desc"]).default("desc"),
    )
    .option("--json", "print JSON instead of a table")
    .action(async (caseId: string, o, cmd: Command) => {
      const res = await client(cmd).listCaseThreatIndicators(caseId, { sortDirection: o.sort });
      out.write(o.json ? `${JSON.stringify(res, null, 2)}\n` : indicatorTable(res.data, res.totalCount));
    });
  cases
    .command("export")
    .description("export cases as CSV (streamed)")
    .option("--out <file>", "write to this file instead of standard output")
    .action(async (o, cmd: Command) => {
      const c = client(cmd);
      if (!o.out) {
        await pipeline(await c.exportCasesCsv(), out);
        return;
      }
      // On a terminal, a live byte count (at most every 200 ms); otherwise just the final line.
      const tty = process.stderr.isTTY;
      let shown = 0;
      const progress = (bytes: number) => {
        if (Date.now() - shown < 200) return;
        shown = Date.now();
        process.stderr.write(`\rwriting ${o.out}: ${bytes} bytes`);
      };
      const { bytes } = await c.exportCasesCsvToFile(o.out, tty ? progress : undefined);
      process.stderr.write(`${tty && shown ? "\r\x1b[K" : ""}wrote ${bytes} bytes to ${o.out}\n`);
    });

  root
    .command("comments")
    .description("timeline comments")
    .command("edit <id>")
    .description("edit a comment's text and/or replace its attachments")
    .option("--content <text>", "new text")
    .option("--attach <file>", "attachment (replaces all), repeatable", collect, [])
    .option("--clear-attachments", "remove every attachment")
    .action(async (id: string, o, cmd: Command) => {
      if (o.content === undefined && o.attach.length === 0 && !o.clearAttachments)
        throw new UsageError("give --content, --attach or --clear-attachments");
      const files = await Promise.all(
        (o.attach as string[]).map(async (p) => ({
          filename: basename(p),
          contentType: MIME[extname(p).toLowerCase()] ?? "application/octet-stream",
          data: new Uint8Array(await readFile(p)),
        })),
      );
      const c = await client(cmd).editTimelineComment(id, {
        content: o.content,
        files: files.length || o.clearAttachments ? files : undefined,
      });
      out.write(`${JSON.stringify(c, null, 2)}\n`);
    });

  root.addCommand(simCommand("sim"));
  return root;
}

/** Runs the CLI and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const prog = program();
  const override = (c: Command) => {
    c.exitOverride();
    c.commands.forEach(override);
  };
  override(prog);
  try {
    await prog.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof UsageError) {
      process.stderr.write(`secops: ${err.message}\n`);
      return 2;
    }
    const code = err instanceof SecOpsError ? ` [${err.code}]` : "";
    process.stderr.write(`secops: ${(err as Error).message}${code}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv).then((code) => {
    // `secops sim` keeps running: only exit for the other commands.
    if (process.argv[2] !== "sim" || code !== 0) process.exitCode = code;
  });
}
