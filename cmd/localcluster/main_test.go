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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestManifestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.yaml", "a.yaml", "kustomization.yaml", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(dir, "notes.txt")
	tests := []struct {
		name    string
		paths   []string
		want    []string
		wantErr bool
	}{
		{name: "a directory gives its yaml files in name order, without the kustomization", paths: []string{dir}, want: []string{"a.yaml", "b.yaml"}},
		{name: "a file is taken as is", paths: []string{single, dir}, want: []string{"notes.txt", "a.yaml", "b.yaml"}},
		{name: "a missing path is an error", paths: []string{filepath.Join(dir, "nope")}, wantErr: true},
		{name: "nothing", paths: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := manifestFiles(tt.paths)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			var got []string
			for _, f := range files {
				got = append(got, filepath.Base(f))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("files = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPerNode(t *testing.T) {
	tests := []struct {
		in   map[string]int
		want string
	}{
		{in: map[string]int{"kwok-node-1": 2, "kwok-node-0": 3}, want: "0=3 1=2"},
		{in: map[string]int{}, want: ""},
	}
	for _, tt := range tests {
		if got := perNode(tt.in); got != tt.want {
			t.Errorf("perNode(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRunRejectsUnknownCommands(t *testing.T) {
	var out strings.Builder
	if code := run([]string{"down"}, &out, &out); code != 1 || !strings.Contains(out.String(), `unknown command "down"`) {
		t.Errorf("run(down) = %d, %q", code, out.String())
	}
}
