/**
 * One error taxonomy: every HTTP answer is a SecOpsApiError, every transport failure a
 * SecOpsNetworkError (or its timeout and ambiguous-write kinds), every unusable 2xx a
 * SecOpsResponseError, every bad argument a SecOpsInputError; each class owns its codes. That a
 * class refuses another's code, and that the base class is abstract, is checked by `npm run typecheck`
 * (the `@ts-expect-error` lines), not by this run: jest transpiles without type-checking.
 */
import {
  ErrorCodes,
  SecOpsAmbiguousError,
  SecOpsApiError,
  SecOpsClient,
  SecOpsConfigError,
  SecOpsError,
  SecOpsInputError,
  SecOpsNetworkError,
  SecOpsResponseError,
  isSecOpsError,
} from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";

let sim: Simulator;
let strict: Simulator;
const clients: SecOpsClient[] = [];
const clientOf = (s: Simulator, extra: Record<string, unknown> = {}) => {
  const c = new SecOpsClient({ apiKey: s.apiKeys.admin, baseUrl: s.url, maxRetries: 0, ...extra });
  clients.push(c);
  return c;
};
beforeAll(async () => {
  [sim, strict] = await Promise.all([
    createSimulator({ seed: 71 }),
    createSimulator({ seed: 71, strictSpec: true }),
  ]);
});
afterEach(async () => {
  await sim.control.clearFaults();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => Promise.all([sim.close(), strict.close()]));

/** The class name and code of what `p` rejects with. */
async function kind(p: Promise<unknown>): Promise<[string, string]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SecOpsError);
  const e = err as SecOpsError;
  expect(e.name).toBe(e.constructor.name);
  return [e.name, e.code];
}

test("HTTP answers are SecOpsApiError: a status, a gateway's 404, a route this API lacks", async () => {
  await expect(kind(clientOf(sim, { apiKey: "simkey_wrong_000000000000" }).getIdentity())).resolves.toEqual([
    "SecOpsApiError",
    ErrorCodes.AUTH,
  ]);
  await expect(kind(clientOf(sim).getDirectoryUser("du-nobody"))).resolves.toEqual([
    "SecOpsApiError",
    ErrorCodes.NOT_FOUND,
  ]);
  await sim.control.setFaults([{ kind: "html-404", path: "/v1/auth/me" }]);
  await expect(kind(clientOf(sim).getIdentity())).resolves.toEqual([
    "SecOpsApiError",
    ErrorCodes.UNEXPECTED_STATUS,
  ]);
  await expect(kind(clientOf(strict).listHvaRules())).resolves.toEqual([
    "SecOpsApiError",
    ErrorCodes.UNSUPPORTED,
  ]);
});

test("transport failures: SecOpsNetworkError, and SecOpsAmbiguousError for a write that may have landed", async () => {
  const closed = new SecOpsClient({
    apiKey: "simkey_x_000000000000",
    baseUrl: "http://127.0.0.1:9",
    maxRetries: 0,
  });
  clients.push(closed);
  await expect(kind(closed.getIdentity())).resolves.toEqual(["SecOpsNetworkError", ErrorCodes.NETWORK]);
  await sim.control.setFaults([{ kind: "commit-drop", method: "PUT" }]);
  await expect(kind(clientOf(sim).createHvaRule({ field: "name", search: "taxonomy-*" }))).resolves.toEqual([
    "SecOpsAmbiguousError",
    ErrorCodes.AMBIGUOUS,
  ]);
});

test("an unusable 2xx is SecOpsResponseError; bad arguments and options are SecOpsInputError and SecOpsConfigError", async () => {
  await sim.control.setFaults([{ kind: "wrong-shape", path: "/v1/auth/me" }]);
  await expect(kind(clientOf(sim).getIdentity())).resolves.toEqual([
    "SecOpsResponseError",
    ErrorCodes.RESPONSE_INVALID,
  ]);
  await expect(kind(clientOf(sim).getDirectoryUser(""))).resolves.toEqual([
    "SecOpsInputError",
    ErrorCodes.INVALID_INPUT,
  ]);
  expect(() => new SecOpsClient({ apiKey: "k", baseUrl: sim.url })).toThrow(SecOpsConfigError);
});

test("each class fixes its code: the constructors take no code, or only their own", () => {
  expect(new SecOpsNetworkError("m").code).toBe(ErrorCodes.NETWORK);
  expect(new SecOpsAmbiguousError("m").code).toBe(ErrorCodes.AMBIGUOUS);
  expect(new SecOpsInputError("f", "r")).toMatchObject({
    code: ErrorCodes.INVALID_INPUT,
    field: "f",
    message: "f: r",
  });
  expect(new SecOpsConfigError("m", "apiKey")).toMatchObject({ code: ErrorCodes.CONFIG, field: "apiKey" });
  expect(new SecOpsApiError(ErrorCodes.SERVER, "m", { status: 503 }).status).toBe(503);
  expect(new SecOpsResponseError(ErrorCodes.INCOMPLETE, "m").name).toBe("SecOpsResponseError");
  // @ts-expect-error: a transport code is not an API error's.
  void new SecOpsApiError(ErrorCodes.NETWORK, "m");
  // @ts-expect-error: the base class is abstract.
  void new SecOpsError(ErrorCodes.NETWORK, "m");
});

test("an error of another copy of the package is a SecOpsError to isSecOpsError (a brand, not the class)", () => {
  let other: typeof import("pulumi-secops/client") | undefined;
  jest.isolateModules(() => {
    other = require("pulumi-secops/client");
  });
  const foreign = new other!.SecOpsInputError("search", "too long");
  expect(foreign).not.toBeInstanceOf(SecOpsInputError); // two copies: two classes
  expect(isSecOpsError(foreign)).toBe(true);
  expect(isSecOpsError(foreign, ErrorCodes.INVALID_INPUT)).toBe(true);
  expect(isSecOpsError(foreign, ErrorCodes.CONFIG)).toBe(false);
  expect(isSecOpsError(new Error("search: too long"))).toBe(false);
  expect(isSecOpsError({ code: ErrorCodes.INVALID_INPUT, message: "look-alike" })).toBe(false);
  // The brand is not part of what the error shows.
  expect(Object.keys(foreign)).not.toContain("Symbol(pulumi-secops.SecOpsError)");
  expect(JSON.parse(JSON.stringify(foreign))).toMatchObject({
    code: ErrorCodes.INVALID_INPUT,
    field: "search",
  });
});
