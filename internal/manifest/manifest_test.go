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

package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	type doc struct {
		line  int
		kinds string // the objects' kinds, comma-separated
		list  bool
		err   string
	}
	tests := []struct {
		name string
		file string
		data string
		want []doc
	}{
		{name: "one object", file: "a.yaml", data: "apiVersion: v1\nkind: ConfigMap\n", want: []doc{{line: 1, kinds: "ConfigMap"}}},
		{name: "separators, comments and empty documents", file: "a.yaml",
			data: "# header\n---\napiVersion: v1\nkind: A\n---\n# only a comment\n--- \n\n---\napiVersion: v1\nkind: B\n...\n",
			want: []doc{{line: 3, kinds: "A"}, {line: 10, kinds: "B"}}},
		{name: "a separator with a comment", file: "a.yml", data: "--- # first\napiVersion: v1\nkind: A\n",
			want: []doc{{line: 2, kinds: "A"}}},
		{name: "a List", file: "a.yaml",
			data: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: A}\n- {apiVersion: v1, kind: B}\n",
			want: []doc{{line: 1, kinds: "A,B", list: true}}},
		{name: "a List with a bad item", file: "a.yaml", data: "apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n",
			want: []doc{{line: 1, list: true, err: "item 1 of the List: not a Kubernetes object: no apiVersion"}}},
		{name: "not a mapping", file: "a.yaml", data: "---\n- a\n", want: []doc{{line: 2, err: "a list, not a mapping"}}},
		{name: "a scalar", file: "a.yaml", data: "42\n", want: []doc{{line: 1, err: "a number, not a mapping"}}},
		{name: "no apiVersion", file: "a.yaml", data: "kind: A\n", want: []doc{{line: 1, err: "no apiVersion"}}},
		{name: "bad YAML counts lines from the file's start", file: "a.yaml",
			data: "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: x\n    bad: y\n",
			want: []doc{{line: 1, kinds: "A"}, {line: 4, err: "not valid YAML: yaml: line 8: mapping values are not allowed"}}},
		{name: "duplicate keys", file: "a.yaml", data: "apiVersion: v1\nkind: A\nkind: B\n",
			want: []doc{{line: 1, err: `line 3: key "kind" already set in map`}}},
		{name: "a JSON stream", file: "a.json", data: "{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n\n  {\"apiVersion\": \"v1\",\n \"kind\": \"B\"}",
			want: []doc{{line: 1, kinds: "A"}, {line: 3, kinds: "B"}}},
		{name: "bad JSON", file: "a.json", data: "{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n{\"kind\": ",
			want: []doc{{line: 1, kinds: "A"}, {line: 2, err: "not valid JSON"}}},
		{name: "empty", file: "a.yaml", data: "\n# nothing\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.file, []byte(tc.data))
			if len(got) != len(tc.want) {
				t.Fatalf("got %d documents, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				d := got[i]
				if d.Index != i+1 || d.Count != len(tc.want) || d.Line != w.line || d.File != tc.file || d.List != w.list {
					t.Errorf("document %d: index %d/%d, line %d, file %s, list %v; want %d/%d, line %d, file %s, list %v",
						i, d.Index, d.Count, d.Line, d.File, d.List, i+1, len(tc.want), w.line, tc.file, w.list)
				}
				if w.err != "" {
					if d.Err == nil || !strings.Contains(d.Err.Error(), w.err) {
						t.Errorf("document %d: err %v, want one containing %q", i, d.Err, w.err)
					}
					continue
				}
				if d.Err != nil {
					t.Errorf("document %d: %v", i, d.Err)
					continue
				}
				var kinds []string
				for _, o := range d.Objects {
					kinds = append(kinds, o.GetKind())
				}
				if strings.Join(kinds, ",") != w.kinds {
					t.Errorf("document %d: kinds %v, want %s", i, kinds, w.kinds)
				}
			}
		})
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obj := func(kind string) string { return "apiVersion: v1\nkind: " + kind + "\n" }
	write("b.yaml", obj("B"))
	write("a/c.yml", obj("C"))
	write("a/d.JSON", `{"apiVersion": "v1", "kind": "D"}`)
	write("a/notes.txt", obj("Ignored"))
	write(".git/e.yaml", obj("Hidden"))

	set, err := NewReader(WithStdin(strings.NewReader(obj("S")))).Read([]string{dir, "-", filepath.Join(dir, "b.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range set.Documents {
		kinds = append(kinds, d.Objects[0].GetKind())
	}
	if got, want := strings.Join(kinds, ","), "C,D,B,S,B"; got != want {
		t.Errorf("kinds %s, want %s (lexical order, hidden directories and other extensions skipped)", got, want)
	}
	if len(set.Files) != 5 || set.Files[3] != Stdin {
		t.Errorf("files %v, want 5 with stdin fourth", set.Files)
	}

	_, err = NewReader().Read([]string{filepath.Join(dir, "missing.yaml")})
	var pe *PathError
	if !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err %v, want a *PathError wrapping os.ErrNotExist", err)
	}

	set, err = NewReader(WithExtensions(".txt")).Read([]string{dir})
	if err != nil || len(set.Documents) != 1 || set.Documents[0].Objects[0].GetKind() != "Ignored" {
		t.Errorf("WithExtensions(.txt): %v, %+v", err, set)
	}
}
