/**
 * The pack as the engine runs it, driven over its Analyzer gRPC service: the package's executable
 * (`policy-pack/pulumi-analyzer-secops`, which serves `pulumi-secops/policy` from dist/) started with
 * an engine address and a working directory that is not its own, the port read from its first stdout
 * line, and a client of Pulumi's own stubs (`@pulumi/pulumi/proto/analyzer_grpc_pb`, on the grpc-js
 * of @pulumi/pulumi's dependencies). Requests carry what the engine sends (Pulumi 3.274.1,
 * `resource/plugin/analyzer_plugin.go`): `Analyze` a resource's inputs, `AnalyzeStack` every
 * resource's outputs, each with its provider's inputs; unknown values as the engine's sentinel
 * strings and secrets as its signature objects.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import type * as analyzerPb from "@pulumi/pulumi/proto/analyzer_pb";
import type * as analyzerGrpc from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import { proto, toStruct } from "../../provider/native/plugin/proto";
import { ROOT, built } from "../helpers/spawn";

/** The executable the engine starts for `--policy-pack <it>`. */
export const PACK = join(ROOT, "policy-pack", "pulumi-analyzer-secops");
/** The engine's value for a string not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A secret value as the engine marshals it (MarshalOptions.KeepSecrets). */
export const secretValue = (value: unknown) => ({
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  value,
});

/** A provider resource as the engine sends it: its URN, type, name and inputs. */
export interface Provider {
  urn: string;
  type: string;
  name: string;
  props: Record<string, unknown>;
}

/** A resource of the stack. */
export interface Res {
  urn: string;
  type: string;
  /** Sent to `Analyze` (its checked inputs). */
  inputs?: Record<string, unknown>;
  /** Sent to `AnalyzeStack` (its outputs). */
  outputs?: Record<string, unknown>;
  provider?: Provider;
}

/** One diagnostic, as the engine receives it. */
export interface Diagnostic {
  policyName: string;
  message: string;
  urn: string;
  enforcementLevel: "advisory" | "mandatory" | "disabled" | "remediate";
  severity: string;
}

const LEVELS = ["advisory", "mandatory", "disabled", "remediate"] as const;
const SEVERITIES = ["unspecified", "low", "medium", "high", "critical"];

type Client = analyzerGrpc.AnalyzerClient;

function stubs() {
  const { grpc } = proto();
  return {
    grpc,
    pb: require("@pulumi/pulumi/proto/analyzer_pb.js") as typeof analyzerPb,
    rpc: require("@pulumi/pulumi/proto/analyzer_grpc_pb.js") as typeof analyzerGrpc,
  };
}

const nameOf = (urn: string) => urn.split("::").pop() ?? "";

function providerMessage(p: Provider | undefined) {
  if (!p) return undefined;
  const { pb } = stubs();
  return new pb.AnalyzerProviderResource()
    .setUrn(p.urn)
    .setType(p.type)
    .setName(p.name)
    .setProperties(toStruct(p.props));
}

/** The diagnostics of an answer; those of `Analyze` are the analyzed resource's (the engine's `r.URN`). */
function diagnostics(res: analyzerPb.AnalyzeResponse, urn = ""): Diagnostic[] {
  return res.getDiagnosticsList().map((d) => ({
    policyName: d.getPolicyname(),
    message: d.getMessage(),
    urn: d.getUrn() || urn,
    enforcementLevel: LEVELS[d.getEnforcementlevel()],
    severity: SEVERITIES[d.getSeverity()] ?? String(d.getSeverity()),
  }));
}

const call = <T>(fn: (cb: (err: Error | null, r: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, r) => (err ? reject(err) : resolve(r))));

/** A running pack and a client of it. */
export interface Pack {
  client: Client;
  /** What the pack printed on stderr so far. */
  stderr(): string;
  /** GetAnalyzerInfo: the pack's name, version and its policies' metadata. */
  info(): Promise<analyzerPb.AnalyzerInfo.AsObject>;
  /** Configure, as the engine sends a `--policy-pack-config` file (each policy's properties). */
  configure(config: Record<string, Record<string, unknown>>): Promise<void>;
  /** `Analyze` of one resource (its inputs). */
  analyze(r: Res): Promise<Diagnostic[]>;
  /** `AnalyzeStack` of every resource (their outputs). */
  analyzeStack(resources: Res[]): Promise<Diagnostic[]>;
  /** What the engine does in a deployment: `Analyze` each resource, then `AnalyzeStack` once. */
  run(resources: Res[]): Promise<Diagnostic[]>;
  close(): Promise<void>;
}

/** Starts the pack as the engine does: `<executable> <engine address>` in the program's folder. */
export async function startPack(): Promise<Pack> {
  built("policy/index.js");
  const { grpc, pb, rpc } = stubs();
  const cwd = mkdtempSync(join(tmpdir(), "secops-policy-"));
  const child: ChildProcess = spawn(PACK, ["127.0.0.1:1"], {
    cwd,
    env: { ...process.env, PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter) },
  });
  let stderr = "";
  child.stderr!.on("data", (c) => (stderr += c));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c) => {
      out += c;
      const line = out.split("\n");
      if (line.length > 1) resolve(Number(line[0]));
    });
    child.on("exit", (code) => reject(new Error(`the pack exited (${code}) before its port: ${stderr}`)));
  });
  const client = new rpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const { empty } = proto();

  const analyze = async (r: Res) => {
    const req = new pb.AnalyzeRequest()
      .setUrn(r.urn)
      .setType(r.type)
      .setName(nameOf(r.urn))
      .setProperties(toStruct(r.inputs ?? {}))
      .setOptions(new pb.AnalyzerResourceOptions());
    const provider = providerMessage(r.provider);
    if (provider) req.setProvider(provider);
    return diagnostics(await call((cb) => client.analyze(req, cb)), r.urn);
  };
  const analyzeStack = async (resources: Res[]) => {
    const req = new pb.AnalyzeStackRequest().setResourcesList(
      resources.map((r) => {
        const m = new pb.AnalyzerResource()
          .setUrn(r.urn)
          .setType(r.type)
          .setName(nameOf(r.urn))
          .setProperties(toStruct(r.outputs ?? {}))
          .setOptions(new pb.AnalyzerResourceOptions());
        const provider = providerMessage(r.provider);
        if (provider) m.setProvider(provider);
        return m;
      }),
    );
    return diagnostics(await call((cb) => client.analyzeStack(req, cb)));
  };
  return {
    client,
    stderr: () => stderr,
    info: async () =>
      (await call<analyzerPb.AnalyzerInfo>((cb) => client.getAnalyzerInfo(new empty.Empty(), cb))).toObject(),
    configure: async (config) => {
      // The engine sends each configured policy with its level resolved (the policy's own unless the
      // file sets one): @pulumi/policy takes a missing level as advisory.
      const infoRes = await call<analyzerPb.AnalyzerInfo>((cb) =>
        client.getAnalyzerInfo(new empty.Empty(), cb),
      );
      const own = new Map(infoRes.getPoliciesList().map((p) => [p.getName(), p.getEnforcementlevel()]));
      const req = new pb.ConfigureAnalyzerRequest();
      for (const [policy, props] of Object.entries(config)) {
        const level = props.enforcementLevel as (typeof LEVELS)[number] | undefined;
        const c = new pb.PolicyConfig()
          .setProperties(toStruct(props))
          .setEnforcementlevel(level ? LEVELS.indexOf(level) : (own.get(policy) ?? 0));
        req.getPolicyconfigMap().set(policy, c);
      }
      await call((cb) => client.configure(req, cb));
    },
    analyze,
    analyzeStack,
    run: async (resources) => {
      const each = [];
      for (const r of resources) each.push(...(await analyze(r)));
      return [...each, ...(await analyzeStack(resources))];
    },
    close: async () => {
      client.close();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
