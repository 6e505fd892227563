/** A stand-in for the engine's Log service: the plugin sends warnings there when given its address. */
import { proto } from "../../provider/native/plugin/proto";

export interface FakeEngine {
  address: string;
  logs: Array<{ severity: string; message: string; urn: string }>;
  close(): Promise<void>;
}

export async function startFakeEngine(): Promise<FakeEngine> {
  const { grpc, engine, engineGrpc, empty } = proto();
  const names = Object.fromEntries(Object.entries(engine.LogSeverity).map(([k, v]) => [v, k]));
  const logs: FakeEngine["logs"] = [];
  const server = new grpc.Server();
  server.addService(engineGrpc.EngineService, {
    log: (call: { request: InstanceType<typeof engine.LogRequest> }, cb: (e: null, r: unknown) => void) => {
      logs.push({
        severity: names[call.request.getSeverity()],
        message: call.request.getMessage(),
        urn: call.request.getUrn(),
      });
      cb(null, new empty.Empty());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    logs,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
