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

package explain

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/usage"
)

// UsageSource is one of a profile's plugins that read what nodes use, and
// how reading its source went.
type UsageSource struct {
	// Plugin is the plugin's name.
	Plugin string `json:"plugin"`
	// Source names what it reads: metrics.k8s.io, or Prometheus and its address.
	Source string `json:"source"`
	// ReadAt is when explain read the source; unset when the read failed.
	ReadAt *metav1.Time `json:"readAt,omitempty"`
	// Error is why the source could not be read; the plugin then judges
	// every node without a fresh sample as the scheduler does.
	Error string `json:"error,omitempty"`
}

// NodeUsage is what the plugins reading one source see of one node.
type NodeUsage struct {
	// Source names the source, as UsageSource.Source.
	Source string `json:"source"`
	// Freshness is the node's sample as the store classifies it: fresh,
	// stale or missing.
	Freshness string `json:"freshness"`
	// SampledAt is when the node's newest sample was taken.
	SampledAt *metav1.Time `json:"sampledAt,omitempty"`
	// AgeSeconds is how old the sample was when explain read it.
	AgeSeconds *int64 `json:"ageSeconds,omitempty"`
	// CPUPercent is the sampled CPU use, in percent of allocatable.
	CPUPercent *float64 `json:"cpuPercent,omitempty"`
	// MemoryPercent is the sampled memory use, in percent of allocatable.
	MemoryPercent *float64 `json:"memoryPercent,omitempty"`
	// CPUStdDevPercent is the spread of the CPU use, in percent of allocatable.
	CPUStdDevPercent float64 `json:"cpuStdDevPercent,omitempty"`
	// MemoryStdDevPercent is the spread of the memory use, in percent of allocatable.
	MemoryStdDevPercent float64 `json:"memoryStdDevPercent,omitempty"`
	// Estimates are, per plugin reading the source, what it adds for the
	// pods the sample does not show yet.
	Estimates []UsageEstimate `json:"estimates,omitempty"`
}

// UsageEstimate is what one plugin adds to a node's sample for the pods the
// sample does not show yet, before the pod explained.
type UsageEstimate struct {
	// Plugin is the plugin's name.
	Plugin string `json:"plugin"`
	// Basis is "sample" (the estimates are added to the sample), "pods"
	// (no fresh sample: the estimates of all the node's pods are its use)
	// or "none" (no sample the plugin acts on: it does not judge the node
	// by its use).
	Basis string `json:"basis"`
	// Pods counts the pods estimated.
	Pods int `json:"pods,omitempty"`
	// MilliCPU is their estimated CPU, in millicores.
	MilliCPU int64 `json:"milliCPU,omitempty"`
	// MemoryBytes is their estimated memory, in bytes.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// CPUPercent is MilliCPU in percent of the node's allocatable CPU.
	CPUPercent float64 `json:"cpuPercent,omitempty"`
	// MemoryPercent is MemoryBytes in percent of the node's allocatable memory.
	MemoryPercent float64 `json:"memoryPercent,omitempty"`
}

// sourceRead is explain's one read of a usage source.
type sourceRead struct {
	src  usage.Source
	view usage.View
	err  error
	at   time.Time
}

// usageReads are the reads of every source the explained profiles name,
// by store: equal sources share a store.
type usageReads struct {
	stores map[usage.Store]*sourceRead
	now    time.Time
}

// readUsage reads every source the frameworks' plugins read, once each and
// synchronously, into the stores the plugins read, and takes each store's
// view. A read that fails is kept with its error; the store keeps no data
// then, and the plugins judge nodes as without it.
func readUsage(ctx context.Context, reg *usage.Registry, fwks []*runtime.Framework, now func() time.Time) *usageReads {
	out := &usageReads{stores: make(map[usage.Store]*sourceRead)}
	for _, fwk := range fwks {
		for _, u := range fwk.UsageSources() {
			st := reg.Store(u.Source)
			if _, ok := out.stores[st]; ok {
				continue
			}
			_, err := reg.ReadNow(ctx, u.Source)
			out.stores[st] = &sourceRead{src: u.Source, err: err, at: now(), view: st.View()}
		}
	}
	out.now = now()
	return out
}

// read returns the read of the store of src.
func (u *usageReads) read(reg *usage.Registry, src usage.Source) *sourceRead {
	return u.stores[reg.Store(src)]
}

// profileUsage is what one profile's plugins reading usage see: how reading
// their sources went, and of every node.
type profileUsage struct {
	sources []UsageSource
	nodes   map[string][]NodeUsage
}

// usageOf takes what the framework's plugins reading usage see of every
// node of its snapshot, from the reads; nil for a profile without any.
func usageOf(fwk *runtime.Framework, reg *usage.Registry, reads *usageReads) (*profileUsage, error) {
	sources := fwk.UsageSources()
	if len(sources) == 0 {
		return nil, nil
	}
	out := &profileUsage{nodes: make(map[string][]NodeUsage)}
	for _, u := range sources {
		rd := reads.read(reg, u.Source)
		if rd == nil {
			continue
		}
		us := UsageSource{Plugin: u.Plugin, Source: describe(u.Source)}
		if rd.err != nil {
			us.Error = rd.err.Error()
		} else {
			us.ReadAt = &metav1.Time{Time: rd.at}
		}
		out.sources = append(out.sources, us)
	}
	nodes, err := fwk.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	for _, ni := range nodes {
		out.nodes[ni.Name()] = nodeUsage(ni, sources, reg, reads)
	}
	return out, nil
}

// addTo fills the result's usage sources and its node rows' usage.
func (p *profileUsage) addTo(r *Result) {
	if p == nil {
		return
	}
	r.Usage = p.sources
	for i := range r.Nodes {
		r.Nodes[i].Usage = p.nodes[r.Nodes[i].Node]
	}
}

// nodeUsage is what the plugins see of one node, one entry per source in
// the order the plugins first name them.
func nodeUsage(ni *framework.NodeInfo, sources []runtime.PluginUsage, reg *usage.Registry, reads *usageReads) []NodeUsage {
	var out []NodeUsage
	index := make(map[*sourceRead]int)
	cpu, memory := allocatable(ni)
	for _, u := range sources {
		rd := reads.read(reg, u.Source)
		if rd == nil {
			continue
		}
		i, ok := index[rd]
		if !ok {
			i = len(out)
			index[rd] = i
			out = append(out, sampled(ni.Name(), rd, reads.now))
		}
		est, ok := u.Reader.(framework.UsageEstimator)
		if !ok {
			continue
		}
		e := est.EstimateUsage(rd.view, ni)
		ue := UsageEstimate{Plugin: u.Plugin, Basis: string(e.Basis), Pods: e.Pods,
			MilliCPU: int64(math.Round(e.MilliCPU)), MemoryBytes: int64(math.Round(e.Memory))}
		if cpu > 0 {
			ue.CPUPercent = percent(e.MilliCPU / cpu)
		}
		if memory > 0 {
			ue.MemoryPercent = percent(e.Memory / memory)
		}
		out[i].Estimates = append(out[i].Estimates, ue)
	}
	return out
}

// sampled is the node's sample in the read's view.
func sampled(node string, rd *sourceRead, now time.Time) NodeUsage {
	nu, fresh := rd.view.Node(node)
	out := NodeUsage{Source: describe(rd.src), Freshness: fresh.String()}
	if fresh == usage.Missing {
		return out
	}
	out.SampledAt = &metav1.Time{Time: nu.SampledAt}
	age := int64(now.Sub(nu.SampledAt).Round(time.Second) / time.Second)
	out.AgeSeconds = &age
	if s, ok := nu.Usage[usage.CPU]; ok {
		v := percent(s.Average)
		out.CPUPercent = &v
		out.CPUStdDevPercent = percent(s.StdDev)
	}
	if s, ok := nu.Usage[usage.Memory]; ok {
		v := percent(s.Average)
		out.MemoryPercent = &v
		out.MemoryStdDevPercent = percent(s.StdDev)
	}
	return out
}

// allocatable returns the node's allocatable CPU in millicores and memory in bytes.
func allocatable(ni *framework.NodeInfo) (cpuMilli, memory float64) {
	if ni.Allocatable == nil {
		return 0, 0
	}
	return float64(ni.Allocatable.MilliCPU), float64(ni.Allocatable.Memory)
}

// percent turns a fraction into a percentage with one decimal.
func percent(fraction float64) float64 { return math.Round(fraction*1000) / 10 }

// describe names a source for the report.
func describe(src usage.Source) string {
	if src.Type == usage.Prometheus {
		return "Prometheus at " + src.Address
	}
	return "metrics.k8s.io"
}

// usageCell renders a node's usage for the table: per source, the sampled
// CPU and memory use and the sample's age, then what the plugins add for
// the pods the sample does not show yet. named puts the plugins' names on
// their estimates, for a profile with more than one.
func usageCell(usages []NodeUsage, named bool) string {
	parts := make([]string, 0, len(usages))
	for _, u := range usages {
		var b strings.Builder
		if len(usages) > 1 {
			b.WriteString(u.Source + ": ")
		}
		switch {
		case u.Freshness == usage.Missing.String():
			b.WriteString("missing")
		default:
			var res []string
			if u.CPUPercent != nil {
				res = append(res, "cpu "+pct(*u.CPUPercent))
			}
			if u.MemoryPercent != nil {
				res = append(res, "mem "+pct(*u.MemoryPercent))
			}
			b.WriteString(strings.Join(res, " "))
			if u.AgeSeconds != nil {
				fmt.Fprintf(&b, ", %s old", time.Duration(*u.AgeSeconds)*time.Second)
			}
			if u.Freshness == usage.Stale.String() {
				b.WriteString(", stale")
			}
		}
		for _, e := range estimateCells(u.Estimates, named) {
			b.WriteString(", " + e)
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "; ")
}

// estimateCells renders the plugins' estimates, merging the plugins whose
// estimates render alike: "+4% cpu" added to the sample, "est. 30% cpu"
// taken as the use of a node without a fresh sample.
func estimateCells(estimates []UsageEstimate, named bool) []string {
	var cells []string
	plugins := make(map[string][]string)
	for _, e := range estimates {
		var parts []string
		switch {
		case e.Pods == 0 || e.Basis == string(framework.UsageNotJudged):
			continue
		case e.Basis == string(framework.UsageFromPods):
			parts = append(parts, "est.")
			parts = append(parts, amounts(e, "")...)
		default:
			parts = append(parts, amounts(e, "+")...)
		}
		cell := strings.Join(parts, " ")
		if _, ok := plugins[cell]; !ok {
			cells = append(cells, cell)
		}
		plugins[cell] = append(plugins[cell], e.Plugin)
	}
	if !named {
		return cells
	}
	for i, c := range cells {
		cells[i] = c + " (" + strings.Join(plugins[c], ", ") + ")"
	}
	return cells
}

// amounts renders an estimate's CPU and, when there is any, memory.
func amounts(e UsageEstimate, sign string) []string {
	out := []string{sign + pct(e.CPUPercent) + " cpu"}
	if e.MemoryBytes > 0 {
		out = append(out, sign+pct(e.MemoryPercent)+" mem")
	}
	return out
}

// pct renders a percentage: whole from 10 up, with one decimal below.
func pct(v float64) string {
	if math.Abs(v) >= 10 {
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + "%"
}

// writeUsageErrors says which plugins cannot read their source, and why.
func writeUsageErrors(b *strings.Builder, sources []UsageSource) {
	type failure struct{ source, err string }
	var failures []failure
	plugins := make(map[failure][]string)
	for _, u := range sources {
		if u.Error == "" {
			continue
		}
		f := failure{u.Source, u.Error}
		if _, ok := plugins[f]; !ok {
			failures = append(failures, f)
		}
		plugins[f] = append(plugins[f], u.Plugin)
	}
	for _, f := range failures {
		fmt.Fprintf(b, "Usage: %s cannot read %s: %s. Nodes without a fresh sample are judged as the scheduler judges them without data: scored on their pods' estimates, let through the filter.\n",
			strings.Join(plugins[f], ", "), f.source, f.err)
	}
}
