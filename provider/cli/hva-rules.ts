/** `secops hva list|get|create|enable|disable` (a rule made here is unmanaged: no resource holds it). */
import type { Command } from "commander";
import { ErrorCodes, SecOpsApiError } from "../client/errors";
import { routes } from "../client/routes";
import type { HvaRule } from "../client/types";
import { columns } from "../drift/columns";
import { example, json } from "./args";
import { client } from "./common";

const ruleText = (r: HvaRule) =>
  `${r.id} ${r.searchField ?? "?"} ${JSON.stringify(r.search ?? "")} ${r.enabled ? "enabled" : "disabled"} in team ${r.teamId ?? "?"}\n`;

/** Adds the rule commands to the `hva` group (made by `secops hva export`'s module). */
export function hvaRuleCommands(hva: Command, out: NodeJS.WritableStream): void {
  hva.addHelpText("after", example("secops hva list --json", "secops hva export"));
  hva
    .command("list")
    .description("list the team's rules")
    .option("--json", "print JSON")
    .addHelpText("after", example("secops hva list", "secops hva list --json | jq length"))
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const rules = await client(cmd).listHvaRules();
      const rows = rules.map((r) => [r.id, r.searchField ?? "", r.search ?? "", String(r.enabled)]);
      out.write(
        o.json
          ? json(rules)
          : `${columns([["ID", "FIELD", "SEARCH", "ENABLED"], ...rows]).join("\n")}\n${rules.length} rules\n`,
      );
    });
  hva
    .command("get <id>")
    .description("show one rule")
    .option("--json", "print JSON")
    .addHelpText("after", example("secops hva get hva-0001-3817e8 --json"))
    .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
      const rule = await client(cmd).getHvaRule(id);
      if (!rule)
        throw new SecOpsApiError(
          ErrorCodes.NOT_FOUND,
          `GET ${routes.hvaRule(id)} failed (404): no rule ${id} in the key's team`,
          { status: 404, method: "GET", path: routes.hvaRule(id) },
        );
      out.write(o.json ? json(rule) : ruleText(rule));
    });
  hva
    .command("create")
    .description("make a rule by hand (no Pulumi resource holds it); prints its id")
    .option("--field <field>", "the searched field", "name")
    .requiredOption("--search <text>", "the search text, e.g. 'dc-*'")
    .option("--json", "print the rule as JSON")
    .addHelpText("after", example("secops hva create --search 'kiosk-*'"))
    .action(async (o: { field: string; search: string; json?: boolean }, cmd: Command) => {
      const rule = await client(cmd).createHvaRule({ field: o.field, search: o.search });
      out.write(o.json ? json(rule) : `${rule.id}\n`);
    });
  for (const [name, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const)
    hva
      .command(`${name} <id>`)
      .description(`${name} a rule`)
      .option("--json", "print the rule as JSON")
      .addHelpText("after", example(`secops hva ${name} hva-0001-3817e8`))
      .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
        const rule = await client(cmd).setHvaRuleEnabled(id, enabled);
        out.write(o.json ? json(rule) : ruleText(rule));
      });
}
