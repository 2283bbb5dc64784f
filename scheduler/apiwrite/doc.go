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

// Package apiwrite holds the scheduler's hand-written API writes: those it
// sends for every pod, or for every pod of a burst, where client-go's
// general paths cost more than the write needs or put no bound on what a
// burst sends. Each was written against a measurement or a fault; the
// figures are those of docs/performance.md (Binding), docs/architecture.md
// and docs/benchmarks.md.
//
// [Poster] creates an object with a plain protobuf POST on a client set's
// own HTTP client and rate limiter, so its transport (the lease fence among
// it) sees the request as it sees the typed client's. DefaultBinder binds
// with it, and the Scheduled-event writer creates events with it. client-go's
// Request builds and joins the URL twice per call (once for its metrics
// template), clones headers and decodes a response nobody reads; at hundreds
// of pods per second that was a few percent of the scheduler's CPU and an
// eighth of its allocations. One bind against a local HTTP server, the
// server's work included (2026-11-23, -count=3 on loaded cores), took
// 80–92 µs, 9.1 KB and 101 allocations through DefaultBinder, against
// 121–153 µs, 13.8 KB and 178 through the typed client's Bind; [Poster.Post]
// of the Binding alone took 72–84 µs, 7.4 KB and 83 allocations, the same
// request through client-go's rest.Request 106–143 µs, 11.5 KB and 150. A
// failure is the API error client-go would report, and a 429 or 5xx with
// Retry-After is sent again after the wait, at most 10 times, as client-go
// does. These requests are not counted in client-go's rest_client_* metrics.
//
// [ScheduledEventWriter] writes each bound pod's Scheduled event from the
// goroutine that bound it, without client-go's events broadcaster: a pod is
// bound once, so its event never forms a series, and the broadcaster's
// goroutine, two copies and six-minute cache entry per event were a tenth of
// Berth's CPU in the end-to-end benchmark. At most 1,000 events are in
// flight, beyond which one is dropped, as the broadcaster drops past its
// buffer; a transient failure is tried three times.
//
// [NewEventSink] is the sink under the broadcaster, which writes every other
// event (FailedScheduling above all). It creates events with a plain REST
// request, without the typed client's reflection over empty CreateOptions.
// The broadcaster writes each event from a goroutine of its own, so a new
// leader that failed its whole queue at once put about 1,000 event writes in
// flight, slowed the apiserver past its own Lease renewal and lost the Lease
// (the fault suite's gang scenario, 2026-11-27); the sink lets 16 writes
// through at a time and drops an event when 1,000 wait.
//
// [StatusPatcher] sends the pods' PodScheduled status patches through the
// typed client, at most 16 at a time and one at a time per pod, a newer
// patch replacing one not yet sent. With a goroutine
// per patch, parking 50,000 pending pods (their profile deleted) sent 50,000
// PATCHes at once; the bound answers that count, not a benchmark.
//
// The binding cycles' goroutine pool (binding_pool.go) stays in package
// scheduler: it runs binding cycles, WaitOnPermit through PostBind, on
// reused goroutines, and writes nothing itself; the bind those cycles run
// is, by default, DefaultBinder's, through a [Poster].
package apiwrite
