/**
 * A `pulumi stack export` document (deployment version 3) made from the offline runner's state (its
 * journal replayed), as the Pulumi CLI writes one for the same stack: the stack resource, one explicit
 * provider resource per provider the resources use (`provider: "<urn>::<id>"`), secrets encrypted
 * (`ciphertext`) or, for the others, shown as `--show-secrets` shows them.
 */
import { writeFileSync } from "node:fs";
import { readState } from "../rig/state";

interface RunnerRecord {
  urn: string;
  type: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  providerUrn?: string;
}

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const encrypted = (v: unknown) => ({
  [SIG]: SECRET,
  ciphertext: `v1:${Buffer.from(JSON.stringify(v)).toString("base64").slice(0, 12)}:opaque`,
});

/** The runner keeps a secret as it is in memory (`value`); `--show-secrets` writes it as `plaintext`. */
function shown(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shown);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  if (o[SIG] === SECRET && "value" in o) return { [SIG]: SECRET, plaintext: JSON.stringify(o.value) };
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, shown(x)]));
}

/** The runner's state at `statePath` as a deployment; `secret` names the properties stored encrypted. */
export function toDeployment(statePath: string, secret: string[] = []): unknown {
  const records = readState(statePath).resources as RunnerRecord[];
  const [first] = records[0]?.urn.split("::") ?? ["urn:pulumi:dev"];
  const project = records[0]?.urn.split("::")[1] ?? "project";
  const stackName = first.replace("urn:pulumi:", "");
  const stack = `urn:pulumi:${stackName}::${project}::pulumi:pulumi:Stack::${project}-${stackName}`;
  const hide = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, secret.includes(k) ? encrypted(v) : shown(v)]));
  const idOf = (urn: string) => `0000-${urn.split("::").pop()}`;
  const providerUrns = [...new Set(records.flatMap((r) => (r.providerUrn ? [r.providerUrn] : [])))];
  const providers = providerUrns.map((urn) => ({
    urn,
    custom: true,
    id: idOf(urn),
    type: "pulumi:providers:secops",
    inputs: { apiKey: encrypted("k"), baseUrl: "http://127.0.0.1", version: "0.1.0" },
    outputs: { apiKey: encrypted("k"), baseUrl: "http://127.0.0.1", version: "0.1.0" },
    parent: stack,
  }));
  const defaultProvider = `urn:pulumi:${stackName}::${project}::pulumi:providers:secops::default_0_1_0`;
  const resources = records.map((r) => ({
    urn: r.urn,
    custom: true,
    id: r.id,
    type: r.type,
    inputs: hide(r.inputs),
    outputs: hide(r.outputs),
    parent: stack,
    provider: r.providerUrn ? `${r.providerUrn}::${idOf(r.providerUrn)}` : `${defaultProvider}::0000-default`,
    propertyDependencies: {},
    additionalSecretOutputs: secret,
  }));
  const usesDefault = records.some((r) => !r.providerUrn);
  const defaults = usesDefault
    ? [
        {
          urn: defaultProvider,
          custom: true,
          id: "0000-default",
          type: "pulumi:providers:secops",
          inputs: {},
          outputs: {},
        },
      ]
    : [];
  return {
    version: 3,
    deployment: {
      manifest: { time: "2026-11-24T00:00:00Z", magic: "0".repeat(64), version: "v3.270.0" },
      secrets_providers: { type: "passphrase", state: { salt: "v1:AAAA:v1:BBBB:CCCC" } },
      resources: [
        { urn: stack, custom: false, type: "pulumi:pulumi:Stack", outputs: {} },
        ...defaults,
        ...providers,
        ...resources,
      ],
    },
  };
}

/** Writes the runner's state at `statePath` as a stack export beside it; returns the export's path. */
export function exported(statePath: string, secret: string[] = []): string {
  const path = `${statePath}.stack.json`;
  writeFileSync(path, JSON.stringify(toDeployment(statePath, secret)));
  return path;
}
