/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package imagebuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// repoRoot is the build context of Berth's Dockerfile, relative to this
// package.
const repoRoot = "../.."

// hostArgs builds for the host, so that the tests can run the binary.
func hostArgs() map[string]string {
	return map[string]string{"TARGETOS": runtime.GOOS, "TARGETARCH": runtime.GOARCH, "VERSION": "v0.0.0-imagebuild"}
}

// writeDockerfile writes text to a Dockerfile in a new temporary directory.
func writeDockerfile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "Dockerfile")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseBerthDockerfile(t *testing.T) {
	d, err := Parse(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, c := range d.Copies {
		sources = append(sources, c.Sources...)
	}
	argv, err := d.Argv("/tmp/berth", "--leader-elect=false")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"ENTRYPOINT", d.Entrypoint(), []string{"/berth", "manager"}},
		{"USER", d.User(), "65532:65532"},
		{"the image's binary", d.BinaryPath(), "/berth"},
		{"go build writes the ENTRYPOINT's binary", d.Build.Output, "/berth"},
		{"Argv", argv, []string{"/tmp/berth", "manager", "--leader-elect=false"}},
		{"CGO_ENABLED=0", slices.Contains(d.Build.Env, "CGO_ENABLED=0"), true},
		{"GOOS from TARGETOS's default", slices.Contains(d.Build.Env, "GOOS=linux"), true},
		{"GOARCH from the host", slices.Contains(d.Build.Env, "GOARCH="+runtime.GOARCH), true},
		{"-trimpath", slices.Contains(d.Build.Args, "-trimpath"), true},
		{"-ldflags", slices.Contains(d.Build.Args, "-s -w -X main.gitVersion= -X main.gitCommit="), true},
		{"go.mod copied", slices.Contains(sources, "go.mod"), true},
		{"go.sum copied", slices.Contains(sources, "go.sum"), true},
		{"internal/ copied", slices.Contains(sources, "internal/"), true},
		{"no bin/, test/ or docs/", slices.ContainsFunc(sources, func(s string) bool {
			return strings.HasPrefix(s, "bin") || strings.HasPrefix(s, "test") || strings.HasPrefix(s, "docs")
		}), false},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, diff)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		text      string
		buildArgs map[string]string
		want      *Dockerfile
		wantErr   string
	}{{
		name: "continuations, comments and ARG substitution",
		text: `ARG GO=1.26
FROM golang:${GO} AS builder
ARG TARGETOS=linux
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
COPY *.go ./
COPY cmd/ cmd/
RUN CGO_ENABLED=0 GOOS=${TARGETOS} \
    # a comment inside a continuation is dropped
    GOARCH=$TARGETARCH \
    go build -trimpath \
      -ldflags "-X main.version=${VERSION}" -o bin/app ./cmd/app

FROM scratch
COPY --from=builder /src/bin/app /app
ENTRYPOINT ["/app", "serve"]
`,
		want: &Dockerfile{
			Args: map[string]string{"TARGETOS": "linux", "TARGETARCH": runtime.GOARCH, "VERSION": "dev"},
			Copies: []Copy{
				{Sources: []string{"go.mod", "go.sum"}, Dest: "./", Workdir: "/src"},
				{Sources: []string{"*.go"}, Dest: "./", Workdir: "/src"},
				{Sources: []string{"cmd/"}, Dest: "cmd/", Workdir: "/src"},
			},
			Build: GoBuild{
				Env:     []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + runtime.GOARCH},
				Args:    []string{"-trimpath", "-ldflags", "-X main.version=dev", "-o", "bin/app", "./cmd/app"},
				Output:  "/src/bin/app",
				Workdir: "/src",
			},
			entrypoint: []string{"/app", "serve"},
			binary:     "/app",
		},
	}, {
		name: "build args win over defaults; a stage ARG takes the global value",
		text: `ARG BASE=1.26
FROM golang:1.26 AS builder
ARG BASE
ARG TARGETOS=linux
ARG VERSION=dev
RUN GOOS=${TARGETOS} go build -ldflags="-X main.v=${VERSION} -X main.base=${BASE}" -o /out/ .
FROM scratch
COPY --from=0 /out /bin/
ENTRYPOINT ["/bin/out"]
`,
		buildArgs: map[string]string{"TARGETOS": "darwin", "VERSION": "v1.2.3"},
		want: &Dockerfile{
			Args: map[string]string{"BASE": "1.26", "TARGETOS": "darwin", "VERSION": "v1.2.3"},
			Build: GoBuild{
				Env:     []string{"GOOS=darwin"},
				Args:    []string{"-ldflags=-X main.v=v1.2.3 -X main.base=1.26", "-o", "/out/", "."},
				Output:  "/out",
				Workdir: "/",
			},
			entrypoint: []string{"/bin/out"},
			binary:     "/bin/out",
		},
	}, {
		name: "COPY --from is not from the context; --chown is ignored",
		text: `FROM golang:1.26 AS builder
COPY --from=tools /usr/bin/tool /usr/bin/tool
COPY --chown=65532:65532 main.go ./
ENV GOFLAGS=-buildvcs=false
RUN go build -ldflags '-X main.v=$NOT' -o=/app .
ENTRYPOINT ["/app"]
`,
		want: &Dockerfile{
			Args:   map[string]string{},
			Copies: []Copy{{Sources: []string{"main.go"}, Dest: "./", Workdir: "/"}},
			Build: GoBuild{
				Env:     []string{"GOFLAGS=-buildvcs=false"},
				Args:    []string{"-ldflags", "-X main.v=$NOT", "-o=/app", "."},
				Output:  "/app",
				Workdir: "/",
			},
			entrypoint: []string{"/app"},
			binary:     "/app",
		},
	}, {
		name: "JSON-form COPY",
		text: `FROM golang:1.26
ARG DIR=pkg
COPY ["${DIR}/", "${DIR}/"]
RUN ["go", "build", "-o", "/app", "."]
ENTRYPOINT ["/app"]
`,
		want: &Dockerfile{
			Args:   map[string]string{"DIR": "pkg"},
			Copies: []Copy{{Sources: []string{"pkg/"}, Dest: "pkg/", Workdir: "/"}},
			Build: GoBuild{
				Args:    []string{"-o", "/app", "."},
				Output:  "/app",
				Workdir: "/",
			},
			entrypoint: []string{"/app"},
			binary:     "/app",
		},
	}, {
		name:    "shell-form ENTRYPOINT",
		text:    "FROM golang:1.26\nRUN go build -o /app .\nENTRYPOINT /app serve\n",
		wantErr: `line 3: ENTRYPOINT: want the exec form, a non-empty JSON array such as ["/berth", "manager"], got "/app serve"`,
	}, {
		name:    "no ENTRYPOINT",
		text:    "FROM golang:1.26\nRUN go build -o /app .\n",
		wantErr: "the final stage has no ENTRYPOINT",
	}, {
		name:    "no go build",
		text:    "FROM golang:1.26\nRUN go mod download\nENTRYPOINT [\"/app\"]\n",
		wantErr: "no RUN with go build",
	}, {
		name:    "go build in a shell list",
		text:    "FROM golang:1.26\nRUN go mod download && go build -o /app .\nENTRYPOINT [\"/app\"]\n",
		wantErr: `line 2: RUN: shell operator "&&" in the go build RUN is not supported`,
	}, {
		name:    "go build without -o",
		text:    "FROM golang:1.26\nRUN go build .\nENTRYPOINT [\"/app\"]\n",
		wantErr: "line 2: RUN: go build has no -o",
	}, {
		name:    "unquoted variable with blanks",
		text:    "FROM golang:1.26\nARG F=\"-s -w\"\nRUN go build -ldflags $F -o /app .\nENTRYPOINT [\"/app\"]\n",
		wantErr: `line 3: RUN: unquoted $F expands to "-s -w", which the shell would split; quote it`,
	}, {
		name:    "ADD",
		text:    "FROM golang:1.26\nADD . .\nRUN go build -o /app .\nENTRYPOINT [\"/app\"]\n",
		wantErr: "line 2: ADD: ADD is not supported; use COPY",
	}, {
		name:    "unterminated quote",
		text:    "FROM golang:1.26\nRUN go build -ldflags \"-s -o /app .\nENTRYPOINT [\"/app\"]\n",
		wantErr: "line 2: RUN: unterminated \"",
	}, {
		name:    "backslash on the last line",
		text:    "FROM golang:1.26\nRUN go build -o /app . \\\n",
		wantErr: "line 2: the last line ends in a backslash",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWithBuildArgs(writeDockerfile(t, tc.text), tc.buildArgs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Dockerfile{})); diff != "" {
				t.Errorf("Parse (-want +got)\n%s", diff)
			}
		})
	}
}

func TestArgvNeedsTheBuiltBinary(t *testing.T) {
	d, err := Parse(writeDockerfile(t, `FROM golang:1.26 AS builder
RUN go build -o /app .
FROM scratch
COPY --from=builder /app /app
ENTRYPOINT ["/bin/sh", "-c"]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := "ENTRYPOINT runs /bin/sh, but the image's go build output is at /app"
	if _, err := d.Argv("/tmp/app"); err == nil || err.Error() != want {
		t.Errorf("Argv error = %v, want %q", err, want)
	}
}

// TestBuildBinarySmallContext builds a tiny module: the COPY lines'
// globs, files and directories land where go build finds them, and a
// package the COPY lines miss fails the build even though the context has it.
func TestBuildBinarySmallContext(t *testing.T) {
	ctxDir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":                "module example.com/hello\n\ngo 1.22\n",
		"main.go":               "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/hello/greet\"\n\t\"example.com/hello/internal/name\"\n)\n\nvar suffix string\n\nfunc main() { fmt.Println(greet.Hello(name.Name) + suffix) }\n",
		"greet/greet.go":        "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello \" + name }\n",
		"internal/name/name.go": "package name\n\n// Name is who is greeted.\nconst Name = \"berth\"\n",
		"notes.txt":             "not copied\n",
	} {
		p := filepath.Join(ctxDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const head = "FROM golang:1.26 AS builder\nARG SUFFIX=!\nWORKDIR /w\nCOPY go.mod .\nCOPY *.go ./\nCOPY greet/ greet/\n"
	const tail = "RUN CGO_ENABLED=0 go build -ldflags \"-X main.suffix=${SUFFIX}\" -o /app .\nFROM scratch\nCOPY --from=builder /app /app\nENTRYPOINT [\"/app\"]\n"
	for _, tc := range []struct {
		name    string
		text    string
		wantErr string
	}{
		{"everything copied", head + "COPY internal /w/internal\n" + tail, ""},
		{"internal/ not copied", head + tail, "example.com/hello/internal/name"},
		{"a source that is not in the context", head + "COPY missing/ missing/\n" + tail, "missing: no such file or directory"},
		{"a destination outside the WORKDIR", head + "COPY internal /internal\n" + tail, "destination /internal is outside the go build's WORKDIR /w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(writeDockerfile(t, tc.text))
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(t.TempDir(), "app")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			err = d.BuildBinary(ctx, ctxDir, bin)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("BuildBinary error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			argv, err := d.Argv(bin)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", bin, err, out)
			}
			if diff := cmp.Diff("hello berth!\n", string(out)); diff != "" {
				t.Errorf("output (-want +got)\n%s", diff)
			}
		})
	}
}

// TestBuildBinaryBerth builds berth from the Dockerfile's context, and from
// a copy of the Dockerfile without its COPY internal/ line, which must fail.
func TestBuildBinaryBerth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds berth (1-3 minutes with a warm build cache)")
	}
	text, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	const internalCopy = "COPY internal/ internal/\n"
	if !strings.Contains(string(text), internalCopy) {
		t.Fatalf("the Dockerfile has no %q line", internalCopy)
	}
	for _, tc := range []struct {
		name    string
		text    string
		wantErr string
	}{
		{"the Dockerfile", string(text), ""},
		{"without COPY internal/", strings.Replace(string(text), internalCopy, "", 1),
			"package github.com/berth-io/berth/internal/manager"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseWithBuildArgs(writeDockerfile(t, tc.text), hostArgs())
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(t.TempDir(), "berth")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			err = d.BuildBinary(ctx, repoRoot, bin)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("BuildBinary error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
			if err != nil {
				t.Fatalf("berth version: %v\n%s", err, out)
			}
			if want := "berth v0.0.0-imagebuild "; !strings.HasPrefix(string(out), want) {
				t.Errorf("berth version printed %q, want it to start with %q", out, want)
			}
			// The image runs berth manager; -h shows that the ENTRYPOINT
			// and a container's args make a valid command line.
			argv, err := d.Argv(bin, "-h")
			if err != nil {
				t.Fatal(err)
			}
			out, err = exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Usage: berth manager") {
				t.Errorf("%s: %v, want the manager's usage; output:\n%s", strings.Join(argv, " "), err, out)
			}
		})
	}
}
