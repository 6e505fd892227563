#!/usr/bin/env node
/** `secops`: a command line over SecOpsClient. Exit codes: 0, 1 error, 2 usage; `secops drift` also 3. */
import { basename, extname } from "node:path";
import { pipeline } from "node:stream/promises";
import { Command, CommanderError, Option } from "commander";
import { ErrorCodes, SecOpsError } from "../client/errors";
import {
  HEALTH_STATUSES,
  INTEGRATION_TYPES,
  SERVICE_PROVIDER_SCOPES,
  type Detection,
  type DirectoryUser,
  type DirectoryUserUpdate,
  type TimelineComment,
} from "../client/types";
import { columns } from "../drift/columns";
import { readInput } from "../drift/state";
import { VERSION } from "../version";
import { ExitStatus, driftCommand } from "./drift";
import { hvaCommand } from "./hva-export";
import { UsageError, bool, collect, example, json, oneOf } from "./args";
import { checkOutFile, cliMessage, client, usage } from "./common";

/** Content types of the image attachments, by extension (else application/octet-stream). */
const MIME: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Reads an --attach file; a missing or unreadable file is the user's mistake (exit 2). */
function attachment(path: string) {
  return {
    filename: basename(path),
    contentType: MIME[extname(path).toLowerCase()] ?? "application/octet-stream",
    data: new Uint8Array(usage("--attach ", () => readInput(path, null))),
  };
}

/** A readable summary of an edited comment: attachments by name, type and size, never their data. */
function commentSummary(c: TimelineComment): string {
  const files = (c.attachments ?? []).map(
    (f) => `\n  ${f.filename ?? "(no name)"}  ${f.contentType ?? "?"}  ${f.size ?? "?"} bytes`,
  );
  const updated = c.updatedAt ? ` at ${c.updatedAt}` : "";
  return `comment ${c.id} updated${updated}\ncontent: ${JSON.stringify(c.content ?? "")}\nattachments:${files.length ? files.join("") : " none"}\n`;
}

/** A case's indicators as a table (long cells cut at 60 characters) with a closing count line. */
function indicatorTable(rows: Detection[], totalCount: number): string {
  const head = ["ID", "CREATED", "SEVERITY", "STATUS", "VERDICT", "TITLE"];
  const cells = rows.map((d) =>
    [d.id, d.createdAt, d.severity, d.status, d.verdict, d.title].map((v) =>
      String(v ?? "").replace(/\s+/g, " "),
    ),
  );
  return `${columns([head, ...cells], 60).join("\n")}\n${rows.length} of ${totalCount} indicators\n`;
}

/** Builds the `secops` program. `out` receives normal output. */
export function program(out: NodeJS.WritableStream = process.stdout): Command {
  const root = new Command("secops")
    .description("Security Operations Service API from the command line")
    .version(VERSION)
    .option("--base-url <url>", "API base URL (default: $SECOPS_BASE_URL)")
    .option("--api-key-env <name>", "environment variable that holds the API key", "SECOPS_API_KEY")
    .addHelpText(
      "after",
      example("secops whoami", "secops --api-key-env TEAM_A_KEY hva list", "secops cases --help"),
    )
    .showHelpAfterError()
    // main() turns commander's exits into exit codes; the commands made below inherit this.
    .exitOverride();

  whoamiCommand(root, out);
  integrationsCommand(root, out);
  casesCommand(root, out);
  hvaCommand(root, out);
  usersCommand(root, out);
  driftCommand(root, out);
  commentsCommand(root, out);
  // `secops sim`, as the help lists it. main() hands `secops sim ...` to the simulator's own command
  // before parsing; this one is reached only after options of `secops` (`secops --base-url u sim`).
  root
    .command("sim")
    .description("Run a local stand-in for the Security Operations Service API (package secops-sim)")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_o: unknown, cmd: Command) => {
      const code = await runSim(process.argv, cmd.args);
      if (code) throw new ExitStatus(code);
    });
  return root;
}

/**
 * What `secops sim` says when the simulator package is not installed (exit 2). Neither package is on
 * the registry yet: the tarball a checkout packs is named too.
 */
export const SIM_MISSING =
  "`secops sim` needs the simulator package: npm install --save-dev secops-sim " +
  `(or the secops-sim-${VERSION}.tgz packed in a checkout: docs/simulator-and-cli.md)`;

/**
 * Runs `secops sim <words>`: the `secops-sim` command of the simulator package (its own package since
 * issue 41), loaded here and nowhere else, so that no other command loads the simulator.
 */
async function runSim(argv: string[], words: string[]): Promise<number | undefined> {
  // The simulator package's entry point, typed here: the provider does not depend on the package.
  let simMain: (argv: string[], name: string) => Promise<number | undefined>;
  try {
    ({ simMain } = require("secops-sim/cli") as { simMain: typeof simMain });
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND";
    if (!missing || !(err as Error).message.includes("'secops-sim/cli'")) throw err;
    process.stderr.write(`secops: ${SIM_MISSING}\n`);
    return 2;
  }
  return simMain([argv[0], argv[1], ...words], "secops sim");
}

/** `secops whoami`. */
function whoamiCommand(root: Command, out: NodeJS.WritableStream): void {
  root
    .command("whoami")
    .description("show the identity and role of the API key")
    .option("--json", "print JSON")
    .addHelpText("after", example("secops whoami", "secops whoami --json"))
    .action(async (o, cmd: Command) => {
      const me = await client(cmd).getIdentity();
      out.write(
        o.json
          ? json(me)
          : `${me.displayName} <${me.email}> ${me.role} in team ${me.teamId}${me.serviceProvider ? " (service provider)" : ""}\n`,
      );
    });
}

/** `secops integrations count`. */
function integrationsCommand(root: Command, out: NodeJS.WritableStream): void {
  const integrations = root
    .command("integrations")
    .description("Integrations with third-party products: count them by health, type or text.")
    .addHelpText("after", example("secops integrations count --health unhealthy"));
  integrations
    .command("count")
    .description("count integrations matching filters")
    .addOption(oneOf("--health <status>", "health status", HEALTH_STATUSES))
    .addOption(oneOf("--type <type>", "integration type", INTEGRATION_TYPES))
    .option("--search <text>", "free-text search")
    .option("--include-disabled", "include disabled integrations")
    .option("--json", 'print JSON: { "totalCount": n }')
    .addOption(
      new Option("--scope <scope>", "service-provider teams only: whose integrations").choices([
        ...SERVICE_PROVIDER_SCOPES,
      ]),
    )
    .addHelpText("after", example("secops integrations count --health unhealthy --type siem"))
    .action(async (o, cmd: Command) => {
      const n = await client(cmd).countIntegrations({
        healthStatus: o.health.length ? o.health : undefined,
        integrationTypes: o.type.length ? o.type : undefined,
        search: o.search,
        includeDisabled: o.includeDisabled,
        serviceProviderScope: o.scope,
      });
      out.write(o.json ? json({ totalCount: n }) : `${n}\n`);
    });
}

/** `secops cases indicators|export`. */
function casesCommand(root: Command, out: NodeJS.WritableStream): void {
  const cases = root
    .command("cases")
    .description("Cases: list a case's threat indicators, export cases as CSV.")
    .addHelpText(
      "after",
      example("secops cases indicators case-003", "secops cases export --out cases.csv --force"),
    );
  cases
    .command("indicators <caseId>")
    .description("list every threat indicator of a case")
    .addOption(
      new Option("--sort <direction>", "sort by creation time").choices(["asc", "desc"]).default("desc"),
    )
    .option("--json", "print JSON instead of a table")
    .addHelpText(
      "after",
      example(
        "secops cases indicators case-003 --sort asc",
        "secops cases indicators case-003 --json | jq '.totalCount'",
      ),
    )
    .action(async (caseId: string, o, cmd: Command) => {
      const res = await client(cmd).listCaseThreatIndicators(caseId, { sortDirection: o.sort });
      out.write(o.json ? json(res) : indicatorTable(res.data, res.totalCount));
    });
  cases
    .command("export")
    .description("export cases as CSV (streamed)")
    .option("--out <file>", "write to this file instead of standard output")
    .option("--force", "replace the --out file when it exists")
    .addHelpText(
      "after",
      example("secops cases export --out cases.csv --force", "secops cases export | head -5"),
    )
    .action(async (o, cmd: Command) => {
      const c = client(cmd);
      if (!o.out) return pipeline(await c.exportCasesCsv(), out);
      await checkOutFile(o.out, o.force === true, "cases.csv");
      // On a terminal, a live byte count (every 200 ms at most); else just the final line.
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
}

/** The flags the API lets a caller set, as option names and field names. */
const FLAGS = [
  ["--needs-chat-ops-welcome", "needsChatOpsWelcome"],
  ["--chat-ops-onboarding-user", "chatOpsOnboardingUser"],
  ["--credentials-exposed", "credentialsExposed"],
] as const;

const flag = (u: DirectoryUser, f: (typeof FLAGS)[number][1]) =>
  u[f] === undefined || u[f] === null ? "-" : String(u[f]);

/** One user: its id, email, team and the three flags, one per line. */
function userText(u: DirectoryUser): string {
  return [
    `${u.id} ${u.email ?? "(no email)"} (${u.displayName ?? "no name"}) in team ${u.teamId ?? "?"}`,
    ...FLAGS.map(([, f]) => `  ${f}: ${flag(u, f)}`),
    "",
  ].join("\n");
}

/** The users as a table with a closing count line. */
function userTable(users: DirectoryUser[]): string {
  const rows = users.map((u) => [u.id, u.email ?? "", ...FLAGS.map(([, f]) => flag(u, f))]);
  return `${columns([["ID", "EMAIL", ...FLAGS.map(([, f]) => f)], ...rows]).join("\n")}\n${users.length} users\n`;
}

/** `secops users list|get|update`: the team's directory users and their three flags. */
function usersCommand(root: Command, out: NodeJS.WritableStream): void {
  const users = root
    .command("users")
    .description(
      "Directory users of the key's team: list them, show one, set its chat-ops and exposure flags.",
    )
    .addHelpText("after", example("secops users list", "secops users get du-team-acme-005 --json"));
  users
    .command("list")
    .description("list the team's directory users and their flags")
    .option("--json", "print JSON")
    .addHelpText("after", example("secops users list", "secops users list --json | jq length"))
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const list = await client(cmd).listDirectoryUsers();
      out.write(o.json ? json(list) : userTable(list));
    });
  users
    .command("get <id>")
    .description("show one directory user")
    .option("--json", "print the whole user as JSON")
    .addHelpText(
      "after",
      example("secops users get du-team-acme-005", "secops users get du-team-acme-005 --json"),
    )
    .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
      const u = await client(cmd).getDirectoryUser(id);
      out.write(o.json ? json(u) : userText(u));
    });
  const update = users
    .command("update <id>")
    .description("set a directory user's flags (only those given change)")
    .option("--json", "print the whole user as JSON");
  for (const [name, field] of FLAGS) update.option(`${name} <bool>`, `${field}: true or false`, bool(name));
  update
    .addHelpText(
      "after",
      example(
        "secops users update du-team-acme-005 --needs-chat-ops-welcome false",
        "secops users update du-team-acme-005 --credentials-exposed false --json",
      ),
    )
    .action(async (id: string, o: DirectoryUserUpdate & { json?: boolean }, cmd: Command) => {
      const change: DirectoryUserUpdate = {};
      for (const [, f] of FLAGS) if (o[f] !== undefined) change[f] = o[f];
      if (Object.keys(change).length === 0)
        throw new UsageError(`give at least one of ${FLAGS.map(([n]) => n).join(", ")}`);
      const u = await client(cmd).updateDirectoryUser(id, change);
      out.write(o.json ? json(u) : userText(u));
    });
}

/** `secops comments edit`. */
function commentsCommand(root: Command, out: NodeJS.WritableStream): void {
  root
    .command("comments")
    .description("Timeline comments on cases: edit their text and attachments.")
    .addHelpText("after", example('secops comments edit cmt-001 --content "triaged"'))
    .command("edit <id>")
    .description("edit a comment's text and/or replace its attachments")
    .option("--content <text>", "new text")
    .option("--attach <file>", "attachment (replaces all), repeatable", collect, [])
    .option("--clear-attachments", "remove every attachment")
    .option("--json", "print the whole comment as JSON")
    .addHelpText("after", example('secops comments edit cmt-001 --content "triaged" --attach shot.png'))
    .action(async (id: string, o, cmd: Command) => {
      if (o.content === undefined && o.attach.length === 0 && !o.clearAttachments)
        throw new UsageError("give --content, --attach or --clear-attachments");
      if (o.attach.length > 0 && o.clearAttachments)
        throw new UsageError(
          "--attach replaces every attachment already; do not combine it with --clear-attachments",
        );
      const files = (o.attach as string[]).map(attachment);
      const c = await client(cmd).editTimelineComment(id, {
        content: o.content,
        files: files.length || o.clearAttachments ? files : undefined,
      });
      out.write(o.json ? json(c) : commentSummary(c));
    });
}

/**
 * Runs `secops` with `argv`; resolves with the exit status, or undefined while `secops sim` serves.
 * `secops sim ...` is parsed by the simulator's own command alone: parsed from `secops`, an option
 * of a `ctl` command that the simulator also has (`--json`, `--team`) would be taken by the simulator.
 */
export async function main(argv: string[]): Promise<number | undefined> {
  try {
    if (argv[2] === "sim") return await runSim(argv, argv.slice(3));
    // `secops help sim`: the simulator's help (commander would show this command's own).
    if (argv[2] === "help" && argv[3] === "sim") return await runSim(argv, ["--help"]);
    await program().parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof ExitStatus) return err.code;
    // A reader that went away (`secops ... | head -1`) ends the command quietly, as Unix tools do.
    if ((err as NodeJS.ErrnoException)?.code === "EPIPE") return 0;
    if (err instanceof UsageError) {
      process.stderr.write(`secops: ${err.message}\n`);
      return 2;
    }
    // Wrong on the user's side before the API was reached (or the API's answer decided it): exit 2.
    const userSide =
      err instanceof SecOpsError && (err.code === ErrorCodes.INVALID_INPUT || err.code === ErrorCodes.CONFIG);
    const code = err instanceof SecOpsError ? ` [${err.code}]` : "";
    process.stderr.write(`secops: ${cliMessage(err as Error)}${code}\n`);
    return userSide ? 2 : 1;
  }
}

if (require.main === module) {
  // Ends quietly when standard output is closed early (EPIPE), instead of an unhandled 'error'.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
  void main(process.argv).then((code) => {
    // `secops sim` keeps serving (undefined): only the commands that ended set the exit status.
    if (code !== undefined) process.exitCode = code;
  });
}
