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

package usage

// Spreads a Prometheus source may read beside CPU and Memory: a query
// under one of these keys gives the standard deviation of the resource's
// use over the query's window (stddev_over_time), and its value becomes
// StdDev of the resource's Stat rather than a Stat of its own.
const (
	// CPUStdDev is the spread of CPU use, as a fraction of allocatable CPU.
	CPUStdDev Resource = "cpu-stddev"
	// MemoryStdDev is the spread of memory use, as a fraction of allocatable memory.
	MemoryStdDev Resource = "memory-stddev"
)
