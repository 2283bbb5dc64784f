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

package dashboard

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berth-io/berth/scheduler/metrics"
)

var update = flag.Bool("update", false, "rewrite the chart's dashboard file from the code")

// monitoringDir holds the chart's dashboard and rules files.
var monitoringDir = filepath.Join("..", "..", "charts", "berth", "files", "monitoring")

func TestDashboardFileIsCurrent(t *testing.T) {
	want, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(monitoringDir, "berth-dashboard.json")
	if *update {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go test ./internal/dashboard -update` and commit it", file)
	}
	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			ID int `json:"id"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(got, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d is used twice", p.ID)
		}
		ids[p.ID] = true
	}
}

// TestQueriedMetricsAreExported checks that every Berth or kube-scheduler
// metric the dashboard and the alerting rules read is one Berth exports.
func TestQueriedMetricsAreExported(t *testing.T) {
	exported := exportedNames(t)
	rules, err := os.ReadFile(filepath.Join(monitoringDir, "berth-rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for source, texts := range map[string][]string{"the dashboard": Queries(), "berth-rules.yaml": {string(rules)}} {
		var used int
		for _, text := range texts {
			for _, name := range metricName.FindAllString(text, -1) {
				used++
				if !exported[name] && !exported[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")] {
					t.Errorf("%s reads %s, which Berth does not export", source, name)
				}
			}
		}
		if used == 0 {
			t.Errorf("%s reads no Berth metric", source)
		}
	}
}

// TestDashboardShowsEveryBerthMetric keeps the dashboard complete: each
// metric Berth registers has a panel.
func TestDashboardShowsEveryBerthMetric(t *testing.T) {
	queried := map[string]bool{}
	for _, q := range Queries() {
		for _, name := range metricName.FindAllString(q, -1) {
			queried[strings.TrimSuffix(name, "_bucket")] = true
		}
	}
	var missing []string
	for name := range exportedNames(t) {
		if !queried[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no panel shows %v", missing)
	}
}

// metricName matches the names of Berth's and the scheduler's metrics.
var metricName = regexp.MustCompile(`\b(?:scheduler|berth)_[a-z0-9_]+\b`)

// fqName reads a metric's name from its description.
var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// exportedNames are the names of every metric metrics.New and
// metrics.RegisterBuildInfo register.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	reg := &describer{names: map[string]bool{}}
	if _, err := metrics.New(reg); err != nil {
		t.Fatal(err)
	}
	if err := metrics.RegisterBuildInfo(reg, "test"); err != nil {
		t.Fatal(err)
	}
	if len(reg.names) == 0 {
		t.Fatal("no metric registered")
	}
	return reg.names
}

// describer is a Registerer that records the names of what it is given.
type describer struct{ names map[string]bool }

func (d *describer) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 16)
	go func() {
		c.Describe(ch)
		close(ch)
	}()
	for desc := range ch {
		if m := fqName.FindStringSubmatch(desc.String()); m != nil {
			d.names[m[1]] = true
		}
	}
	return nil
}

func (d *describer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = d.Register(c)
	}
}

func (d *describer) Unregister(prometheus.Collector) bool { return false }
