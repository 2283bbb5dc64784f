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

// Package manifest reads Kubernetes objects from multi-document YAML and
// JSON files, directories and stdin, remembering where each was read.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// Document is one non-empty document of a file.
type Document struct {
	// File is the path it was read from; Stdin for standard input.
	File string
	// Index is the document's 1-based position among the file's non-empty documents.
	Index int
	// Count is how many non-empty documents the file holds.
	Count int
	// Line is the line of the file where the document starts.
	Line int
	// Objects holds the document's object, or the items of a List.
	Objects []*unstructured.Unstructured
	// List reports that the document is a List and Objects its items.
	List bool
	// Err says why the document is not a Kubernetes object; Objects is then empty.
	Err error
}

// PathError is a path that cannot be read: it does not exist, or is not a
// file, a directory or stdin.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("reading %s: %v", e.Path, e.Err) }

func (e *PathError) Unwrap() error { return e.Err }

// Reader reads documents from paths.
type Reader struct {
	stdin io.Reader
	exts  []string
}

// Option configures a Reader.
type Option func(*Reader)

// WithStdin sets what the path "-" reads; by default os.Stdin.
func WithStdin(r io.Reader) Option { return func(rd *Reader) { rd.stdin = r } }

// WithExtensions sets the extensions of the files read from directories;
// by default .yaml, .yml and .json.
func WithExtensions(exts ...string) Option { return func(rd *Reader) { rd.exts = exts } }

// NewReader returns a Reader.
func NewReader(opts ...Option) *Reader {
	r := &Reader{stdin: os.Stdin, exts: []string{".yaml", ".yml", ".json"}}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Set is what Read read.
type Set struct {
	// Files lists the files read, in order; Stdin for standard input.
	Files []string
	// Documents lists their non-empty documents, in order.
	Documents []Document
}

// Read returns the documents of every path, in order: a file, a directory
// (its files with the Reader's extensions, recursively, in lexical order,
// skipping hidden directories), or Stdin. A path that cannot be read is a
// *PathError; a document that does not parse is returned with Err set.
func (r *Reader) Read(paths []string) (*Set, error) {
	set := &Set{}
	for _, p := range paths {
		if p == Stdin {
			data, err := io.ReadAll(r.stdin)
			if err != nil {
				return nil, &PathError{Path: "stdin", Err: err}
			}
			set.Files = append(set.Files, Stdin)
			set.Documents = append(set.Documents, Parse(Stdin, data)...)
			continue
		}
		files, err := r.files(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, &PathError{Path: f, Err: err}
			}
			set.Files = append(set.Files, f)
			set.Documents = append(set.Documents, Parse(f, data)...)
		}
	}
	return set, nil
}

// files lists the files a path names.
func (r *Reader) files(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, &PathError{Path: path, Err: err}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &PathError{Path: p, Err: err}
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range r.exts {
			if strings.EqualFold(filepath.Ext(p), ext) {
				files = append(files, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		var pe *PathError
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, &PathError{Path: path, Err: err}
	}
	return files, nil
}

// Parse splits data, read from file, into its non-empty documents: JSON
// values when file ends in .json, else YAML documents separated by "---".
func Parse(file string, data []byte) []Document {
	var docs []Document
	if strings.EqualFold(filepath.Ext(file), ".json") {
		docs = parseJSON(file, data)
	} else {
		docs = parseYAML(file, data)
	}
	for i := range docs {
		docs[i].Index, docs[i].Count = i+1, len(docs)
	}
	return docs
}

// isSeparator reports whether a line separates YAML documents: "---",
// alone or followed by a space.
func isSeparator(line string) bool {
	rest, ok := strings.CutPrefix(line, "---")
	return ok && (rest == "" || strings.ContainsRune(" \t\r\n", rune(rest[0])))
}

func parseYAML(file string, data []byte) []Document {
	var docs []Document
	lines := strings.SplitAfter(string(data), "\n")
	start := 0
	flush := func(end int) {
		chunk := strings.Join(lines[start:end], "")
		if d, ok := yamlDocument(file, chunk, start+1); ok {
			docs = append(docs, d)
		}
	}
	for i, l := range lines {
		if isSeparator(l) {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return docs
}

// yamlDocument decodes one YAML document starting at line; an empty one
// (whitespace, comments, null) is no document.
func yamlDocument(file, chunk string, line int) (Document, bool) {
	d := Document{File: file, Line: line}
	j, err := yaml.YAMLToJSONStrict([]byte(chunk))
	if err != nil {
		// The parser counts lines from the document's start; say the file's.
		d.Err = fmt.Errorf("not valid YAML: %s", oneLine(shiftLines(err.Error(), line-1)))
		return d, true
	}
	return decoded(d, j)
}

// oneLine joins a message's lines.
func oneLine(msg string) string { return strings.Join(strings.Fields(msg), " ") }

// shiftLines adds by to every "line N" of a parser's message.
func shiftLines(msg string, by int) string {
	var b strings.Builder
	for {
		i := strings.Index(msg, "line ")
		if i < 0 {
			return b.String() + msg
		}
		b.WriteString(msg[:i+len("line ")])
		msg = msg[i+len("line "):]
		end := 0
		for end < len(msg) && msg[end] >= '0' && msg[end] <= '9' {
			end++
		}
		if n, err := strconv.Atoi(msg[:end]); err == nil {
			b.WriteString(strconv.Itoa(n + by))
			msg = msg[end:]
		}
	}
}

func parseJSON(file string, data []byte) []Document {
	var docs []Document
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		offset := dec.InputOffset()
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs
		}
		rest := data[offset:]
		skipped := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
		line := 1 + bytes.Count(data[:int(offset)+skipped], []byte("\n"))
		if err != nil {
			// The decoder cannot go on after a syntax error.
			return append(docs, Document{File: file, Line: line, Err: fmt.Errorf("not valid JSON: %w", err)})
		}
		if d, ok := decoded(Document{File: file, Line: line}, raw); ok {
			docs = append(docs, d)
		}
	}
}

// decoded fills d with the object of a document's JSON; a null document is
// no document.
func decoded(d Document, j []byte) (Document, bool) {
	var v any
	if err := utiljson.Unmarshal(j, &v); err != nil {
		d.Err = fmt.Errorf("not valid JSON: %w", err)
		return d, true
	}
	if v == nil {
		return d, false
	}
	obj, err := object(v)
	if err != nil {
		d.Err = err
		return d, true
	}
	if !obj.IsList() {
		d.Objects = []*unstructured.Unstructured{obj}
		return d, true
	}
	d.List = true
	items, _ := obj.Object["items"].([]any)
	for i, it := range items {
		o, err := object(it)
		if err != nil {
			d.Objects, d.Err = nil, fmt.Errorf("item %d of the %s: %w", i+1, obj.GetKind(), err)
			return d, true
		}
		d.Objects = append(d.Objects, o)
	}
	return d, true
}

// object checks that v is a Kubernetes object: a mapping with an apiVersion and a kind.
func object(v any) (*unstructured.Unstructured, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a Kubernetes object: a %s, not a mapping", kindOf(v))
	}
	for _, key := range []string{"apiVersion", "kind"} {
		if s, ok := m[key].(string); !ok || s == "" {
			return nil, fmt.Errorf("not a Kubernetes object: no %s", key)
		}
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
