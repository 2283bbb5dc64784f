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

package workloads

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// GoldenDir is the directory, relative to this package, of the golden files.
const GoldenDir = "testdata"

//go:embed testdata
var goldens embed.FS

// Golden returns the reference's Observation of the scenario named name.
func Golden(name string) (Observation, error) {
	raw, err := goldens.ReadFile(GoldenDir + "/" + name + ".json")
	if err != nil {
		return Observation{}, fmt.Errorf("reading the golden of scenario %s: %w", name, err)
	}
	var o Observation
	if err := json.Unmarshal(raw, &o); err != nil {
		return Observation{}, fmt.Errorf("decoding the golden of scenario %s: %w", name, err)
	}
	return o, nil
}

// ReadGolden reads dir/<name>.json, a golden as the files on disk have it.
func ReadGolden(dir, name string) (Observation, error) {
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		return Observation{}, fmt.Errorf("reading the golden of scenario %s: %w", name, err)
	}
	var o Observation
	if err := json.Unmarshal(raw, &o); err != nil {
		return Observation{}, fmt.Errorf("decoding the golden of scenario %s: %w", name, err)
	}
	return o, nil
}

// WriteGolden writes o as dir/<scenario>.json, indented, ending in a newline.
func WriteGolden(dir string, o Observation) error {
	raw, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the observation of %s: %w", o.Scenario, err)
	}
	path := filepath.Join(dir, o.Scenario+".json")
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
