/** `secops users list|get|update`: the team's directory users and their three flags. */
import type { Command } from "commander";
import type { DirectoryUser, DirectoryUserUpdate } from "../client/types";
import { columns } from "../drift/columns";
import { UsageError, bool, example, json } from "./args";
import { client } from "./common";

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

/** `secops users`. */
export function usersCommand(root: Command, out: NodeJS.WritableStream): void {
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
