/**
 * `secops-sim ctl`: drives a running simulator through its control routes (`/__sim/`, README
 * "Simulator control"): lists the seeded rules and directory users, makes rules, changes or deletes
 * them out of band (as someone in the product's console would), sets faults and reads statistics. The simulator's
 * URL and control token come from --url/--token or SECOPS_BASE_URL/SECOPS_SIM_TOKEN (it prints both).
 */
import { Command } from "commander";
import { UsageError, bool, example } from "../provider/cli/args";
import { columns } from "../provider/drift/columns";
import { SimulatorControl } from "./index";

type Row = Record<string, unknown>;
const out = (text: string) => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
const json = (v: unknown) => out(JSON.stringify(v, null, 2));

/** The control client of the running simulator the options (or the environment) name. */
function control(cmd: Command): SimulatorControl {
  const o = cmd.optsWithGlobals() as { url?: string; token?: string };
  const url = o.url ?? process.env.SECOPS_BASE_URL;
  const token = o.token ?? process.env.SECOPS_SIM_TOKEN;
  if (!url) throw new UsageError("no simulator URL: pass --url <url> or set SECOPS_BASE_URL");
  if (!token) throw new UsageError("no control token: pass --token <token> or set SECOPS_SIM_TOKEN");
  return new SimulatorControl(url.replace(/\/+$/, ""), token);
}

/** Rows as aligned columns of `keys` (`-` for an absent value). */
function table(rows: Row[], keys: string[]): string {
  const cell = (r: Row, k: string) => (r[k] === undefined || r[k] === null ? "-" : String(r[k]));
  const lines = columns([keys, ...rows.map((r) => keys.map((k) => cell(r, k)))]);
  return lines.map((l) => `${l}\n`).join("");
}

const USER_FLAGS = ["needsChatOpsWelcome", "chatOpsOnboardingUser", "credentialsExposed"] as const;

function listing(ctl: Command, x: string): void {
  ctl
    .command("rules")
    .description("list the HVA rules of every team")
    .option("--json", "print JSON", false)
    .addHelpText("after", example(`${x} rules`, `${x} rules --json | jq length`))
    .action(async (o: { json: boolean }, cmd: Command) => {
      const { rules } = await control(cmd).state();
      if (o.json) json(rules);
      else out(table(rules, ["id", "teamId", "searchField", "search", "enabled"]));
    });
  ctl
    .command("users")
    .description(
      "list the directory users of every team (their ids are what the directory-user resource takes)",
    )
    .option("--json", "print JSON", false)
    .addHelpText("after", example(`${x} users`))
    .action(async (o: { json: boolean }, cmd: Command) => {
      const { users } = await control(cmd).state();
      if (o.json) json(users);
      else out(table(users, ["id", "teamId", "email", ...USER_FLAGS]));
    });
}

/** One line for a directory user: its id, email and flags (`--json` prints the whole object). */
function userSummary(user: Row): string {
  const flags = USER_FLAGS.map((f) => `${f}=${user[f] === undefined ? "-" : String(user[f])}`).join(" ");
  return `${String(user.id)} ${String(user.email ?? "(no email)")}: ${flags}`;
}

function changes(ctl: Command, x: string): void {
  ctl
    .command("add-rule")
    .description("make a rule by hand in a team (as in the product's console); prints the new rule's id")
    .requiredOption("--team <team>", "the team's id (e.g. team-client-1)")
    .requiredOption("--field <field>", "the searched field (e.g. name)")
    .requiredOption("--search <text>", "the search text")
    .option("--disabled", "make it disabled (default: enabled)", false)
    .addHelpText("after", example(`${x} add-rule --team team-client-1 --field name --search 'kiosk-*'`))
    .action(async (o: { team: string; field: string; search: string; disabled: boolean }, cmd: Command) => {
      const rule = await control(cmd).addRule({
        teamId: o.team,
        searchField: o.field,
        search: o.search,
        enabled: !o.disabled,
      });
      out(rule.id);
    });
  ctl
    .command("set-rule <id>")
    .description("change a rule out of band (the public API refuses a search change; this does not)")
    .option("--enabled <bool>", "true or false", bool("--enabled"))
    .option("--search <text>", "the search text")
    .option("--field <field>", "the searched field")
    .addHelpText("after", example(`${x} set-rule hva-0001-3817e8 --enabled false`))
    .action(async (id: string, o: { enabled?: boolean; search?: string; field?: string }, cmd: Command) => {
      const change = { enabled: o.enabled, search: o.search, searchField: o.field };
      if (Object.values(change).every((v) => v === undefined))
        throw new UsageError("set-rule needs --enabled, --search or --field");
      json(await control(cmd).patchRule(id, change));
    });
  userChanges(ctl, x);
}

/** `ctl set-user`, `ctl delete-rule` and `ctl delete-user`. */
function userChanges(ctl: Command, x: string): void {
  ctl
    .command("set-user <id>")
    .description("change a directory user's flags out of band")
    .option("--needs-chat-ops-welcome <bool>", "true or false", bool("--needs-chat-ops-welcome"))
    .option("--chat-ops-onboarding-user <bool>", "true or false", bool("--chat-ops-onboarding-user"))
    .option("--credentials-exposed <bool>", "true or false", bool("--credentials-exposed"))
    .option("--json", "print the user as JSON (default: one summary line)", false)
    .addHelpText("after", example(`${x} set-user du-team-acme-005 --credentials-exposed true`))
    .action(async (id: string, o: Record<string, boolean | undefined>, cmd: Command) => {
      const change = Object.fromEntries(USER_FLAGS.filter((f) => o[f] !== undefined).map((f) => [f, o[f]]));
      if (Object.keys(change).length === 0) throw new UsageError("set-user needs at least one flag option");
      const user = (await control(cmd).patchUser(id, change)) as Row;
      if (o.json) json(user);
      else out(userSummary(user));
    });
  ctl
    .command("delete-rule <id>")
    .description("delete a rule out of band")
    .addHelpText("after", example(`${x} delete-rule hva-0002-38b61f`))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const rule = (await control(cmd).deleteRule(id)) as Row;
      out(
        `deleted rule ${id} (${String(rule.searchField)} ${JSON.stringify(rule.search)}) of team ${String(rule.teamId)}`,
      );
    });
  ctl
    .command("delete-user <id>")
    .description("delete a directory user out of band")
    .addHelpText("after", example(`${x} delete-user du-team-acme-004`))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const user = (await control(cmd).deleteUser(id)) as Row;
      out(`deleted user ${id} (${String(user.email ?? "no email")}) of team ${String(user.teamId)}`);
    });
  ctl
    .command("add-user")
    .description("add a directory user to a team (the next free id); prints the new user's id")
    .requiredOption("--team <team>", "the team's id (e.g. team-client-1)")
    .option("--email <email>", "its email (default: a generated one)")
    .option("--name <name>", "its display name (default: a generated one)")
    .option("--json", "print the user as JSON", false)
    .addHelpText("after", example(`${x} add-user --team team-client-1 --email kim@client-1.example`))
    .action(async (o: { team: string; email?: string; name?: string; json: boolean }, cmd: Command) => {
      const user = await control(cmd).addUser({ teamId: o.team, email: o.email, displayName: o.name });
      if (o.json) json(user);
      else out(String(user.id));
    });
}

function operations(ctl: Command, x: string): void {
  ctl
    .command("faults [spec]")
    .description("list the fault rules, or replace them with a spec (e.g. '429:0.1@PUT /endpoint')")
    .option("--clear", "remove every fault rule", false)
    .addHelpText("after", example(`${x} faults '429:0.1@PUT /endpoint'`, `${x} faults --clear`))
    .action(async (spec: string | undefined, o: { clear: boolean }, cmd: Command) => {
      const c = control(cmd);
      if (o.clear) return json(await (await c.clearFaults(), c.faults()));
      json(spec === undefined ? await c.faults() : await c.setFaults(spec));
    });
  ctl
    .command("stats")
    .description("requests per route, writes, sockets opened, faults injected")
    .option("--reset", "zero them afterwards", false)
    .addHelpText("after", example(`${x} stats --reset`))
    .action(async (o: { reset: boolean }, cmd: Command) => {
      const c = control(cmd);
      json(await c.stats());
      if (o.reset) await c.resetStats();
    });
}

/** The `ctl` command group; `parent` is how the reader runs the simulator (for the help's examples). */
export function ctlCommand(parent = "secops-sim"): Command {
  const x = `${parent} ctl`;
  const ctl = new Command("ctl")
    .description(
      "drive a running simulator: list, make, change or delete its objects, set faults, read stats",
    )
    .option("--url <url>", "the simulator's URL (default: $SECOPS_BASE_URL)")
    .option("--token <token>", "its control token (default: $SECOPS_SIM_TOKEN)")
    .addHelpText("after", example(`${x} rules`, `${x} stats`));
  listing(ctl, x);
  changes(ctl, x);
  operations(ctl, x);
  return ctl;
}
