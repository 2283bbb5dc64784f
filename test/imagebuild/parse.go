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

// Package imagebuild proves a Dockerfile's build context without Docker: it
// reads the builder stage's COPY lines and its `go build` RUN, copies exactly
// those files into an empty directory and runs that `go build` there.
//
// It understands the subset of Dockerfile syntax that Berth's Dockerfile
// uses: FROM, ARG, ENV, WORKDIR, COPY, RUN and ENTRYPOINT, line
// continuations, comments and $VAR / ${VAR} / ${VAR:-word} substitution.
// Anything that would change what the build sees and that it does not model
// (ADD, COPY --parents or --exclude, heredocs, shell operators in the go build
// RUN, go build -C) is an error rather than a silent difference.
package imagebuild

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
)

// Dockerfile is what a build of the image depends on: the builder stage's
// context files and go build command, and the final stage's ENTRYPOINT.
type Dockerfile struct {
	// Args holds the builder stage's ARG values after defaults, build args
	// and the host platform are applied.
	Args map[string]string
	// Copies lists the builder stage's COPY instructions that read from the
	// build context (those without --from), in order.
	Copies []Copy
	// Build is the builder stage's go build command.
	Build GoBuild

	entrypoint []string
	user       string // the final stage's USER
	binary     string // where the final stage puts Build's output
}

// Copy is one COPY instruction that reads from the build context.
type Copy struct {
	// Sources are the context paths or globs, after substitution.
	Sources []string
	// Dest is the destination as written, after substitution.
	Dest string
	// Workdir is the WORKDIR that a relative Dest is resolved against.
	Workdir string
}

// GoBuild is the `go build` command of the builder stage's RUN.
type GoBuild struct {
	// Env holds the stage's ENV values followed by the RUN's assignments
	// before `go` (CGO_ENABLED=0, GOOS=..., GOARCH=...), as KEY=value.
	Env []string
	// Args are the arguments after `go build`: flags, then packages.
	Args []string
	// Output is the value of -o as an absolute path in the image.
	Output string
	// Workdir is the WORKDIR the RUN runs in.
	Workdir string
}

// Entrypoint returns a copy of the final stage's exec-form ENTRYPOINT.
func (d *Dockerfile) Entrypoint() []string {
	return append([]string(nil), d.entrypoint...)
}

// User returns the final stage's USER (uid, uid:gid or a name), or "" for root.
func (d *Dockerfile) User() string { return d.user }

// BinaryPath returns where the image holds the go build's output, or "" when
// the final stage does not copy it from the builder.
func (d *Dockerfile) BinaryPath() string { return d.binary }

// Argv returns the command line a container of the image runs for the given
// container args, with binary (a local build of the image's binary) in
// place of the ENTRYPOINT's program.
func (d *Dockerfile) Argv(binary string, args ...string) ([]string, error) {
	if len(d.entrypoint) == 0 {
		return nil, errors.New("no ENTRYPOINT")
	}
	if d.binary == "" {
		return nil, fmt.Errorf("the final stage does not COPY --from the builder its go build output %s", d.Build.Output)
	}
	if d.entrypoint[0] != d.binary {
		return nil, fmt.Errorf("ENTRYPOINT runs %s, but the image's go build output is at %s", d.entrypoint[0], d.binary)
	}
	argv := append([]string{binary}, d.entrypoint[1:]...)
	return append(argv, args...), nil
}

// Parse reads the Dockerfile at path with no build args; TARGETOS and
// TARGETARCH default to the host's platform when the Dockerfile gives them
// no value.
func Parse(path string) (*Dockerfile, error) {
	return ParseWithBuildArgs(path, nil)
}

// ParseWithBuildArgs reads the Dockerfile at path as `docker build
// --build-arg` would with buildArgs.
func ParseWithBuildArgs(path string, buildArgs map[string]string) (*Dockerfile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read Dockerfile: %w", err)
	}
	d, err := parse(string(data), buildArgs)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return d, nil
}

// instruction is one logical Dockerfile line.
type instruction struct {
	line int    // first physical line, 1-based
	cmd  string // upper case
	rest string // the arguments, unparsed
}

// stage is one FROM and what follows it.
type stage struct {
	name    string
	args    map[string]string // ARG values
	vars    map[string]string // ARG and ENV values for substitution
	env     []string          // ENV values, KEY=value
	workdir string

	copies     []Copy
	build      *GoBuild
	buildLine  int
	fromCopies []fromCopy
	entrypoint []string
	user       string
}

// fromCopy is a COPY --from in some stage.
type fromCopy struct {
	from    string
	sources []string
	dest    string
}

func parse(text string, buildArgs map[string]string) (*Dockerfile, error) {
	insts, err := instructions(text)
	if err != nil {
		return nil, err
	}
	global := map[string]string{}
	var stages []*stage
	for _, in := range insts {
		var cur *stage
		if len(stages) > 0 {
			cur = stages[len(stages)-1]
		}
		if err := apply(in, cur, &stages, global, buildArgs); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", in.line, in.cmd, err)
		}
	}
	if len(stages) == 0 {
		return nil, errors.New("no FROM")
	}
	var builder *stage
	for _, s := range stages {
		if s.build == nil {
			continue
		}
		if builder != nil {
			return nil, fmt.Errorf("line %d: a second RUN with go build; only one is supported", s.buildLine)
		}
		builder = s
	}
	if builder == nil {
		return nil, errors.New("no RUN with go build")
	}
	final := stages[len(stages)-1]
	if len(final.entrypoint) == 0 {
		return nil, errors.New("the final stage has no ENTRYPOINT")
	}
	d := &Dockerfile{
		Args:       map[string]string{},
		Copies:     builder.copies,
		Build:      *builder.build,
		entrypoint: final.entrypoint,
		user:       final.user,
	}
	for k, v := range builder.args {
		d.Args[k] = v
	}
	d.binary = binaryIn(final, builder, stages)
	return d, nil
}

// binaryIn returns where the final stage has the builder's go build output,
// or "" when it does not copy it.
func binaryIn(final, builder *stage, stages []*stage) string {
	if final == builder {
		return builder.build.Output
	}
	index := ""
	for i, s := range stages {
		if s == builder {
			index = strconv.Itoa(i)
		}
	}
	for _, c := range final.fromCopies {
		if c.from != index && (builder.name == "" || !strings.EqualFold(c.from, builder.name)) {
			continue
		}
		for _, src := range c.sources {
			if path.Clean(src) != builder.build.Output {
				continue
			}
			dest := c.dest
			if !path.IsAbs(dest) {
				dest = path.Join(final.workdir, dest)
			}
			if strings.HasSuffix(c.dest, "/") {
				return path.Join(dest, path.Base(builder.build.Output))
			}
			return path.Clean(dest)
		}
	}
	return ""
}

// apply records one instruction; it appends to stages on FROM.
func apply(in instruction, cur *stage, stages *[]*stage, global, buildArgs map[string]string) error {
	if in.cmd == "FROM" {
		return from(in.rest, stages, global)
	}
	if in.cmd == "ARG" {
		if cur == nil {
			return arg(in.rest, global, nil, global, buildArgs)
		}
		return arg(in.rest, cur.vars, cur.args, global, buildArgs)
	}
	if cur == nil {
		return errors.New("before the first FROM")
	}
	switch in.cmd {
	case "ENV":
		return env(in.rest, cur)
	case "WORKDIR":
		w, err := words(in.rest, cur.vars)
		if err != nil {
			return err
		}
		if len(w) != 1 {
			return fmt.Errorf("want one path, got %q", w)
		}
		cur.workdir = path.Join(cur.workdir, w[0])
		if path.IsAbs(w[0]) {
			cur.workdir = path.Clean(w[0])
		}
	case "COPY":
		return copyInst(in.rest, cur)
	case "ADD":
		return errors.New("ADD is not supported; use COPY")
	case "RUN":
		return run(in, cur)
	case "USER":
		w, err := words(in.rest, cur.vars)
		if err != nil {
			return err
		}
		if len(w) != 1 {
			return fmt.Errorf("want one user, got %q", w)
		}
		cur.user = w[0]
	case "ENTRYPOINT":
		var ep []string
		if err := json.Unmarshal([]byte(in.rest), &ep); err != nil || len(ep) == 0 {
			return fmt.Errorf("want the exec form, a non-empty JSON array such as [\"/berth\", \"manager\"], got %q", in.rest)
		}
		cur.entrypoint = ep
	}
	return nil
}

func from(rest string, stages *[]*stage, global map[string]string) error {
	w, err := words(rest, global)
	if err != nil {
		return err
	}
	for len(w) > 0 && strings.HasPrefix(w[0], "--") {
		w = w[1:]
	}
	s := &stage{args: map[string]string{}, vars: map[string]string{}, workdir: "/"}
	switch {
	case len(w) == 3 && strings.EqualFold(w[1], "AS"):
		s.name = w[2]
	case len(w) != 1:
		return fmt.Errorf("want an image and an optional AS name, got %q", w)
	}
	*stages = append(*stages, s)
	return nil
}

// arg declares ARGs: a build arg wins over the default, a stage ARG without
// a default takes the global one, and TARGETOS / TARGETARCH fall back to the
// host's platform as for `docker buildx build --platform` of the host.
// Outside a stage, vars is the global scope and args is nil.
func arg(rest string, vars, args, global, buildArgs map[string]string) error {
	w, err := words(rest, vars)
	if err != nil {
		return err
	}
	if len(w) == 0 {
		return errors.New("no name")
	}
	host := map[string]string{"TARGETOS": runtime.GOOS, "TARGETARCH": runtime.GOARCH}
	for _, decl := range w {
		name, value, hasDefault := strings.Cut(decl, "=")
		if name == "" {
			return fmt.Errorf("no name in %q", decl)
		}
		if v, ok := global[name]; args != nil && !hasDefault && ok {
			value = v
		}
		if v, ok := buildArgs[name]; ok {
			value = v
		} else if value == "" && host[name] != "" {
			value = host[name]
		}
		vars[name] = value
		if args != nil {
			args[name] = value
		}
	}
	return nil
}

func env(rest string, cur *stage) error {
	w, err := words(rest, cur.vars)
	if err != nil {
		return err
	}
	if len(w) == 0 {
		return errors.New("no name")
	}
	if !strings.Contains(w[0], "=") {
		// The legacy form: ENV NAME value with spaces.
		name, value, _ := strings.Cut(strings.TrimSpace(rest), " ")
		v, err := words(strings.TrimSpace(value), cur.vars)
		if err != nil {
			return err
		}
		w = []string{name + "=" + strings.Join(v, " ")}
	}
	for _, kv := range w {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return fmt.Errorf("want NAME=value, got %q", kv)
		}
		cur.vars[name] = value
		cur.env = append(cur.env, kv)
	}
	return nil
}

func copyInst(rest string, cur *stage) error {
	var w []string
	var from string
	var err error
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		rest = strings.TrimSpace(after)
		name, value, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		switch name {
		case "from":
			from = value
		case "chown", "chmod", "link":
		default:
			return fmt.Errorf("flag %s is not supported", flag)
		}
	}
	if strings.HasPrefix(rest, "[") {
		if err = json.Unmarshal([]byte(rest), &w); err != nil {
			return fmt.Errorf("JSON form: %w", err)
		}
		for i := range w {
			if w[i], err = expand(w[i], cur.vars); err != nil {
				return err
			}
		}
	} else {
		if strings.Contains(rest, "<<") {
			return errors.New("heredocs are not supported")
		}
		w, err = words(rest, cur.vars)
	}
	if err != nil {
		return err
	}
	if len(w) < 2 {
		return fmt.Errorf("want sources and a destination, got %q", w)
	}
	srcs, dest := w[:len(w)-1], w[len(w)-1]
	if from != "" {
		if from, err = expand(from, cur.vars); err != nil {
			return err
		}
		cur.fromCopies = append(cur.fromCopies, fromCopy{from: from, sources: srcs, dest: dest})
		return nil
	}
	cur.copies = append(cur.copies, Copy{Sources: srcs, Dest: dest, Workdir: cur.workdir})
	return nil
}

// run records the RUN if it runs go build.
func run(in instruction, cur *stage) error {
	rest := in.rest
	for strings.HasPrefix(rest, "--") {
		_, rest, _ = strings.Cut(rest, " ")
		rest = strings.TrimSpace(rest)
	}
	var toks []token
	if strings.HasPrefix(rest, "[") {
		var w []string
		if err := json.Unmarshal([]byte(rest), &w); err != nil {
			return fmt.Errorf("exec form: %w", err)
		}
		for _, s := range w {
			toks = append(toks, token{text: s})
		}
	} else {
		if !mentionsGoBuild(rest) {
			return nil
		}
		if strings.Contains(rest, "<<") {
			return errors.New("heredocs are not supported")
		}
		var err error
		toks, err = lex(rest, cur.vars, true)
		if err != nil {
			return err
		}
	}
	var env, cmd []string
	for _, t := range toks {
		if t.op {
			return fmt.Errorf("shell operator %q in the go build RUN is not supported; give go build a RUN of its own", t.text)
		}
		if len(cmd) == 0 && isAssignment(t.text) {
			env = append(env, t.text)
			continue
		}
		cmd = append(cmd, t.text)
	}
	if len(cmd) < 2 || cmd[0] != "go" || cmd[1] != "build" {
		return nil
	}
	b := &GoBuild{Env: append(append([]string(nil), cur.env...), env...), Args: cmd[2:], Workdir: cur.workdir}
	out, err := outputFlag(b.Args)
	if err != nil {
		return err
	}
	b.Output = path.Join(cur.workdir, out)
	if path.IsAbs(out) {
		b.Output = path.Clean(out)
	}
	if cur.build != nil {
		return errors.New("a second RUN with go build; only one is supported")
	}
	cur.build, cur.buildLine = b, in.line
	return nil
}

func mentionsGoBuild(s string) bool {
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "go" && f[i+1] == "build" {
			return true
		}
	}
	return false
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && isName(name)
}

// takesValue reports whether the go build flag name takes the next
// argument as its value.
func takesValue(name string) bool {
	switch name {
	case "o", "ldflags", "gcflags", "asmflags", "gccgoflags", "tags", "mod", "modfile", "overlay",
		"pkgdir", "p", "buildmode", "compiler", "installsuffix", "pgo", "toolexec", "covermode", "coverpkg", "C":
		return true
	}
	return false
}

// flagAt reports the name of the flag at args[i] and whether its value is
// the next argument; name is "" for a non-flag.
func flagAt(args []string, i int) (name string, separate bool) {
	a := args[i]
	if !strings.HasPrefix(a, "-") || a == "-" {
		return "", false
	}
	name = strings.TrimLeft(a, "-")
	if n, _, ok := strings.Cut(name, "="); ok {
		return n, false
	}
	return name, takesValue(name)
}

// outputFlag returns the value of go build's -o.
func outputFlag(args []string) (string, error) {
	out := ""
	for i := 0; i < len(args); i++ {
		name, separate := flagAt(args, i)
		if name == "" {
			break
		}
		if name == "C" {
			return "", errors.New("go build -C is not supported")
		}
		value := ""
		if separate {
			if i+1 == len(args) {
				return "", fmt.Errorf("flag %s has no value", args[i])
			}
			value = args[i+1]
			i++
		} else if _, v, ok := strings.Cut(args[i], "="); ok {
			value = v
		}
		if name == "o" {
			out = value
		}
	}
	if out == "" {
		return "", errors.New("go build has no -o")
	}
	return out, nil
}

// instructions splits text into logical lines: comments dropped, lines
// ending in a backslash joined to the next.
func instructions(text string) ([]instruction, error) {
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || trimmed == "" {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(line, `\`) {
			cur.WriteString(strings.TrimSuffix(line, `\`))
			continue
		}
		cur.WriteString(line)
		logical := strings.TrimSpace(cur.String())
		cmd, rest := logical, ""
		if i := strings.IndexAny(logical, " \t"); i >= 0 {
			cmd, rest = logical[:i], strings.TrimSpace(logical[i:])
		}
		out = append(out, instruction{line: start, cmd: strings.ToUpper(cmd), rest: rest})
		cur.Reset()
	}
	if cur.Len() > 0 {
		return nil, fmt.Errorf("line %d: the last line ends in a backslash", start)
	}
	return out, nil
}
