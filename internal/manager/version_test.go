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

package manager

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestReleaseVersionsAgree checks that every place naming Berth's release
// names the same one: the chart's version and appVersion (the image it
// installs, and the version hack/release.sh stamps by default), the
// CHANGELOG's newest release and its compare link, and the images, tags and
// `go install` versions the README and the docs tell users to run. The
// kustomize install's image is checked by TestConfigDefaultRenders.
func TestReleaseVersionsAgree(t *testing.T) {
	app := chartAppVersion(t)
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(app) {
		t.Fatalf("charts/berth/Chart.yaml's appVersion %q is not vX.Y.Z", app)
	}
	if v := chartVersion(t); "v"+v != app {
		t.Errorf("charts/berth/Chart.yaml: version %s, appVersion %s; a release bumps both", v, app)
	}

	changelog := readRepoFile(t, "CHANGELOG.md")
	heading := regexp.MustCompile(`(?m)^## \[(v[^\]]+)\] - \d{4}-\d{2}-\d{2}$`).FindStringSubmatch(changelog)
	if heading == nil {
		t.Fatal(`CHANGELOG.md has no release section "## [vX.Y.Z] - YYYY-MM-DD"`)
	}
	if heading[1] != app {
		t.Errorf("CHANGELOG.md's newest release is %s, the chart's appVersion %s", heading[1], app)
	}
	if !strings.Contains(changelog, "\n["+app+"]: https://github.com/berth-io/berth/") {
		t.Errorf("CHANGELOG.md has no link for [%s]", app)
	}

	// What users are told to install, in the README and the docs.
	pinned := regexp.MustCompile(`ghcr\.io/berth-io/berth:(v[0-9][^\s"'` + "`" + `,)]*)|cmd/berth@(v[0-9][^\s"'` + "`" + `]*)|image\.tag=(v[0-9][^\s"'` + "`" + `]*)`)
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(repoRoot, "README.md")}, docs...)
	found := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pinned.FindAllStringSubmatch(string(raw), -1) {
			found++
			if v := m[1] + m[2] + m[3]; v != app {
				t.Errorf("%s tells users to run %q; the release is %s", filepath.Base(f), m[0], app)
			}
		}
	}
	if found == 0 {
		t.Error("neither the README nor the docs name the release's image or version; the pattern has drifted from them")
	}
}

// chartVersion is the Helm chart's own version.
func chartVersion(t *testing.T) string {
	t.Helper()
	var chart struct {
		Version string `json:"version"`
	}
	if err := yaml.Unmarshal([]byte(readRepoFile(t, filepath.Join("charts", "berth", "Chart.yaml"))), &chart); err != nil || chart.Version == "" {
		t.Fatalf("charts/berth/Chart.yaml has no version (%v)", err)
	}
	return chart.Version
}

func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
