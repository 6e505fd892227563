//go:build tools

// Package tools pins the language host build.sh builds, so `go mod tidy` keeps its dependencies.
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
