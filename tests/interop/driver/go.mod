// The interop driver: the engine's own gRPC stubs (sdk/v3's proto/go) and grpc-go at the versions the
// Pulumi CLI that CI builds (.ci/pulumi-cli) pins.
module secops.local/interop-driver

go 1.26.6

require (
	github.com/pulumi/pulumi/sdk/v3 v3.274.1
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)
