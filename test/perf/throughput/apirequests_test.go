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

package throughput

import (
	"maps"
	"strings"
	"testing"
)

// requestLine returns one apiserver_request_total sample.
func requestLine(verb, resource, subresource, code, value string) string {
	return `apiserver_request_total{code="` + code + `",component="apiserver",dry_run="",group="",resource="` + resource +
		`",scope="resource",subresource="` + subresource + `",verb="` + verb + `",version="v1"} ` + value + "\n"
}

func TestParseAPIRequests(t *testing.T) {
	header := "# HELP apiserver_request_total Counter of apiserver requests.\n# TYPE apiserver_request_total counter\n"
	tests := []struct {
		name    string
		text    string
		want    APIRequests
		wantErr bool
	}{
		{
			name: "kinds by verb, resource, subresource and code",
			text: header + requestLine("POST", "pods", "binding", "201", "7") +
				requestLine("PATCH", "pods", "status", "200", "3") +
				requestLine("PATCH", "pods", "status", "409", "1") +
				requestLine("WATCH", "nodes", "", "200", "2"),
			want: APIRequests{"POST pods/binding 201": 7, "PATCH pods/status 200": 3, "PATCH pods/status 409": 1, "WATCH nodes 200": 2},
		},
		{
			name: "samples that differ only in other labels are summed",
			text: header + requestLine("GET", "pods", "", "200", "2") +
				strings.Replace(requestLine("GET", "pods", "", "200", "5"), `scope="resource"`, `scope="namespace"`, 1),
			want: APIRequests{"GET pods 200": 7},
		},
		{
			name: "a request without a resource",
			text: header + requestLine("GET", "", "", "200", "4"),
			want: APIRequests{"GET (none) 200": 4},
		},
		{
			name: "other metrics only",
			text: "# TYPE etcd_request_total counter\netcd_request_total{operation=\"get\"} 3\n",
			want: APIRequests{},
		},
		{name: "not the text format", text: "apiserver_request_total{code=\"200\" 1\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := parseAPIRequests([]byte(tt.text))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseAPIRequests() error = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && !maps.Equal(got, tt.want) {
				t.Errorf("parseAPIRequests() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseOpenRequests(t *testing.T) {
	text := "# TYPE apiserver_longrunning_requests gauge\n" +
		`apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 3` + "\n" +
		`apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 1` + "\n" +
		`apiserver_longrunning_requests{component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="WATCH",version="v1"} 0` + "\n"
	_, open, err := parseAPIRequests([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if want := (APIRequests{"WATCH pods": 4}); !maps.Equal(open, want) {
		t.Errorf("parseAPIRequests() open = %v, want %v", open, want)
	}
}

func TestAPIRequestsSince(t *testing.T) {
	before := APIRequests{"POST pods/binding 201": 10, "WATCH nodes 200": 2}
	after := APIRequests{"POST pods/binding 201": 30, "WATCH nodes 200": 2, "POST events 201": 5}
	want := APIRequests{"POST pods/binding 201": 20, "POST events 201": 5}
	if got := after.since(before); !maps.Equal(got, want) {
		t.Errorf("since() = %v, want %v", got, want)
	}
}

func TestAPIRequestsTable(t *testing.T) {
	withRequests := func(r Result, round int, req APIRequests) Result {
		r.Round, r.APIRequests = round, req
		return r
	}
	// SchedulingBasic(10, 20): 20 pods per run.
	results := []Result{
		withRequests(result("berth", 100, 1, 100), 1, APIRequests{"POST pods/binding 201": 20, "POST events 201": 20}),
		withRequests(result("berth-base", 100, 1, 100), 1, APIRequests{"POST pods/binding 201": 20, "PATCH pods/status 200": 10}),
		withRequests(result("berth", 100, 1, 100), 2, APIRequests{"POST pods/binding 201": 20, "POST events 201": 40}),
		withRequests(result("berth-base", 100, 1, 100), 2, APIRequests{"POST pods/binding 201": 20, "GET nodes 200": 0.1}),
		result("null-binder", 100, 1, 100),
	}
	got := apiRequestsTable(results)
	for _, want := range []string{
		"| SchedulingBasic: API requests per pod | berth | berth-base |",
		"| POST pods/binding 201 | 1.000 | 1.000 |",
		// Rounds of 1.0 and 2.0 per pod: their median.
		"| POST events 201 | 1.500 | 0.000 |",
		// One round of 0.5 and one without: their median.
		"| PATCH pods/status 200 | 0.000 | 0.250 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("apiRequestsTable() lacks %q:\n%s", want, got)
		}
	}
	// 0.1 requests in 20 pods is below the table's threshold; the null
	// binder counted nothing, so it has no column.
	for _, unwanted := range []string{"GET nodes", "null-binder"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("apiRequestsTable() has %q:\n%s", unwanted, got)
		}
	}
	if got := apiRequestsTable([]Result{result("berth", 100, 1, 100)}); got != "" {
		t.Errorf("apiRequestsTable() without counts = %q, want nothing", got)
	}
}
