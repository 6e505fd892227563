/**
 * The create-intent journal: what a create keeps until its caller holds the answer, and how a dead
 * process (exited, a zombie nobody reaped, or a pid given to a later process) is told from a live one.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IntentJournal } from "../../provider/resources/hva-automation-rule/intents";

const TEAM = "team-a";
const RULE = { field: "name", search: "dc-*" };
let dir: string;
let journal: IntentJournal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "secops-intent-unit-"));
  journal = new IntentJournal(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The folder of RULE's intents (one per team, and in it one per field and search). */
const ruleFolder = () => {
  const keys = readdirSync(join(dir, TEAM));
  expect(keys).toHaveLength(1);
  return join(dir, TEAM, keys[0]);
};
const files = () => readdirSync(ruleFolder());
/** The team's rule folders: a rule's folder goes once its last intent is removed (issue 45 point 12). */
const folders = () => readdirSync(join(dir, TEAM));
const stored = () => files().map((f) => JSON.parse(readFileSync(join(ruleFolder(), f), "utf8")));

/** An intent file as another process (pid, start) would have written it. */
function writeAs(pid: number, extra: Record<string, unknown> = {}): void {
  const [name] = files();
  const body = { ...stored()[0], pid, token: "other", ...extra };
  const renamed = name.replace(/^\d+\./, `${pid}.`);
  writeFileSync(join(ruleFolder(), renamed), JSON.stringify(body));
  if (renamed !== name) rmSync(join(ruleFolder(), name)); // written over otherwise
  expect(files()).toEqual([renamed]);
}

test("an answered create keeps its id until a call about that id confirms the caller holds it", () => {
  const intent = journal.open(TEAM, {
    ...RULE,
    before: ["hva-1"],
    at: "2026-11-24T00:00:00.000Z",
    urn: "urn:x",
  });
  intent.made("hva-2");
  expect(stored()).toEqual([
    expect.objectContaining({ ...RULE, before: ["hva-1"], made: "hva-2", urn: "urn:x" }),
  ]);
  // This process is alive: nothing is "left", but the id is known to be held by someone.
  expect(journal.scan(TEAM, RULE.field, RULE.search)).toEqual({
    left: [],
    made: new Set(["hva-2"]),
    busy: [],
  });
  journal.confirm(TEAM, RULE.field, "other-*", "hva-2");
  expect(files()).toHaveLength(1);
  journal.confirm(TEAM, RULE.field, RULE.search, "hva-3");
  expect(files()).toHaveLength(1);
  journal.confirm(TEAM, RULE.field, RULE.search, "hva-2");
  expect(folders()).toEqual([]);
});

test("confirmSoon removes the answered intent off the caller's path; confirmed() waits for it; the empty folder goes", async () => {
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:00.000Z" }).made("hva-4");
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:01.000Z" }).made("hva-5");
  journal.confirmSoon(TEAM, RULE.field, RULE.search, "hva-4");
  await journal.confirmed(TEAM, RULE.field, RULE.search);
  expect(stored().map((x) => x.made)).toEqual(["hva-5"]);
  journal.confirmSoon(TEAM, RULE.field, RULE.search, "hva-5");
  await journal.confirmed(TEAM, RULE.field, RULE.search);
  expect(folders()).toEqual([]);
  // The next create of the rule makes the folder again and journals there.
  expect(journal.scanForCreate(TEAM, RULE.field, RULE.search)).toEqual({
    left: [],
    made: new Set(),
    busy: [],
  });
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:02.000Z" }).made("hva-6");
  expect(stored().map((x) => x.made)).toEqual(["hva-6"]);
});

test("a dead process's intent naming an id is removed by confirmSoon too (read once from the folder)", async () => {
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:00.000Z" }).made("hva-8");
  const exited = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
  writeAs(exited);
  const fresh = new IntentJournal(dir); // another process: nothing of its own
  fresh.confirmSoon(TEAM, RULE.field, RULE.search, "hva-8");
  await fresh.confirmed(TEAM, RULE.field, RULE.search);
  expect(folders()).toEqual([]); // the intent, then its emptied folder
});

test("a create with a definite outcome leaves nothing, not even its folder", () => {
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:00.000Z" }).close();
  expect(folders()).toEqual([]);
});

test("an intent of an exited process is left; settling removes it", () => {
  journal.open(TEAM, { ...RULE, before: ["hva-1"], at: "2026-11-24T00:00:00.000Z" }).made("hva-9");
  const exited = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
  writeAs(exited);
  const [left] = journal.left(TEAM, RULE.field, RULE.search);
  expect(left).toMatchObject({ ...RULE, before: ["hva-1"], made: "hva-9" });
  left.settle();
  expect(files()).toEqual([]);
});

test("a live process given the pid of the writer is not taken for it (start time differs)", () => {
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:00.000Z" });
  writeAs(process.ppid, { start: "1" });
  expect(journal.left(TEAM, RULE.field, RULE.search)).toHaveLength(1);
  writeAs(process.ppid, { start: undefined });
  expect(journal.left(TEAM, RULE.field, RULE.search)).toHaveLength(0); // alive, no start to compare
});

test("a zombie (ended, never reaped) counts as dead", async () => {
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:00.000Z" });
  // A child that exits while this process does not reap it: node reaps only on a turn of its loop,
  // and everything below runs synchronously, so the ended child stays a zombie in /proc meanwhile.
  const child = spawn("sh", ["-c", "exit 0"], { stdio: "ignore" });
  const pid = child.pid!;
  let zombie = false;
  for (const end = Date.now() + 2000; !zombie && Date.now() < end;) {
    try {
      zombie = /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      break;
    }
  }
  expect(zombie).toBe(true);
  writeAs(pid);
  expect(journal.left(TEAM, RULE.field, RULE.search)).toHaveLength(1);
  await new Promise((r) => child.once("exit", r));
});

test("each rule's intents are in a folder of their own; a flat file an earlier version left is still found", () => {
  const key = (search: string) => createHash("sha256").update(`name\0${search}`).digest("hex").slice(0, 24);
  journal.open(TEAM, { ...RULE, before: [], at: "2026-11-24T00:00:00.000Z" }).made("hva-5");
  journal.open(TEAM, { field: "name", search: "other-*", before: [], at: "2026-11-24T00:00:00.000Z" });
  expect(readdirSync(join(dir, TEAM)).sort()).toEqual([key(RULE.search), key("other-*")].sort());
  // As the flat layout had it: <rule key>.<pid>.<token>.<seq>.json in the team's folder, by a dead process.
  const old = {
    ...RULE,
    before: ["hva-1"],
    at: "2026-11-23T00:00:00.000Z",
    made: "hva-7",
    pid: 999999,
    token: "old",
  };
  writeFileSync(join(dir, TEAM, `${key(RULE.search)}.999999.old.1.json`), JSON.stringify(old));
  const fresh = new IntentJournal(dir);
  const { left, made } = fresh.scan(TEAM, RULE.field, RULE.search);
  expect(made).toEqual(new Set(["hva-5", "hva-7"]));
  expect(left).toEqual([expect.objectContaining({ before: ["hva-1"], made: "hva-7" })]);
  left[0].settle();
  expect(readdirSync(join(dir, TEAM)).sort()).toEqual([key(RULE.search), key("other-*")].sort());
  expect(fresh.scan(TEAM, "name", "other-*").made).toEqual(new Set());
});
