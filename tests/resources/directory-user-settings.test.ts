/** DirectoryUserSettings implementation, by direct calls, against the simulator. */
import { DirectoryUserSettings } from "pulumi-secops";
import { provider as implementation } from "pulumi-secops/resources/directory-user-settings";
import { createSimulator, type Simulator } from "secops-sim";
import { captureWarnings, configureRequest, asHost } from "../helpers/provider";
import { allRegistered, installMocks } from "../helpers/mocks";
const provider = asHost(implementation);

type Outs = Record<string, unknown> & { previousValues: Record<string, boolean | null> };

let sim: Simulator;
let warnings: string[];
const userState = async (id: string) => (await sim.control.state()).users.find((u) => u.id === id)!;
const flagsOf = (u: Record<string, unknown>) => ({
  needsChatOpsWelcome: u.needsChatOpsWelcome,
  chatOpsOnboardingUser: u.chatOpsOnboardingUser,
  credentialsExposed: u.credentialsExposed,
});

beforeEach(() => {
  warnings = captureWarnings();
});
afterEach(() => jest.restoreAllMocks());

describe("assumed GET route available", () => {
  beforeAll(async () => {
    sim = await createSimulator({ seed: 21 });
    await provider.configure(
      configureRequest({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url }),
    );
  });
  afterAll(() => sim.close());

  test("check: no network, named failures", async () => {
    expect((await provider.check({}, { directoryUserId: "" })).failures).toEqual([
      { property: "directoryUserId", reason: "directoryUserId must be a non-empty string" },
      {
        property: "needsChatOpsWelcome",
        reason: "set at least one of needsChatOpsWelcome, chatOpsOnboardingUser, credentialsExposed",
      },
    ]);
    expect(
      (await provider.check({}, { directoryUserId: "u", credentialsExposed: "no", restoreOnDelete: 1 }))
        .failures,
    ).toEqual([
      { property: "credentialsExposed", reason: "credentialsExposed must be a boolean" },
      { property: "restoreOnDelete", reason: "restoreOnDelete must be a boolean" },
    ]);
    expect(await provider.check({}, { directoryUserId: "u", credentialsExposed: false })).toEqual({
      inputs: { directoryUserId: "u", credentialsExposed: false, restoreOnDelete: false },
    });
  });

  test("lifecycle: only managed flags are written; unmanaged flags untouched; removing a flag makes no call", async () => {
    const id = "du-team-acme-010";
    const before = flagsOf(await userState(id));
    const inputs = {
      directoryUserId: id,
      needsChatOpsWelcome: !before.needsChatOpsWelcome,
      restoreOnDelete: false,
    };
    await sim.control.resetStats();
    const { outs } = await provider.create(inputs);
    const after = await userState(id);
    expect(flagsOf(after)).toEqual({ ...before, needsChatOpsWelcome: !before.needsChatOpsWelcome });
    expect(outs).toMatchObject({
      directoryUserId: id,
      email: after.email,
      displayName: after.displayName,
      teamId: "team-acme",
    });
    expect((outs as Outs).previousValues).toEqual({ needsChatOpsWelcome: before.needsChatOpsWelcome });
    expect((await sim.control.stats()).requests).toEqual({
      "GET /v1/directory/{id}": 1,
      "PATCH /v1/directory/{id}": 1,
    });

    await sim.control.resetStats();
    expect(await provider.diff(id, outs, inputs)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    // The first operation on an existing object, its diff, looks up the key's team once (it must be
    // the user's); nothing else is asked.
    expect((await sim.control.stats()).requests).toEqual({ "GET /v1/auth/me": 1 });
    const more = { ...inputs, credentialsExposed: !before.credentialsExposed };
    expect((await provider.diff(id, outs, more)).changes).toBe(true);
    await sim.control.resetStats();
    const up = await provider.update(id, outs as never, more);
    expect((up.outs as Outs).previousValues).toEqual({
      needsChatOpsWelcome: before.needsChatOpsWelcome,
      credentialsExposed: before.credentialsExposed,
    });
    expect((await sim.control.stats()).requests).toEqual({ "PATCH /v1/directory/{id}": 1 });

    // Stop managing credentialsExposed: state changes, the API is not called, the value stays.
    await sim.control.resetStats();
    expect((await provider.diff(id, up.outs, inputs)).changes).toBe(true);
    const dropped = await provider.update(id, up.outs as never, inputs);
    expect((dropped.outs as Outs).previousValues).toEqual({
      needsChatOpsWelcome: before.needsChatOpsWelcome,
    });
    expect((await sim.control.stats()).requests).toEqual({});
    expect((await userState(id)).credentialsExposed).toBe(!before.credentialsExposed);
    expect(await provider.diff(id, dropped.outs, inputs)).toMatchObject({ changes: false });

    // Delete without restoreOnDelete: no API call, the user keeps its values.
    await provider.delete(id, dropped.outs as never);
    expect((await sim.control.stats()).requests).toEqual({});
  });

  test("flag flipped out of band: refresh shows it, up restores it", async () => {
    const id = "du-team-acme-011";
    const inputs = { directoryUserId: id, chatOpsOnboardingUser: true, restoreOnDelete: false };
    const { outs } = await provider.create(inputs);
    await sim.control.patchUser(id, { chatOpsOnboardingUser: false });
    const refreshed = await provider.read(id, outs as never);
    expect(refreshed.props).toMatchObject({ chatOpsOnboardingUser: false });
    expect((await provider.diff(id, refreshed.props, inputs)).changes).toBe(true);
    await provider.update(id, refreshed.props as never, inputs);
    expect((await userState(id)).chatOpsOnboardingUser).toBe(true);
  });

  test("restoreOnDelete round trip", async () => {
    const id = "du-team-acme-012";
    const before = flagsOf(await userState(id));
    const inputs = {
      directoryUserId: id,
      needsChatOpsWelcome: !before.needsChatOpsWelcome,
      credentialsExposed: !before.credentialsExposed,
      restoreOnDelete: true,
    };
    const { outs } = await provider.create(inputs);
    expect(flagsOf(await userState(id))).not.toEqual(before);
    await provider.delete(id, outs as never);
    expect(flagsOf(await userState(id))).toEqual(before);
  });

  test("replace: delete-before-replace restores the old user before the new one is touched", async () => {
    const [oldId, newId] = ["du-team-acme-013", "du-team-acme-014"];
    const oldBefore = flagsOf(await userState(oldId));
    const newBefore = flagsOf(await userState(newId));
    const inputs = {
      directoryUserId: oldId,
      credentialsExposed: !oldBefore.credentialsExposed,
      restoreOnDelete: true,
    };
    const { outs } = await provider.create(inputs);
    const next = { ...inputs, directoryUserId: newId };
    expect(await provider.diff(oldId, outs, next)).toEqual({
      changes: true,
      replaces: ["directoryUserId"],
      deleteBeforeReplace: true,
    });
    // The engine runs delete (old) then create (new) for deleteBeforeReplace.
    await provider.delete(oldId, outs as never);
    expect(flagsOf(await userState(oldId))).toEqual(oldBefore);
    expect(flagsOf(await userState(newId))).toEqual(newBefore);
    await provider.create(next);
    expect((await userState(newId)).credentialsExposed).toBe(!oldBefore.credentialsExposed);
  });

  test("user deleted: read drops it; delete with restore treats 404 as done", async () => {
    const id = "du-team-acme-015";
    const { outs } = await provider.create({
      directoryUserId: id,
      needsChatOpsWelcome: true,
      restoreOnDelete: true,
    });
    await sim.control.deleteUser(id);
    expect(await provider.read(id, outs as never)).toEqual({});
    await expect(provider.delete(id, outs as never)).resolves.toBeUndefined();
  });

  test("a VIEWER key: the error names the role and the roles that may write", async () => {
    await provider.configure(
      configureRequest({ "secops:apiKey": sim.apiKeys.viewer, "secops:baseUrl": sim.url }),
    );
    await expect(
      provider.create({
        directoryUserId: "du-team-acme-016",
        credentialsExposed: true,
        restoreOnDelete: false,
      }),
    ).rejects.toMatchObject({
      code: "SECOPS_FORBIDDEN",
      message:
        "PATCH /v1/directory/du-team-acme-016 failed (403): Forbidden resource: role VIEWER may not PATCH /v1/directory/du-team-acme-016. This API key's role is VIEWER; writes need ADMIN or ANALYST (an assumption; see docs/assumptions.md in the pulumi-secops package)",
    });
    await provider.configure(
      configureRequest({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url }),
    );
  });
});

describe("strict-spec: no GET route", () => {
  beforeAll(async () => {
    sim = await createSimulator({ seed: 22, strictSpec: true });
    await provider.configure(
      configureRequest({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url }),
    );
  });
  afterAll(() => sim.close());

  test("creation works; read keeps state and warns once", async () => {
    const id = "du-team-acme-020";
    const { outs } = await provider.create({
      directoryUserId: id,
      credentialsExposed: true,
      restoreOnDelete: false,
    });
    expect(outs).toMatchObject({ credentialsExposed: true, previousValues: { credentialsExposed: null } });
    expect(await provider.read(id, outs as never)).toEqual({ id, props: outs });
    await provider.read(id, outs as never);
    expect(warnings).toEqual([
      "secops: the API offers no route to read directory users; state was kept as it is and drift detection is unavailable for DirectoryUserSettings",
    ]);
  });

  test("restoreOnDelete fails at create, before any write, saying why", async () => {
    await sim.control.resetStats();
    await expect(
      provider.create({
        directoryUserId: "du-team-acme-021",
        credentialsExposed: true,
        restoreOnDelete: true,
      }),
    ).rejects.toMatchObject({
      code: "SECOPS_UNSUPPORTED",
      message: expect.stringContaining("this API offers no way to read a directory user"),
    });
    expect((await sim.control.stats()).writes).toBe(0);
  });
});

test("setMocks program: type token, inputs, thin shim", async () => {
  const seen = await installMocks();
  const args = { directoryUserId: "du-1", needsChatOpsWelcome: false };
  const r = new DirectoryUserSettings("ada", args);
  await allRegistered(r);
  // The caller's args are left as they were (the class spreads them; Pulumi adds __provider).
  expect(args).toEqual({ directoryUserId: "du-1", needsChatOpsWelcome: false });
  expect(seen[0].type).toBe("pulumi-nodejs:dynamic/secops:DirectoryUserSettings");
  expect(seen[0].inputs).toMatchObject({ directoryUserId: "du-1", needsChatOpsWelcome: false });
  expect(seen[0].inputs).not.toHaveProperty("credentialsExposed");
  const shim = seen[0].inputs.__provider as string;
  expect(shim.length).toBeLessThanOrEqual(2048);
  expect(shim).toContain('"pulumi-secops/resources/directory-user-settings"');
});
