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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// BuildBinary builds the image's binary to outPath as the builder stage
// would: it copies what the COPY lines name from contextDir into an empty
// directory and runs the Dockerfile's go build there with its environment
// and flags (and GOFLAGS=-mod=readonly, GOWORK=off), so a file the COPY
// lines miss fails the build; the error then holds the build's output.
func (d *Dockerfile) BuildBinary(ctx context.Context, contextDir, outPath string) error {
	out, err := filepath.Abs(outPath)
	if err != nil {
		return fmt.Errorf("output path: %w", err)
	}
	dir, err := os.MkdirTemp("", "imagebuild-")
	if err != nil {
		return fmt.Errorf("build directory: %w", err)
	}
	defer os.RemoveAll(dir)
	for _, c := range d.Copies {
		if err := d.copyInto(dir, contextDir, c); err != nil {
			return fmt.Errorf("COPY %s %s: %w", strings.Join(c.Sources, " "), c.Dest, err)
		}
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"build"}, withOutput(d.Build.Args, out)...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), d.Build.Env...)
	cmd.Env = append(cmd.Env, "GOWORK=off", "GOFLAGS="+strings.TrimSpace(envValue(d.Build.Env, "GOFLAGS")+" -mod=readonly"))
	output, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build %s, in a directory holding only the COPY lines' files: %w\n%s",
			shellJoin(d.Build.Args), err, output)
	}
	return nil
}

// copyInto does one COPY from contextDir into dir, which stands for the
// go build RUN's WORKDIR.
func (d *Dockerfile) copyInto(dir, contextDir string, c Copy) error {
	dest := c.Dest
	if !path.IsAbs(dest) {
		dest = path.Join(c.Workdir, dest)
	}
	rel, ok := within(d.Build.Workdir, path.Clean(dest))
	if !ok {
		return fmt.Errorf("destination %s is outside the go build's WORKDIR %s", dest, d.Build.Workdir)
	}
	target := filepath.Join(dir, filepath.FromSlash(rel))
	var sources []string
	for _, src := range c.Sources {
		if containsDotDot(strings.Split(filepath.ToSlash(src), "/")) {
			return fmt.Errorf("source %s leaves the build context", src)
		}
		name := filepath.Join(contextDir, filepath.FromSlash(src))
		if !strings.ContainsAny(src, `*?[`) {
			sources = append(sources, name)
			continue
		}
		matches, err := filepath.Glob(name)
		if err != nil {
			return fmt.Errorf("source %s: %w", src, err)
		}
		if len(matches) == 0 {
			return fmt.Errorf("source %s matches no files", src)
		}
		sources = append(sources, matches...)
	}
	intoDir := strings.HasSuffix(c.Dest, "/") || path.Base(c.Dest) == "." || len(sources) > 1
	if len(sources) > 1 && !strings.HasSuffix(c.Dest, "/") && path.Base(c.Dest) != "." {
		return errors.New("with more than one source, the destination must end with /")
	}
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		intoDir = true
	}
	for _, src := range sources {
		fi, err := os.Stat(src)
		if err != nil {
			return fmt.Errorf("source: %w", err)
		}
		switch {
		case fi.IsDir():
			err = copyDir(src, target)
		case intoDir:
			err = copyFile(src, filepath.Join(target, filepath.Base(src)), fi.Mode())
		default:
			err = copyFile(src, target, fi.Mode())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// within returns p relative to base, both clean absolute slash paths, and
// whether p is base or below it.
func within(base, p string) (string, bool) {
	if p == base {
		return ".", true
	}
	prefix := strings.TrimSuffix(base, "/") + "/"
	if !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return p[len(prefix):], true
}

func containsDotDot(elems []string) bool {
	for _, e := range elems {
		if e == ".." {
			return true
		}
	}
	return false
}

// copyDir copies the contents of src into dst, as COPY does for a
// directory; symbolic links are copied as links.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(name string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, name)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(target, 0o755)
		case e.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(name)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case e.Type().IsRegular():
			info, err := e.Info()
			if err != nil {
				return err
			}
			return copyFile(name, target, info.Mode())
		}
		return nil
	})
}

func copyFile(src, dst string, mode fs.FileMode) (err error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(out, in)
	return err
}

// withOutput returns go build's args with the -o value replaced by out.
func withOutput(args []string, out string) []string {
	args = append([]string(nil), args...)
	for i := 0; i < len(args); i++ {
		name, separate := flagAt(args, i)
		if name == "" {
			break
		}
		switch {
		case name == "o" && separate:
			args[i+1] = out
		case name == "o":
			args[i] = "-o=" + out
		}
		if separate {
			i++
		}
	}
	return args
}

// shellJoin joins args for a message, quoting those with blanks.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}

// envValue returns the last value of name in env, a list of KEY=value.
func envValue(env []string, name string) string {
	value := ""
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			value = v
		}
	}
	return value
}
