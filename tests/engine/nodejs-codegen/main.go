// Command pulumi-language-nodejs (this folder's build of it) is the part of Pulumi's Node.js language
// host that `pulumi import` needs in a `runtime: nodejs` project, for the engine tests of what the
// printed code is (tests/engine/cli-import-code.test.ts). Pulumi's own host cannot be built here: the
// Go module proxy refuses sdk/nodejs/cmd/pulumi-language-nodejs at every version (.ci/pulumi-cli/build.sh).
//
// It serves the LanguageRuntime calls an import makes, as the real host answers them:
//   - GetPluginInfo, GetRequiredPackages and GetRequiredPlugins: the version, and no packages (the
//     engine then finds the secops plugin by the resource type, as it does for any provider);
//   - GenerateProgram: the code generation itself, which is Pulumi's own at the release the CLI is
//     built from (github.com/pulumi/pulumi/pkg/v3/codegen/nodejs.GenerateProgram), the body of the
//     real host's GenerateProgram: parse the PCL files, bind them with the engine's schema loader
//     (non-strict unless asked), generate.
//
// Every other call is unimplemented: running a program stays the Automation API's (docs/engine.md).
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is what GetPluginInfo answers: the release of the code generator.
const version = "3.274.1"

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
}

func (host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (host) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

// GenerateProgram is the real host's (pulumi-language-nodejs, sdk/nodejs/cmd/pulumi-language-nodejs).
func (host) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	parser := syntax.NewParser()
	for path, contents := range req.Source {
		if err := parser.ParseFile(strings.NewReader(contents), path); err != nil {
			return nil, err
		}
		if parser.Diagnostics.HasErrors() {
			return nil, parser.Diagnostics
		}
	}
	bindOptions := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.Strict {
		bindOptions = append(bindOptions, pcl.NonStrictBindOptions()...)
	}
	program, diags, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), bindOptions...)
	if err != nil {
		return nil, err
	}
	rpcDiagnostics := plugin.HclDiagnosticsToRPCDiagnostics(diags)
	if diags.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: rpcDiagnostics}, nil
	}
	if program == nil {
		return nil, fmt.Errorf("internal error program was nil")
	}
	files, diags, err := codegen.GenerateProgram(program)
	if err != nil {
		return nil, err
	}
	rpcDiagnostics = append(rpcDiagnostics, plugin.HclDiagnosticsToRPCDiagnostics(diags)...)
	return &pulumirpc.GenerateProgramResponse{Source: files, Diagnostics: rpcDiagnostics}, nil
}

func main() {
	// The engine starts a language host as `<host> [flags] <engine address>`; none is needed here.
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host{})
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "could not start the language host: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "the language host stopped: %v\n", err)
		os.Exit(1)
	}
}
