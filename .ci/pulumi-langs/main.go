// Command secops-gen-sdk writes the SDK of one language from a schema file with Pulumi's own code
// generators (github.com/pulumi/pulumi/pkg/v3/codegen/{python,go,nodejs}, at the release go.mod pins),
// as `pulumi package gen-sdk <schema> --language <lang> --out <out>` does with a language host:
//
//	secops-gen-sdk <schema.json> <python|go|nodejs> <out>   (writes <out>/<lang>, removed first)
//
// Why not `pulumi package gen-sdk` itself: from 3.274 on it asks the language host
// (pulumi-language-python, -go, -nodejs) to generate, and the Go module proxy refuses those modules at
// every version (see build.sh). This command makes the same calls, in the same order, as the CLI and
// the host between them: the CLI binds the schema file (dangling references allowed) and sends the
// bound package as JSON to the host; the host binds that again and calls the language's
// GeneratePackage with its own name as the tool ("pulumi-language-<lang>", which the generated files
// name in their header); the files are written under <out>/<lang>. No overlays, no local
// dependencies, `--local` off: what `pulumi package gen-sdk` does without those flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noOtherPackages is the loader for a schema that refers to no other package (this provider's):
// loading any other package is an error naming it.
type noOtherPackages struct{}

func (noOtherPackages) refuse(name string) error {
	return fmt.Errorf("the schema refers to package %q: secops-gen-sdk loads no other package", name)
}

func (l noOtherPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.refuse(pkg)
}

func (l noOtherPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.refuse(d.Name)
}

func (l noOtherPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.refuse(pkg)
}

func (l noOtherPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.refuse(d.Name)
}

// bind binds a schema spec as the CLI and the language hosts do: dangling references allowed, error
// diagnostics fatal.
func bind(spec schema.PackageSpec) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, noOtherPackages{}, schema.ValidationOptions{
		AllowDanglingReferences: true,
	})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, errors.Join(diags.Errs()...)
	}
	return pkg, nil
}

func generate(schemaPath, language, out string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	// The CLI's side: bind the file, send the bound package as JSON.
	cliPkg, err := bind(spec)
	if err != nil {
		return err
	}
	sent, err := cliPkg.MarshalJSON()
	if err != nil {
		return err
	}
	// The host's side: bind what was sent, generate.
	var hostSpec schema.PackageSpec
	if err := json.Unmarshal(sent, &hostSpec); err != nil {
		return err
	}
	pkg, err := bind(hostSpec)
	if err != nil {
		return err
	}
	tool := "pulumi-language-" + language
	var files map[string][]byte
	switch language {
	case "python":
		files, err = pythongen.GeneratePackage(tool, pkg, nil, noOtherPackages{})
	case "go":
		files, err = gogen.GeneratePackage(tool, pkg, nil)
	case "nodejs":
		files, err = nodejsgen.GeneratePackage(tool, pkg, nil, nil, false, noOtherPackages{})
	default:
		return fmt.Errorf("unknown language %q (python, go or nodejs)", language)
	}
	if err != nil {
		return err
	}
	dir := filepath.Join(out, language)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "SDK has been written to %s\n", dir)
	return nil
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: secops-gen-sdk <schema.json> <python|go|nodejs> <out>")
		os.Exit(2)
	}
	if err := generate(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
